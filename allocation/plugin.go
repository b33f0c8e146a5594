package allocation

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/hpcsched/hpcsched/queue"
	"github.com/hpcsched/hpcsched/selectnodes"
)

// QueuePlugin connects a Ledger to a queue.Scheduler as the HADM paper's Slurm
// plugins connect HADM to slurmctld: Admit is the job-submit filter,
// Reserve the prolog's pre-debit, Unreserve returns a pre-debit whose
// start did not happen, and Release the epilog's completion. Register it
// with queue.WithPlugins; use Ledger.SiteFactors for the priority.
//
// Reserve and Release run under the scheduler's lock, so with a remote
// store (pgstore) each start and end waits for one database round trip.
//
// Ledger is required. The zero value (no Ledger) refuses every job at
// Admit and Reserve with a status naming the missing field; Release
// reports the same to OnError, and panics with that message when OnError
// is nil too.
type QueuePlugin struct {
	Ledger *Ledger
	// Workgroup is the Unix group a user submits under. The account
	// defaults to it and must match it. When nil, or when it does not
	// know the user, the account must be given.
	Workgroup func(user string) (string, bool)
	// UID is the user's uid, for the per-owner debits (0 when nil or
	// unknown).
	UID func(user string) (uint32, bool)
	// OnShort is what a job gets when its allocation cannot cover it or
	// it has none: queue.Hold (the default, zero value Success is taken
	// as Hold) or queue.Fail; the reason says why.
	OnShort queue.Code
	// OnError, when set, is told of a completion the ledger could not
	// record (Release cannot return an error).
	OnError func(job queue.JobID, err error)
	// Retry, when set, keeps the job ends the ledger could not record
	// for a reason that may pass (not ErrInvalid, ErrConflict or
	// ErrNotFound) so they are retried (ReleaseQueue.Retry), after a
	// restart too.
	Retry *ReleaseQueue
}

// errNoLedger is the zero QueuePlugin's refusal.
var errNoLedger = errors.New("allocation.QueuePlugin: the Ledger field is nil (the zero value bills nothing; set Ledger)")

var (
	_ queue.AdmitPlugin   = (*QueuePlugin)(nil)
	_ queue.ReservePlugin = (*QueuePlugin)(nil)
	_ queue.ReleasePlugin = (*QueuePlugin)(nil)
)

// Name is the plugin's name in the scheduler's reasons: "allocation".
func (*QueuePlugin) Name() string { return "allocation" }

// Admit is the submit filter of the HADM paper: a finite time limit (the
// pre-debit is cores x limit), exactly one partition with a billing rule,
// the account defaulted to the workgroup and matching it, and --time-min
// defaulted to the time limit (the HADM paper's filter does the same).
func (p *QueuePlugin) Admit(_ context.Context, spec *queue.Spec, _ time.Time) *queue.Status {
	if p.Ledger == nil {
		return queue.NewStatus(queue.Refuse, errNoLedger.Error())
	}
	if spec == nil {
		return queue.NewStatus(queue.Refuse, "allocation.QueuePlugin.Admit: spec is nil")
	}
	if spec.TimeLimit <= 0 {
		return queue.NewStatus(queue.Refuse, "a time limit is required: allocations are pre-debited cores x time limit")
	}
	if spec.TimeMin == 0 {
		spec.TimeMin = spec.TimeLimit
	}
	part := spec.Request.Partition
	switch {
	case part == "":
		// the scheduler applies its default partition after the submit
		// filters, as Slurm does: the filter cannot bill by it
		return queue.NewStatus(queue.Refuse, "exactly one partition is required, got none (the default partition is not assumed: name it)")
	case strings.Contains(part, ","):
		return queue.NewStatus(queue.Refuse, fmt.Sprintf("exactly one partition is required, got %q", part))
	}
	if _, err := p.Ledger.Partition(part); err != nil {
		return queue.NewStatus(queue.Refuse, fmt.Sprintf("partition %q bills no allocation resource", part))
	}
	group, known := "", false
	if p.Workgroup != nil {
		group, known = p.Workgroup(spec.User)
	}
	switch {
	case spec.Account == "" && !known:
		return queue.NewStatus(queue.Refuse, fmt.Sprintf("an account is required: user %q has no known workgroup", spec.User))
	case spec.Account == "":
		spec.Account = group
	case known && spec.Account != group:
		return queue.NewStatus(queue.Refuse, fmt.Sprintf("account %q is not the workgroup %q the job is submitted from", spec.Account, group))
	}
	return nil
}

