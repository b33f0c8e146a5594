package allocation

import (
	"context"
	"errors"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// Store holds a ledger's tables. Every method is safe for concurrent use
// and each balance-changing method (Credit, PreDebit, Complete) is atomic:
// it checks and records in one critical section, so concurrent pre-debits
// never overdraw. A change given a nil context is refused (ErrInvalid)
// and changes nothing. MemStore and allocation/pgstore implement it.
type Store interface {
	CreateProject(ctx context.Context, p Project) (Project, error)
	UpdateProject(ctx context.Context, p Project) (Project, error)
	// DeleteProject refuses (ErrConflict) a project that has allocations.
	DeleteProject(ctx context.Context, id ProjectID) error
	Project(ctx context.Context, id ProjectID) (Project, error)
	Projects(ctx context.Context) ([]Project, error)

	// CreateAllocation and UpdateAllocation refuse an overlap with an
	// *OverlapError.
	CreateAllocation(ctx context.Context, a Allocation) (Allocation, error)
	UpdateAllocation(ctx context.Context, a Allocation) (Allocation, error)
	// DeleteAllocation refuses (ErrConflict) an allocation with activity.
	DeleteAllocation(ctx context.Context, id AllocationID) error
	Allocation(ctx context.Context, id AllocationID) (Allocation, error)
	Allocations(ctx context.Context) ([]Allocation, error)
	// ActiveAllocation is the allocation of the project with this Slurm
	// account and resource type active at t (ErrNoAllocation if none).
	ActiveAllocation(ctx context.Context, account string, r Resource, t time.Time) (Allocation, error)

	Credit(ctx context.Context, id AllocationID, amount int64, comment string, now time.Time) (Activity, error)
	// PreDebit records a job's maximum SU against the allocation active
	// at now, or records a Failure and returns an *InsufficientError.
	// Idempotent per job id once it passed; a refused job is checked
	// against the current balance each time it is retried (a refusal
	// against the same balance as the job's last one adds no record).
	PreDebit(ctx context.Context, r PreDebitRequest, now time.Time) (Job, error)
	// Complete resolves a pre-debit (see ActualDebit). Idempotent per
	// job id.
	Complete(ctx context.Context, c Completion, now time.Time) (Job, error)
	// Forget drops a job's record so the id may be pre-debited again: an
	// executing pre-debit is returned in full (a start that did not
	// happen); a completed job keeps its debit and activity (a requeued
	// job runs again under its id). Forgetting an unknown job does
	// nothing.
	Forget(ctx context.Context, id JobID, now time.Time) error

	Job(ctx context.Context, id JobID) (Job, error)
	Jobs(ctx context.Context, id AllocationID) ([]Job, error)
	Failures(ctx context.Context) ([]Failure, error)
	Balance(ctx context.Context, id AllocationID) (Balance, error)
	Balances(ctx context.Context) ([]Balance, error)
	// History is the allocation's activity in order.
	History(ctx context.Context, id AllocationID) ([]Activity, error)
	Debits(ctx context.Context, id AllocationID) ([]OwnerDebit, error)
}

// PreDebitRequest is a job start: Amount is the maximum SU; Rate, when
// not 0, the billable units in millionths so Complete can compute the
// actual debit from the elapsed time.
type PreDebitRequest struct {
	Job      JobID    `json:"job_id"`
	UID      uint32   `json:"uid"`
	Account  string   `json:"account"`
	Resource Resource `json:"resource"`
	Amount   int64    `json:"amount"`
	Rate     int64    `json:"rate,omitempty"`
	Comment  string   `json:"comment,omitempty"`
}

// MaxJobID is the largest job id the ledger accepts, in every store and
// over the REST API: 2^63-1, what PostgreSQL's bigint and JSON consumers
// that read numbers as signed 64-bit integers hold. Slurm's job ids are
// 32-bit.
const MaxJobID JobID = 1<<63 - 1

// Validate names the first bad field.
func (r PreDebitRequest) Validate() error {
	switch {
	case r.Job == 0:
		return invalidf("job_id", "missing")
	case r.Job > MaxJobID:
		return invalidf("job_id", "%d exceeds %d, the largest job id a ledger accepts", r.Job, MaxJobID)
	case strings.TrimSpace(r.Account) == "":
		return invalidf("account", "missing")
	case r.Resource != CPU && r.Resource != GPU:
		return invalidf("resource", "%q is neither CPU nor GPU", r.Resource)
	case r.Amount < 0:
		return invalidf("amount", "%d is negative", r.Amount)
	case r.Rate < 0:
		return invalidf("rate", "%d is negative", r.Rate)
	}
	return firstBadText("account", r.Account, "comment", r.Comment)
}

// Completion is a job end. Amount, when set, is the actual SU as the
// scheduler billed it (HADM's epilog sends it); otherwise the actual debit
// follows from the pre-debit's Rate and Elapsed.
type Completion struct {
	Job     JobID         `json:"job_id"`
	Elapsed time.Duration `json:"elapsed"`
	Outcome Outcome       `json:"outcome"`
	Amount  *int64        `json:"amount,omitempty"`
}

// ActualDebit is what a completion bills a pre-debit: 0 for a node
// failure; otherwise the given amount or the SU of the rate over the
// elapsed time, at most the pre-debit (a job past its limit is not billed
// beyond what it reserved).
func ActualDebit(j Job, c Completion) (int64, error) {
	if c.Elapsed < 0 {
		return 0, invalidf("elapsed", "%s is negative", c.Elapsed)
	}
	if _, err := ParseOutcome(string(c.Outcome)); err != nil {
		return 0, err
	}
	if c.Outcome == OutcomeNodeFail {
		return 0, nil
	}
	var su int64
	switch {
	case c.Amount != nil:
		if *c.Amount < 0 {
			return 0, invalidf("amount", "%d is negative", *c.Amount)
		}
		su = *c.Amount
	case j.Rate > 0:
		var err error
		su, err = serviceUnitsRate(j.Rate, c.Elapsed)
		switch {
		case errors.Is(err, ErrOverflow):
			// Past int64 is past any pre-debit: bill the cap, as every
			// store does, rather than leave the job executing for good.
			su = j.Amount
		case err != nil:
			return 0, err
		}
	default:
		return 0, invalidf("amount", "required, job %d was pre-debited without a rate", j.ID)
	}
	return min(su, j.Amount), nil
}

// SameCompletion reports whether c repeats the completion recorded in j.
func SameCompletion(j Job, c Completion) bool {
	if j.Status != Completed || j.Elapsed != c.Elapsed || j.Outcome != c.Outcome {
		return false
	}
	if c.Amount != nil {
		return c.Outcome == OutcomeNodeFail || min(*c.Amount, j.Amount) == j.Debited
	}
	return true
}

// SamePreDebit reports whether r repeats the pre-debit recorded in j.
func SamePreDebit(j Job, r PreDebitRequest) bool {
	return j.UID == r.UID && j.Amount == r.Amount && j.Rate == r.Rate
}

// Validate checks a project's fields.
func (p Project) Validate() error {
	switch {
	case strings.TrimSpace(p.Name) == "":
		return invalidf("gname", "missing")
	case strings.TrimSpace(p.Account) == "":
		return invalidf("account", "missing")
	}
	return firstBadText("gname", p.Name, "account", p.Account)
}

// CheckText refuses (ErrInvalid, naming field) a value that is not text
// every store keeps as it is: see MaxTextLen. Stores check credit
// comments with it.
func CheckText(field, value string) error { return firstBadText(field, value) }

// CheckTime refuses (ErrInvalid, naming field) a missing time (the zero
// time.Time) or one outside the years 1 to 9999, which are the times every
// store and the JSON of the API keep (RFC 3339). Allocations' periods and
// the now of every balance change (Credit, PreDebit, Complete, Forget) are
// checked with it, in every store.
func CheckTime(field string, t time.Time) error {
	switch y := t.UTC().Year(); {
	case t.IsZero():
		return invalidf(field, "missing")
	case y < 1 || y > 9999:
		return invalidf(field, "%s is outside the years 1 to 9999 a ledger keeps", t.UTC().Format(time.RFC3339))
	}
	return nil
}

// MaxTextLen bounds names, accounts, categories and comments (bytes).
const MaxTextLen = 4096

// firstBadText names the first of the (field, value) pairs that is not
// text every store keeps as it is: valid UTF-8 without control
// characters (a NUL, which PostgreSQL refuses, included), at most
// MaxTextLen bytes.
func firstBadText(pairs ...string) error {
	for i := 0; i+1 < len(pairs); i += 2 {
		field, v := pairs[i], pairs[i+1]
		switch {
		case len(v) > MaxTextLen:
			return invalidf(field, "%d bytes, more than %d", len(v), MaxTextLen)
		case !utf8.ValidString(v):
			return invalidf(field, "not valid UTF-8")
		}
		for j, r := range v {
			if unicode.IsControl(r) {
				return invalidf(field, "control character %U at byte %d", r, j)
			}
		}
	}
	return nil
}

// Validate checks an allocation's fields.
func (a Allocation) Validate() error {
	switch {
	case a.Project <= 0:
		return invalidf("project_id", "missing")
	case a.Resource != CPU && a.Resource != GPU:
		return invalidf("resource", "%q is neither CPU nor GPU", a.Resource)
	case a.Start.IsZero() || a.End.IsZero():
		return invalidf("start", "start and end are both required")
	}
	if err := CheckTime("start", a.Start); err != nil {
		return err
	}
	if err := CheckTime("end", a.End); err != nil {
		return err
	}
	if !a.Start.Before(a.End) {
		return invalidf("end", "%s is not after start %s", a.End.Format(time.RFC3339), a.Start.Format(time.RFC3339))
	}
	return firstBadText("category", a.Category)
}
