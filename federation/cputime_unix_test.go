//go:build unix

package federation

import (
	"syscall"
	"time"
)

// cpuTime is the CPU time (user and system) this process has used, so a
// benchmark can report it beside wall time on a shared machine.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
