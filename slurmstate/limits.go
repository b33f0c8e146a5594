package slurmstate

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/hpcsched/hpcsched/position"
	"github.com/hpcsched/hpcsched/selectnodes"
)

// Limits bound what one reader accepts; each is checked while reading,
// before anything is kept for the input past it. The zero value of a field
// is its default.
type Limits struct {
	// MaxBytes is the most bytes of one file (default 256 MiB: a
	// 100,000-node cluster's scontrol output is about 100 MB).
	MaxBytes int64
	// MaxLines is the most lines of one file (default 2,000,000).
	MaxLines int
	// MaxLineBytes is the longest line (default 1 MiB).
	MaxLineBytes int
	// MaxHosts is the most nodes one hostlist (a job's, a reservation's)
	// may name (default 1,000,000).
	MaxHosts int
}

// ErrBudget is the cause of every error for input past a Limits bound.
var ErrBudget = errors.New("slurmstate: input past its budget")

func (l Limits) withDefaults() Limits {
	if l.MaxBytes <= 0 {
		l.MaxBytes = 256 << 20
	}
	if l.MaxLines <= 0 {
		l.MaxLines = 2_000_000
	}
	if l.MaxLineBytes <= 0 {
		l.MaxLineBytes = 1 << 20
	}
	if l.MaxHosts <= 0 {
		l.MaxHosts = 1_000_000
	}
	return l
}

// eachLine calls f for every non-blank line of r (without its newline or a
// trailing '\r'), with its 1-based number, checking the budgets as it
// reads. An error from f stops it and is returned as is.
func eachLine(r io.Reader, file string, lim Limits, f func(line string, n int) error) error {
	if r == nil {
		return fmt.Errorf("%w: slurmstate: %s: nil io.Reader", selectnodes.ErrNilArgument, file)
	}
	lim = lim.withDefaults()
	lr := &io.LimitedReader{R: r, N: lim.MaxBytes + 1}
	sc := bufio.NewScanner(lr)
	sc.Buffer(make([]byte, 0, min(64<<10, lim.MaxLineBytes+1)), lim.MaxLineBytes+1)
	n := 0
	for sc.Scan() {
		n++
		if lr.N <= 0 {
			return position.Wrapf(ErrBudget, position.Position{File: file, Line: n}, "more than %d bytes", lim.MaxBytes)
		}
		if n > lim.MaxLines {
			return position.Wrapf(ErrBudget, position.Position{File: file, Line: n}, "more than %d lines", lim.MaxLines)
		}
		line := strings.TrimSuffix(sc.Text(), "\r")
		if strings.TrimSpace(line) == "" {
			continue
		}
		if err := f(line, n); err != nil {
			return err
		}
	}
	switch err := sc.Err(); {
	case errors.Is(err, bufio.ErrTooLong):
		return position.Wrapf(ErrBudget, position.Position{File: file, Line: n + 1}, "a line longer than %d bytes", lim.MaxLineBytes)
	case err != nil:
		return position.Wrapf(err, position.Position{File: file, Line: n + 1}, "reading: %v", err)
	case lr.N <= 0:
		return position.Wrapf(ErrBudget, position.Position{File: file, Line: n}, "more than %d bytes", lim.MaxBytes)
	}
	return nil
}
