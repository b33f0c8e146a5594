package hostlist

import "fmt"

// Error reports a malformed hostlist expression. Offset is the byte offset
// in Expr where the problem was found.
type Error struct {
	Expr   string
	Offset int
	Msg    string
}

func (e *Error) Error() string {
	return fmt.Sprintf("hostlist %q: offset %d: %s", e.Expr, e.Offset, e.Msg)
}

func errorf(expr string, off int, format string, args ...any) *Error {
	return &Error{Expr: expr, Offset: off, Msg: fmt.Sprintf(format, args...)}
}
