package position

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Error is a problem at a position. Err, when set, is the cause a caller
// may test with errors.Is (a package's budget sentinel, say); Msg is the
// full description.
type Error struct {
	Pos Position
	Msg string
	Err error
}

// Errorf is an *Error at pos with a formatted message.
func Errorf(pos Position, format string, args ...any) *Error {
	return &Error{Pos: pos, Msg: sprintf(format, args...)}
}

// Wrapf is Errorf with a cause for errors.Is and errors.As.
func Wrapf(cause error, pos Position, format string, args ...any) *Error {
	return &Error{Pos: pos, Msg: sprintf(format, args...), Err: cause}
}

// Error is "position: message", or the message alone when the position
// is unknown.
func (e *Error) Error() string {
	if e.Pos.File == "" && !e.Pos.IsValid() {
		return e.Msg
	}
	return e.Pos.String() + ": " + e.Msg
}

// Position is where the problem is.
func (e *Error) Position() Position { return e.Pos }

// Unwrap returns the cause, if any.
func (e *Error) Unwrap() error { return e.Err }

// ErrorList collects errors, as a parser that reports every problem does.
// Its zero value is an empty list.
type ErrorList []*Error

// Add appends an error at pos.
func (l *ErrorList) Add(pos Position, msg string) {
	*l = append(*l, &Error{Pos: pos, Msg: msg})
}

// Sort orders the list by position; errors at the same position keep
// their order.
func (l ErrorList) Sort() {
	slices.SortStableFunc(l, func(a, b *Error) int { return Compare(a.Pos, b.Pos) })
}

// Err returns nil for an empty list and the list otherwise, so a function
// can end with "return errs.Err()".
func (l ErrorList) Err() error {
	if len(l) == 0 {
		return nil
	}
	return l
}

// Error is the first error, followed by how many more there are.
func (l ErrorList) Error() string {
	switch len(l) {
	case 0:
		return "no errors"
	case 1:
		return l[0].Error()
	}
	var b strings.Builder
	b.WriteString(l[0].Error())
	b.WriteString(" (and ")
	b.WriteString(strconv.Itoa(len(l) - 1))
	if len(l) == 2 {
		b.WriteString(" more error)")
	} else {
		b.WriteString(" more errors)")
	}
	return b.String()
}

// Unwrap lets errors.Is and errors.As look at every error of the list.
func (l ErrorList) Unwrap() []error {
	out := make([]error, len(l))
	for i, e := range l {
		out[i] = e
	}
	return out
}

// sprintf leaves a message without arguments as it is, so a literal '%'
// in it survives.
func sprintf(format string, args ...any) string {
	if len(args) == 0 {
		return format
	}
	return fmt.Sprintf(format, args...)
}
