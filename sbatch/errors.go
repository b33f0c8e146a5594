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

// Error is a bad argument: Arg is its index in the argument list (-1 for
// a whole line), Offset the byte offset inside it.
type Error struct {
	Arg    int
	Offset int
	Text   string // the argument
	Msg    string
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

func (e *Error) Error() string {
	if e.Arg < 0 {
		return fmt.Sprintf("sbatch: offset %d: %s", e.Offset, e.Msg)
	}
	return fmt.Sprintf("sbatch: argument %d (%q), offset %d: %s", e.Arg+1, e.Text, e.Offset, e.Msg)
}
