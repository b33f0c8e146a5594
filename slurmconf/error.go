package slurmconf

import "fmt"

// Pos is where a line starts: the file ("" when reading an io.Reader) and
// the 1-based line number.
type Pos struct {
	File string
	Line int
}

func (p Pos) String() string {
	switch {
	case p.File == "":
		return fmt.Sprintf("line %d", p.Line)
	case p.Line == 0:
		return p.File
	}
	return fmt.Sprintf("%s:%d", p.File, p.Line)
}

// Error is a problem in a configuration file. Col is the 1-based byte column
// of the offending text, or 0 when the whole line is meant.
type Error struct {
	Pos
	Col int
	Msg string
}

func (e *Error) Error() string {
	if e.Col > 0 {
		return fmt.Sprintf("%s:%d: %s", e.Pos, e.Col, e.Msg)
	}
	return fmt.Sprintf("%s: %s", e.Pos, e.Msg)
}

func errAt(pos Pos, col int, format string, args ...any) *Error {
	return &Error{Pos: pos, Col: col, Msg: fmt.Sprintf(format, args...)}
}
