package queue

import (
	"errors"
	"fmt"
)

// Errors a caller may branch on with errors.Is. Every error a Scheduler
// method returns matches at most one of them, or a selectnodes error class
// (for selection failures), so a REST layer can map them without reading
// strings: ErrUnknownJob to 404, ErrJobState and ErrDuplicateID to 409,
// ErrInvalidSpec, ErrLimit, ErrRefused and ErrTime to 422, ErrIDSource to 503.
var (
	// ErrUnknownJob: no job has that ID.
	ErrUnknownJob = errors.New("queue: unknown job")
	// ErrJobState: the job's state does not allow the operation.
	ErrJobState = errors.New("queue: job is not in a state that allows this")
	// ErrDuplicateID: a caller-chosen or IDSource-given job ID is in use.
	ErrDuplicateID = errors.New("queue: job ID already in use")
	// ErrInvalidSpec: the submission or update is malformed or can never
	// run here (the selectnodes class is wrapped too).
	ErrInvalidSpec = errors.New("queue: invalid job specification")
	// ErrLimit: a documented limit of the package was exceeded.
	ErrLimit = errors.New("queue: limit exceeded")
	// ErrRefused: a plugin refused the operation; the error is a
	// *StatusError carrying the plugin's Status.
	ErrRefused = errors.New("queue: refused by a plugin")
	// ErrTime: a time is outside the years MinYear to MaxYear, or a call's
	// now precedes the job's submission, start or suspension (a Finish
	// before the start, a Resume before the Suspend).
	ErrTime = errors.New("queue: time out of order or out of range")
	// ErrIDSource: the IDSource failed or returned 0; its error, if any,
	// is in the chain too.
	ErrIDSource = errors.New("queue: job ID source failed")
)

// StatusError is a plugin's refusal, as an error. It matches ErrRefused.
type StatusError struct {
	Plugin string
	Status *Status
}

func (e *StatusError) Error() string {
	return fmt.Sprintf("queue: %s: %s", e.Plugin, e.Status.Message())
}

// Is makes errors.Is(err, ErrRefused) true.
func (e *StatusError) Is(target error) bool { return target == ErrRefused }

// invalid wraps err (or formats a message) as ErrInvalidSpec.
func invalid(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrInvalidSpec, fmt.Sprintf(format, args...))
}

// invalidErr marks err, keeping its own chain (a selectnodes class, a
// *DependencyError), as ErrInvalidSpec too.
func invalidErr(err error) error {
	if err == nil || errors.Is(err, ErrInvalidSpec) {
		return err
	}
	return fmt.Errorf("%w: %w", ErrInvalidSpec, err)
}
