//go:build unix

package allocation

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"syscall"
)

// lockFile takes an exclusive flock on path (created when absent) without
// waiting, and writes this process's pid and host into it, so a second
// server on the same ledger is refused naming the first. The lock lasts
// until the returned file is closed or the process ends (kill -9
// included: the kernel releases it).
func lockFile(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrFile, err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		holder := make([]byte, 256)
		n, _ := f.ReadAt(holder, 0)
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, &LockedError{Path: path, Holder: strings.TrimSpace(string(holder[:n]))}
		}
		return nil, fmt.Errorf("%w: lock %s: %v", ErrFile, path, err)
	}
	host, _ := os.Hostname()
	if err := f.Truncate(0); err == nil {
		fmt.Fprintf(f, "pid %d on %s\n", os.Getpid(), host)
	}
	return f, nil
}
