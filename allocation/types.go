package allocation

import (
	"strings"
	"time"
)

// Resource is an allocation's resource type; a partition bills one.
type Resource string

// The resource types: CPU cores and GPU devices (the HADM paper's traditional
// CPU and GPGPU coprocessor allocations).
const (
	CPU Resource = "CPU"
	GPU Resource = "GPU"
)

// ParseResource accepts "CPU" or "GPU" (any case).
func ParseResource(s string) (Resource, error) {
	switch strings.ToUpper(s) {
	case "CPU":
		return CPU, nil
	case "GPU":
		return GPU, nil
	}
	return "", invalidf("resource", "%q is neither CPU nor GPU", s)
}

// ProjectID, AllocationID and ActivityID are the stores' numeric keys.
type (
	ProjectID    int64
	AllocationID int64
	ActivityID   int64
	// JobID is the scheduler's job id (Slurm's job_id).
	JobID uint64
)

// Project is a workgroup: Unix group name and gid, and its Slurm account
// (HADM's "projects" table).
type Project struct {
	ID      ProjectID `json:"id"`
	Name    string    `json:"gname"`
	GID     uint32    `json:"gid"`
	Account string    `json:"account"`
}

// Allocation is a grant of one resource type to a project for the period
// [Start, End) (HADM's "allocations" table).
type Allocation struct {
	ID       AllocationID `json:"id"`
	Project  ProjectID    `json:"project_id"`
	Category string       `json:"category"`
	Resource Resource     `json:"resource"`
	Start    time.Time    `json:"start"`
	End      time.Time    `json:"end"`
}

// Active reports whether t falls in the allocation's period.
func (a Allocation) Active(t time.Time) bool { return !t.Before(a.Start) && t.Before(a.End) }

func (a Allocation) overlaps(b Allocation) bool {
	return a.Project == b.Project && a.Resource == b.Resource && a.Start.Before(b.End) && b.Start.Before(a.End)
}

// ActivityKind says what an Activity did to a balance.
type ActivityKind string

const (
	KindCredit   ActivityKind = "credit"   // +amount granted
	KindPreDebit ActivityKind = "predebit" // -maximum SU at job start
	KindRelease  ActivityKind = "release"  // +pre-debit returned at job end
	KindDebit    ActivityKind = "debit"    // -actual SU at job end
)

// Activity is one balance change; Amount is signed (HADM's "activity"
// table and its children). A balance is the sum of its activities.
type Activity struct {
	ID         ActivityID   `json:"id"`
	Allocation AllocationID `json:"allocation_id"`
	Kind       ActivityKind `json:"kind"`
	Amount     int64        `json:"amount"`
	Job        JobID        `json:"job_id,omitempty"`
	UID        uint32       `json:"uid,omitempty"`
	Time       time.Time    `json:"time"`
	Comment    string       `json:"comment,omitempty"`
}

// JobStatus is a pre-debit's state.
type JobStatus string

// A pre-debit is Executing from the job's start until its completion
// makes it Completed.
const (
	Executing JobStatus = "executing"
	Completed JobStatus = "completed"
)

// Outcome is how a job ended. Only NodeFail changes billing: it bills 0.
type Outcome string

// The outcomes a completion may give.
const (
	OutcomeCompleted Outcome = "completed"
	OutcomeFailed    Outcome = "failed"
	OutcomeCancelled Outcome = "cancelled"
	OutcomeTimeout   Outcome = "timeout"
	OutcomeNodeFail  Outcome = "node_fail"
)

// ParseOutcome accepts the Outcome names.
func ParseOutcome(s string) (Outcome, error) {
	switch o := Outcome(s); o {
	case OutcomeCompleted, OutcomeFailed, OutcomeCancelled, OutcomeTimeout, OutcomeNodeFail:
		return o, nil
	}
	return "", invalidf("outcome", "%q is not completed, failed, cancelled, timeout or node_fail", s)
}

// Job is a pre-debit and, once completed, its resolution (HADM's
// "predebits" table).
type Job struct {
	ID         JobID        `json:"job_id"`
	Allocation AllocationID `json:"allocation_id"`
	UID        uint32       `json:"uid"`
	Amount     int64        `json:"amount"` // the pre-debit: maximum SU
	// Rate is the billable units in millionths (cores or GPUs, or the
	// MAX_TRES billing), so the actual debit follows from the elapsed
	// time; 0 when the pre-debit came with an amount only.
	Rate    int64     `json:"rate,omitempty"`
	Status  JobStatus `json:"status"`
	Started time.Time `json:"started"`
	// Set when Status is Completed.
	Ended   time.Time     `json:"ended,omitzero"`
	Elapsed time.Duration `json:"elapsed,omitempty"`
	Outcome Outcome       `json:"outcome,omitempty"`
	Debited int64         `json:"debited"` // the actual debit
}

// Failure is a job refused for insufficient balance (HADM's "failures").
// A refused job may be pre-debited again: each refusal against a balance
// different from the job's last refusal adds a record (Attempt 1, 2, ...),
// so the history of why a job waited is kept; a retry that passes keeps
// them too.
type Failure struct {
	Job        JobID        `json:"job_id"`
	Attempt    int64        `json:"attempt"`
	Allocation AllocationID `json:"allocation_id"`
	UID        uint32       `json:"uid"`
	Amount     int64        `json:"amount"`  // requested
	Balance    int64        `json:"balance"` // available when refused
	Time       time.Time    `json:"time"`
}

// Balance is an allocation's standing: Credits granted, Debited by
// completed jobs, Pending in executing pre-debits; Balance = Credits -
// Debited - Pending.
type Balance struct {
	Allocation AllocationID `json:"allocation_id"`
	Credits    int64        `json:"credits"`
	Debited    int64        `json:"debited"`
	Pending    int64        `json:"pending"`
	Balance    int64        `json:"balance"`
}

// Used is the credit consumed (debited and pending), the HADM paper's C_used.
func (b Balance) Used() int64 { return b.Debited + b.Pending }

// OwnerDebit is the SU debited to one allocation by one user (HADM's
// "debits" table: resolved pre-debits aggregated by owner uid).
type OwnerDebit struct {
	Allocation AllocationID `json:"allocation_id"`
	UID        uint32       `json:"uid"`
	Amount     int64        `json:"amount"`
	Jobs       int64        `json:"jobs"`
}
