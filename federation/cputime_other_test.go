//go:build !unix

package federation

import "time"

// cpuTime is not measured here.
func cpuTime() time.Duration { return 0 }
