package queue

import (
	"fmt"
	"time"

	"github.com/hpcsched/hpcsched/selectnodes"
)

// JobID identifies a job; it is also the ID of its allocation in the
// cluster.
type JobID = selectnodes.JobID

// State is a job state (the Novotný thesis §3.1.3).
type State uint8

const (
	Pending   State = iota // queued and waiting
	Running                // allocated and executing
	Suspended              // allocated, but suspended
	Complete               // ended successfully
	Cancelled              // cancelled by user or administrator
	Failed                 // ended unsuccessfully, or can never run
	Timeout                // ended on reaching its time limit
	NodeFail               // ended by a node failure
)

var stateNames = [...]string{"PENDING", "RUNNING", "SUSPENDED", "COMPLETE", "CANCELLED", "FAILED", "TIMEOUT", "NODE_FAIL"}

func (s State) String() string {
	if int(s) < len(stateNames) {
		return stateNames[s]
	}
	return fmt.Sprintf("State(%d)", uint8(s))
}

// Terminal reports whether the job has ended for good.
func (s State) Terminal() bool { return s >= Complete }

// Reason says why a pending job is not running (Slurm's squeue reasons).
type Reason string

const (
	ReasonNone                     Reason = ""
	ReasonPriority                 Reason = "Priority"                 // a higher-priority job holds its partition
	ReasonResources                Reason = "Resources"                // waiting for resources
	ReasonDependency               Reason = "Dependency"               // dependencies not yet met
	ReasonDependencyNeverSatisfied Reason = "DependencyNeverSatisfied" // dependencies can never be met
	ReasonBeginTime                Reason = "BeginTime"                // begin time not reached
	ReasonHeld                     Reason = "Held"                     // held by user or administrator
	ReasonExternal                 Reason = "ExternalScheduler"        // waiting for Start (external mode)
	ReasonPartitionNodeLimit       Reason = "PartitionNodeLimit"       // node count outside the partition's limits
	ReasonPartitionTimeLimit       Reason = "PartitionTimeLimit"       // time limit above the partition's
	ReasonPartitionDown            Reason = "PartitionDown"            // partition not up
	ReasonNodesUnavailable         Reason = "ReqNodeNotAvail"          // needed nodes are down, drained or withheld
	ReasonNodeConfig               Reason = "BadConstraints"           // can never run on this configuration
	ReasonRefused                  Reason = "Refused"                  // a ReservePlugin refused the start; ReasonDetail says why
)

// Job is a copy of a job's record; the scheduler's own stays inside.
type Job struct {
	ID                  JobID
	Name, User, Account string
	Partition           string // resolved at submit (the default when none was given)
	// Priority is the current priority; AdminPriority, when not 0, was set
	// by Submit or Update and overrides the policy.
	Priority      int64
	AdminPriority int64
	Nice          int64
	Submit, Begin time.Time
	// Start and End: when the job started and ended, or is expected to end
	// (Start + TimeLimit) while it runs.
	Start, End time.Time
	// TimeLimit is 0 for none.
	TimeLimit time.Duration
	// TimeMin is the least time limit the job accepts (Slurm's
	// --time-min; 0 for none). It is recorded for plugins and tools; the
	// scheduler plans every job at its full TimeLimit.
	TimeMin    time.Duration
	Dependency string
	Requeue    bool // requeue on node failure
	Request    selectnodes.Request
	State      State
	Reason     Reason
	// ReasonDetail is what a plugin said when it refused, held or failed
	// the job ("" otherwise).
	ReasonDetail string
	Held         bool
	ExitCode     int
	Restarts     int
	Placement    *selectnodes.Placement // while running or suspended; the last one after
	// Explanation of why the job failed, when the pipeline failed it;
	// Scheduler.Explain explains a waiting job on demand.
	Explanation *selectnodes.Explanation
	seq         uint64
}

// Nodes is the job's nodes as a hostlist ("" when it has none).
func (j *Job) Nodes() string {
	if j.Placement == nil {
		return ""
	}
	return j.Placement.Hostlist()
}

// Spec is what a user submits.
type Spec struct {
	// ID, when not 0, is the job's ID, chosen by the caller (a grid, a
	// restore from elsewhere); Submit fails with ErrDuplicateID when it is
	// in use. 0 takes the next ID from the IDSource or the counter.
	ID                  JobID
	Name, User, Account string
	Request             selectnodes.Request
	// TimeLimit is the job's time limit; it may be given here or as
	// Request.TimeLimit, but two different ones are ErrInvalidSpec. None
	// (0) takes the partition's DefaultTime, or its MaxTime when it has no
	// DefaultTime (none when it has neither), as Slurm does.
	TimeLimit time.Duration
	// TimeMin is --time-min (0 for none); it may not exceed TimeLimit.
	TimeMin time.Duration
	// Begin defers eligibility until then.
	Begin time.Time
	// Dependency is an sbatch --dependency value.
	Dependency string
	Requeue    bool
	// Priority, when not 0, fixes the priority (an administrator's choice);
	// otherwise the Policy computes it. Nice lowers it.
	Priority int64
	Nice     int64
	// Hold submits the job held (priority 0 in Slurm terms).
	Hold bool
}

// OutcomeKind is how a running job ended, for Finish.
type OutcomeKind uint8

const (
	Completed   OutcomeKind = iota // exit code 0 expected
	Failure                        // non-zero exit
	NodeFailure                    // a node died under it
)

// Outcome is how a running job ended.
type Outcome struct {
	Kind     OutcomeKind
	ExitCode int
}