// PlacementUsage is what a placement allocates: CPUs, memory and GPUs (GRES
// named "gpu") over its nodes.
func PlacementUsage(pl *selectnodes.Placement) Usage {
	var u Usage
	for _, a := range pl.Alloc {
		u.CPUs += int64(a.CPUs)
		u.MemoryMB += a.Memory
		for _, g := range a.GRES {
			if g.Name == "gpu" {
				u.GPUs += g.Count
			}
		}
	}
	if u.CPUs == 0 {
		u.CPUs = int64(pl.TotalCPUs)
	}
	return u
}

// Reserve pre-debits the job's maximum SU on the placement it is about to
// start on; a short or missing allocation holds or fails it with the
// reason.
func (p *QueuePlugin) Reserve(ctx context.Context, job *queue.Job, pl *selectnodes.Placement, now time.Time) *queue.Status {
	switch {
	case p.Ledger == nil:
		return queue.NewStatus(queue.Error, errNoLedger.Error())
	case job == nil || pl == nil:
		return queue.NewStatus(queue.Error, "allocation.QueuePlugin.Reserve: job or placement is nil")
	}
	uid := uint32(0)
	if p.UID != nil {
		uid, _ = p.UID(job.User)
	}
	_, err := p.Ledger.PreDebitJob(ctx, JobStart{Job: JobID(job.ID), UID: uid, Account: job.Account, Partition: job.Partition,
		Usage: PlacementUsage(pl), TimeLimit: job.TimeLimit}, now)
	reason := strings.TrimPrefix(fmt.Sprint(err), "allocation: ") // the scheduler prefixes the plugin's name
	onShort := p.OnShort
	if onShort != queue.Fail {
		onShort = queue.Hold
	}
	switch {
	case err == nil:
		return nil
	case errors.Is(err, ErrInsufficient), errors.Is(err, ErrNoAllocation):
		return queue.NewStatus(onShort, reason)
	case errors.Is(err, ErrInvalid), errors.Is(err, ErrOverflow), errors.Is(err, ErrConflict):
		return queue.NewStatus(queue.Fail, reason)
	}
	return queue.NewStatus(queue.Error, reason)
}

// Unreserve returns the pre-debit of a start that did not happen.
func (p *QueuePlugin) Unreserve(ctx context.Context, job *queue.Job, _ *selectnodes.Placement, now time.Time) {
	if err := p.Ledger.Forget(ctx, JobID(job.ID), now); err != nil && p.OnError != nil {
		p.OnError(job.ID, err)
	}
}

// Release completes the pre-debit from the elapsed time (a node failure
// bills nothing); a requeued job's record is then dropped so its next run
// is pre-debited afresh.
func (p *QueuePlugin) Release(ctx context.Context, job *queue.Job, end queue.JobEnd, now time.Time) {
	if p.Ledger == nil {
		if p.OnError == nil {
			panic(errNoLedger.Error())
		}
		p.OnError(job.ID, errNoLedger)
		return
	}
	outcome := OutcomeCompleted
	switch {
	case end.NodeFailure || end.State == queue.NodeFail:
		outcome = OutcomeNodeFail
	case end.State == queue.Failed:
		outcome = OutcomeFailed
	case end.State == queue.Cancelled:
		outcome = OutcomeCancelled
	case end.State == queue.Timeout:
		outcome = OutcomeTimeout
	}
	c := Completion{Job: JobID(job.ID), Elapsed: end.Elapsed, Outcome: outcome}
	forget := end.State == queue.Pending
	_, err := p.Ledger.Complete(ctx, c, now)
	if err == nil && forget {
		err = p.Ledger.Forget(ctx, JobID(job.ID), now)
	}
	if err != nil && p.Retry != nil && !errors.Is(err, ErrInvalid) && !errors.Is(err, ErrConflict) && !errors.Is(err, ErrNotFound) {
		if qerr := p.Retry.Add(PendingRelease{Completion: c, Forget: forget, Now: now, LastError: err.Error()}); qerr != nil {
			err = fmt.Errorf("%w (and queueing its retry failed: %v)", err, qerr)
		}
	}
	if err != nil && p.OnError != nil {
		p.OnError(job.ID, err)
	}
}
