//go:build unix

package selectnodes

import "syscall"

// processCPU is the user and system CPU time the test process has used,
// in nanoseconds (every thread: the collector's work on other cores is
// part of what an allocating selection costs), or -1 when unknown.
func processCPU() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return -1
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}
