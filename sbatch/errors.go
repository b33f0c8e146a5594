package sbatch

import (
	"fmt"

	"github.com/hpcsched/hpcsched/position"
)

// Budgets, checked before anything is allocated for the input.
const (
	MaxArgs      = 4096
	MaxArgBytes  = 64 << 10
	MaxLineBytes = 1 << 20
	// MaxMemoryMB is the largest memory size (an exabyte).
	MaxMemoryMB = 1 << 40
)

// noOptions is what the Options methods return on a nil *Options, the
// value Parse returns with its error: a caller that skipped the error
// learns why here rather than from a nil dereference. A new one each
// time, as every *Error is the caller's.
func noOptions() error {
	return &Error{Arg: -1, Msg: "no options: Parse returned an error for these arguments"}
}

// Error is a bad argument: Arg is its index in the argument list (-1 for
// a whole line), Offset the byte offset inside it.
type Error struct {
	Arg    int
	Offset int
	Text   string // the argument
	Msg    string
	own    bool // about a caller's own flag: no "sbatch:" prefix
}

// Position is where the problem is (for position.Of): the argument as
// the "file", the offset inside it as column and offset.
func (e *Error) Position() position.Position {
	file := "command line"
	if e.Arg >= 0 {
		file = fmt.Sprintf("argument %d", e.Arg+1)
	}
	return position.Position{File: file, Line: 1, Column: e.Offset + 1, Offset: e.Offset}
}

// Error says "sbatch:" first only when the option is one of sbatch's,
// not a caller's own Flag.
func (e *Error) Error() string {
	prefix := "sbatch: "
	if e.own {
		prefix = ""
	}
	if e.Arg < 0 {
		return fmt.Sprintf("%soffset %d: %s", prefix, e.Offset, e.Msg)
	}
	return fmt.Sprintf("%sargument %d (%q), offset %d: %s", prefix, e.Arg+1, e.Text, e.Offset, e.Msg)
}
