package queue

import (
	"errors"

	"github.com/hpcsched/hpcsched/selectnodes"
)

// isSelectClass reports errors.Is(err, class) for a selection's error
// without the allocation errors.Is pays on a *selectnodes.Error: its Unwrap
// builds a new slice each call, and a busy pass meets a failed selection
// for most jobs it looks at. With no Cause, the error unwraps to its Class
// alone, so asking the Class is the same question.
func isSelectClass(err, class error) bool {
	if e, ok := err.(*selectnodes.Error); ok && e.Cause == nil {
		return errors.Is(e.Class, class)
	}
	return errors.Is(err, class)
}

// asSelectError is errors.As for a *selectnodes.Error, reading a selection's
// own error without the reflection errors.As goes through.
func asSelectError(err error) *selectnodes.Error {
	if e, ok := err.(*selectnodes.Error); ok {
		return e
	}
	var e *selectnodes.Error
	if errors.As(err, &e) {
		return e
	}
	return nil
}
