package hostlist

import (
	"errors"
	"fmt"

	"github.com/hpcsched/hpcsched/internal/errtext"
	"github.com/hpcsched/hpcsched/position"
)

// ErrBudget is the cause of every error that reports an expression naming
// more hosts or bytes than its Budget allows; test for it with errors.Is.
var ErrBudget = errors.New("hostlist: budget exceeded")

// ErrHostBudget and ErrByteBudget tell which total was exceeded; both
// wrap ErrBudget.
var (
	ErrHostBudget = fmt.Errorf("%w: too many hosts", ErrBudget)
	ErrByteBudget = fmt.Errorf("%w: too many bytes", ErrBudget)
)

// Error reports a malformed hostlist expression, or one over its budget.
// Pos is where in Expr the problem was found (Offset is the byte offset;
// Line and Column count from the start of Expr). The message quotes an
// Expr longer than 128 bytes only around Pos; Expr keeps all of it.
type Error struct {
	Expr string
	Pos  position.Position
	Msg  string
	// Err is ErrHostBudget, ErrByteBudget or ErrBudget (a per-range or
	// per-name limit) for budget errors, nil otherwise.
	Err error
}

func (e *Error) Error() string {
	return fmt.Sprintf("hostlist %s: offset %d: %s", errtext.Excerpt(e.Expr, e.Pos.Offset), e.Pos.Offset, e.Msg)
}

// Position is where in Expr the problem is.
func (e *Error) Position() position.Position { return e.Pos }

// Unwrap returns the budget sentinel for budget errors.
func (e *Error) Unwrap() error { return e.Err }

func errorf(expr string, off int, format string, args ...any) *Error {
	return &Error{Expr: expr, Pos: position.At(expr, off), Msg: fmt.Sprintf(format, args...)}
}

func budgetf(cause error, expr string, off int, format string, args ...any) *Error {
	e := errorf(expr, off, format, args...)
	e.Err = cause
	return e
}
