package allocation

import (
	"errors"
	"fmt"
)

// Sentinels a caller may branch on with errors.Is.
var (
	// ErrInvalid: a field is missing or out of range.
	ErrInvalid = errors.New("allocation: invalid input")
	// ErrNotFound: no such project, allocation or job.
	ErrNotFound = errors.New("allocation: not found")
	// ErrNoAllocation: no allocation of the account and resource is
	// active at the time.
	ErrNoAllocation = errors.New("allocation: no active allocation")
	// ErrOverlap: an allocation would overlap another of its project and
	// resource (*OverlapError says which).
	ErrOverlap = errors.New("allocation: overlapping allocation")
	// ErrInsufficient: a pre-debit would drive the balance negative
	// (*InsufficientError carries the numbers; a Failure was recorded).
	ErrInsufficient = errors.New("allocation: insufficient balance")
	// ErrConflict: a retried request differs from the one recorded for
	// the same key (job id, project name), or a record in use cannot be
	// deleted.
	ErrConflict = errors.New("allocation: conflict")
	// ErrOverflow: a service-unit computation does not fit in int64.
	ErrOverflow = errors.New("allocation: arithmetic overflow")
	// ErrClosed: the store was closed (MemStore.Close, pgstore's Close);
	// open the ledger again.
	ErrClosed = errors.New("allocation: store closed")
)

// OverlapError names the allocation a new or changed one would overlap.
type OverlapError struct {
	New, Existing Allocation
}

// Error names both allocations and their periods.
func (e *OverlapError) Error() string {
	return fmt.Sprintf("allocation: %s allocation of project %d for [%s, %s) overlaps allocation %d [%s, %s)",
		e.New.Resource, e.New.Project, e.New.Start.Format("2006-01-02T15:04:05Z07:00"), e.New.End.Format("2006-01-02T15:04:05Z07:00"),
		e.Existing.ID, e.Existing.Start.Format("2006-01-02T15:04:05Z07:00"), e.Existing.End.Format("2006-01-02T15:04:05Z07:00"))
}

// Unwrap makes an *OverlapError match ErrOverlap.
func (e *OverlapError) Unwrap() error { return ErrOverlap }

// InsufficientError is a refused pre-debit: the job wanted Amount SU and
// the allocation had Balance.
type InsufficientError struct {
	Job        JobID        `json:"job_id"`
	Allocation AllocationID `json:"allocation_id"`
	Amount     int64        `json:"amount"`
	Balance    int64        `json:"balance"`
}

// Error gives the numbers of the refusal.
func (e *InsufficientError) Error() string {
	return fmt.Sprintf("allocation: job %d needs %d SU but allocation %d has %d", e.Job, e.Amount, e.Allocation, e.Balance)
}

// Unwrap makes an *InsufficientError match ErrInsufficient.
func (e *InsufficientError) Unwrap() error { return ErrInsufficient }

// FieldError is bad input: which field and why. It matches ErrInvalid.
type FieldError struct {
	Field, Reason string
}

// Error names the field and the reason.
func (e *FieldError) Error() string {
	return fmt.Sprintf("allocation: invalid input: %s: %s", e.Field, e.Reason)
}

// Unwrap makes a *FieldError match ErrInvalid.
func (e *FieldError) Unwrap() error { return ErrInvalid }

func invalidf(field, format string, args ...any) error {
	return &FieldError{Field: field, Reason: fmt.Sprintf(format, args...)}
}
