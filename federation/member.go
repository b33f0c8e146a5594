package federation

import (
	"context"
	"slices"
	"time"

	"github.com/hpcsched/hpcsched/queue"
)

// Member is one cluster of the grid, as the grid sees it: the calls an
// RPC client to a remote controller would implement. Every call takes a
// context (the grid sets a deadline) and may fail; a member that does not
// answer in time, or whose transport fails, is treated as down.
//
// An error is the member's answer — the call was refused and changed
// nothing — unless it matches ErrMemberDown or is its context's error:
// then the outcome is unknown, and the grid settles it when the member
// answers again. A client whose request may have taken effect (a
// connection lost after the request was sent, an answer that never came)
// must return an error wrapping ErrMemberDown: a plain transport error
// from Submit makes the grid submit the job to the next candidate too (it
// could run twice), and one from Cancel during a move makes it drop the
// copy it made (the job could be cancelled everywhere).
//
// The grid never asks a member to start a job: each member keeps its own
// scheduling (priorities stay cluster-specific, the grid-scheduling slides), and the grid
// only submits, holds, releases and cancels.
//
// What the grid passes a member (the specs of Submit and Estimate, the IDs
// of Jobs) is lent for the call: the member copies what it keeps and
// changes none of it, as Local does (its scheduler copies every spec).
type Member interface {
	// Name is the member's name in the grid (unique).
	Name() string
	// Info says what the member offers: its partitions and the accounts
	// it allows.
	Info(ctx context.Context) (Info, error)
	// Estimate forecasts starts: for each spec in q.Specs as if it were
	// submitted now, and for each job in q.Pending (pending there) where
	// it stands. It changes nothing.
	Estimate(ctx context.Context, q EstimateQuery, now time.Time) (EstimateReply, error)
	// Submit queues spec under the grid's ID spec.ID.
	Submit(ctx context.Context, spec queue.Spec, now time.Time) error
	// Hold and Release hold and release a pending job; Hold fails with
	// queue.ErrJobState when the job is not pending or already held (so a
	// hold that succeeds proves the job did not start).
	Hold(ctx context.Context, id queue.JobID, now time.Time) error
	Release(ctx context.Context, id queue.JobID, now time.Time) error
	// Cancel ends a job, pending or running.
	Cancel(ctx context.Context, id queue.JobID, now time.Time) error
	// Jobs reports the jobs with the given IDs, in order, each JobInfo
	// with the ID asked (the grid ignores a reply that is not); an ID the
	// member does not know has Found false.
	Jobs(ctx context.Context, ids []queue.JobID) ([]JobInfo, error)
}

// Watcher is what a member implements when it can push its events (an
// in-process member subscribes to its scheduler; an RPC client would
// stream them). The grid uses them to re-evaluate on events.
type Watcher interface {
	Watch(f func(queue.Event)) (stop func())
}

// Info is what a member offers.
type Info struct {
	// Partitions are the member's partition names.
	Partitions []string
	// Accounts, when not nil, are the only accounts the member accepts
	// (Slurm's AccountingStorageEnforce=associations); nil accepts any.
	Accounts []string
}

// clone is i with slices of its own (nil stays nil: it accepts any
// account).
func (i Info) clone() Info {
	return Info{Partitions: slices.Clone(i.Partitions), Accounts: slices.Clone(i.Accounts)}
}

// EstimateQuery asks a member for start forecasts.
type EstimateQuery struct {
	// Specs are requests not submitted there (one per distinct request:
	// the grid asks once for jobs that ask the same).
	Specs []queue.Spec
	// Pending are jobs pending on the member.
	Pending []queue.JobID
}

// EstimateReply answers an EstimateQuery, index for index.
type EstimateReply struct {
	Specs   []Estimate
	Pending []Estimate
	// Backlog is the work pending on the member in CPU-seconds (CPUs
	// asked times time limit, held jobs left out), and Capacity its CPUs:
	// a job submitted now waits at least Backlog/Capacity, which the
	// grid adds to as it places jobs there.
	Backlog  float64
	Capacity int
}

// Estimate is one forecast. Err, when not nil, says the job cannot run
// there at all (a queue.ErrInvalidSpec or queue.ErrRefused the member
// gave): the member is not a candidate for it. Unavailable says it could
// run there but no start can be forecast now (its nodes are down, say):
// later than any forecast start.
type Estimate struct {
	Start       time.Time
	Unavailable bool
	Err         error
}

// JobInfo is a member's view of one job.
type JobInfo struct {
	ID         queue.JobID
	Found      bool
	State      queue.State
	Held       bool
	Reason     queue.Reason
	Start, End time.Time
	ExitCode   int
	Nodes      string
}

// answered reports whether infos answers ids: one JobInfo per ID, in
// order, each naming its ID. A reply in another order (an RPC server
// answering from a map) would give one job another's state, and end a
// running job at the grid; it is ignored, as a reply of the wrong length
// is.
func answered(ids []queue.JobID, infos []JobInfo) bool {
	if len(infos) != len(ids) {
		return false
	}
	for i, in := range infos {
		if in.ID != ids[i] {
			return false
		}
	}
	return true
}
