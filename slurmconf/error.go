package slurmconf

import (
	"errors"

	"github.com/hpcsched/hpcsched/position"
)

// Pos is where something is in a configuration file: the file ("" when
// reading an io.Reader), 1-based line and byte column, and byte offset.
// It is position.Position under its old name.
type Pos = position.Position

// Error is a problem in a configuration file, at a position.Position
// (Column 0 when the whole line is meant). It is position.Error under its
// old name, so errors.As with either type finds it.
type Error = position.Error

// ErrBudget is the cause of every error that reports input beyond one of
// the Limits; test for it with errors.Is. The message names the limit.
var ErrBudget = errors.New("slurmconf: budget exceeded")

// ErrNilArgument is what the parsers return for a nil io.Reader, fs.FS or
// Option (errors.Is finds it).
var ErrNilArgument = errors.New("slurmconf: nil argument")

func errAt(pos Pos, format string, args ...any) *Error {
	return position.Errorf(pos, format, args...)
}

func budgetAt(pos Pos, format string, args ...any) *Error {
	return position.Wrapf(ErrBudget, pos, format, args...)
}
