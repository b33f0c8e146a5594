package queue

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/bits-and-blooms/bitset"
	"github.com/hpcsched/hpcsched/selectnodes"
)

// Planner decides a whole window of pending jobs at once, as an auction
// does, instead of Schedule's one-job-at-a-time loop.
//
// The contract: a Planner owns the jobs of its window that it does not
// decline; every other eligible job is the scheduler's. Each pass,
// Schedule
//
//  1. builds the window: eligible jobs in queue order, up to its size,
//     leaving out (and not counting) the jobs a Decliner declines and
//     those an earlier pass left pending for their partition's limits
//     (PartitionNodeLimit, PartitionTimeLimit, PartitionDown), which step
//     3 checks again;
//  2. applies the planner's decisions in the order given; a decision the
//     pipeline refuses starts nothing and is reported as an EventRefused
//     (payload: the error);
//  3. hands every declined job (up front, or by a Decision with Decline)
//     to its own selection, in queue order, with Schedule's rules (a busy
//     job locks its partition, a job that can never run fails), on what
//     the planner's starts left.
//
// A job of the window that the planner neither starts nor declines waits
// with reason Resources until a later pass. So no job waits on a planner
// that cannot express it: the planner declines it and Schedule places it
// in the same pass. An error from Plan starts nothing this pass (an
// EventPlanFailed reports it), not even the declined jobs, so the pass is
// all or nothing.
type Planner interface {
	// Plan returns which jobs of window (eligible, in queue order) to
	// start now and where, and which it declines. snap is a copy of the
	// cluster's load at the start of the pass: the planner may try
	// placements on it (or on clones of it) freely; it never sees the
	// live cluster. window is the planner's own copy.
	Plan(ctx context.Context, snap *selectnodes.Snapshot, window []Job, now time.Time) ([]Decision, error)
}

// Decliner is implemented by a Planner that can tell from a job alone
// that it will not decide it (a request of a shape it cannot express):
// such a job takes no place in the window and goes to Schedule's own
// selection in the same pass. j is the Decliner's own copy.
type Decliner interface {
	Declines(j Job) bool
}

// Decision starts Job, or declines it. With Layout, on exactly those
// per-node CPUs, memory and GRES (an auction bid's layout), which the
// pipeline validates with selectnodes PlaceExact and honours exactly;
// with Nodes, on exactly those nodes, the pipeline choosing each node's
// share; with neither, where the pipeline chooses. Both Nodes and Layout
// is an error (an EventRefused), never half used. With Decline, the
// planner gives the job back: Schedule's own selection places it after
// the planner's starts (Nodes and Layout must then be empty). A decision
// the pipeline refuses (the job is no longer pending, the layout does not
// suit the request, or the load changed) starts nothing and is reported
// as an EventRefused whose payload carries the error (a
// *selectnodes.Error naming the node and the resource).
type Decision struct {
	Job     JobID
	Nodes   []string
	Layout  []selectnodes.NodeUse
	Decline bool
}

// ErrDecision is the error (in an EventRefused) of a Decision that says
// two things at once: Nodes and Layout, or Decline with either.
var ErrDecision = errors.New("queue: a decision gives nodes and a layout, or declines and places")

// plan builds the window, hands it to the Planner, applies its decisions
// in the order given and then places the jobs it declined.
func (s *Scheduler) plan(ctx context.Context, now time.Time) []Started {
	decliner, _ := s.opts.planner.(Decliner)
	var window []Job
	var declined []*job
	inWindow := map[JobID]*job{}
	for _, j := range s.ordered() {
		if len(window) == s.opts.plannerWindow && decliner == nil {
			break
		}
		if !s.eligible(j, now) {
			continue
		}
		switch {
		case decliner != nil && decliner.Declines(j.public()):
			declined = append(declined, j)
		case heldByReason(j):
			declined = append(declined, j) // selectEach checks its limits again
		case len(window) < s.opts.plannerWindow:
			window = append(window, j.public())
			inWindow[j.ID] = j
		}
	}
	if len(window) == 0 && len(declined) == 0 {
		return nil
	}
	var decisions []Decision
	if len(window) > 0 {
		var err error
		decisions, err = s.opts.planner.Plan(ctx, s.c.Snapshot(), window, now)
		if err != nil {
			s.emit(Event{Kind: EventPlanFailed, Time: now, Detail: err.Error(), Payload: &PlanFailedPayload{Err: err}})
			return nil
		}
	}
	var out []Started
	for _, d := range decisions {
		if d.Decline && len(d.Nodes) == 0 && len(d.Layout) == 0 {
			if j, ok := inWindow[d.Job]; ok && j.State == Pending {
				declined = append(declined, j)
				delete(inWindow, d.Job)
			}
			continue
		}
		if st, err := s.decide(d, now); err == nil {
			out = append(out, st)
		}
	}
	for _, j := range inWindow {
		if j.State == Pending {
			j.Reason = ReasonResources // the planner's: it did not start it this pass
		}
	}
	slices.SortStableFunc(declined, func(a, b *job) int { // queue order
		switch {
		case lessKey(a.key, b.key):
			return -1
		case lessKey(b.key, a.key):
			return 1
		}
		return 0
	})
	pending := func(j *job) bool { return j.State == Pending }
	return append(out, s.selectEach(declined, pending, now)...)
}

// heldByReason reports whether the last pass left j pending for a reason
// only a change of its request or of the configuration lifts (its
// partition's node or time limits, a partition that is down): such a job
// takes no window place, or jobs that could run would wait behind a window
// full of jobs that cannot; Schedule's selection looks at it instead,
// every pass, and starts it once its limits allow.
func heldByReason(j *job) bool {
	switch j.Reason {
	case ReasonPartitionNodeLimit, ReasonPartitionTimeLimit, ReasonPartitionDown:
		return true
	}
	return false
}

// selectEach is Schedule's loop on jobs (in queue order): each gets a
// RunNow selection; a busy job locks its partition and withholds the
// partition's nodes from the jobs after it; a job that can never run on
// this configuration fails.
func (s *Scheduler) selectEach(jobs []*job, ready func(*job) bool, now time.Time) []Started {
	var ps passState
	for _, j := range jobs {
		s.selectOne(&ps, j, ready, now)
	}
	return ps.out
}

// passState is what a pass of selectOne carries from job to job.
type passState struct {
	out []Started
	// the partitions locked so far: a few names (one on most clusters),
	// looked up by every job after them, compared rather than hashed
	locked     []string
	withheld   *bitset.BitSet
	toWithhold []string // locked partitions whose nodes are not in withheld yet
	failed     classFailures
}

// selectOne is selectEach's step on job j.
func (s *Scheduler) selectOne(ps *passState, j *job, ready func(*job) bool, now time.Time) {
	if !ready(j) {
		return
	}
	if slices.Contains(ps.locked, j.Partition) {
		j.Reason = ReasonPriority
		return
	}
	if err, seen := ps.failed.lookup(j, len(ps.locked)); seen {
		s.setFailure(j, err, now) // its class already failed this pass, for a reason load cannot change
		return
	}
	if len(ps.toWithhold) > 0 {
		ps.withheld = s.withhold(ps.withheld, ps.toWithhold)
		ps.toWithhold = ps.toWithhold[:0]
	}
	var p *selectnodes.Placement
	err := s.lastBusy.answer(s, ps, j)
	if err == nil {
		// the request is copied into storage kept for it: a local copy
		// passed by pointer would go to the heap at every selection
		req := &s.selReq
		*req = j.Request
		req.ExcludeNodes = ps.withheld
		p, err = s.c.Try(req, selectnodes.RunNow) // Explain(id) gives the why on demand
		*req = selectnodes.Request{}              // hold none of the job's slices
		s.lastBusy.note(s, ps, j, err)
	}
	if err == nil {
		if st, err := s.start(j, p, now); err == nil {
			ps.out = append(ps.out, st)
		}
		return
	}
	if isSelectClass(err, selectnodes.ErrBusy) {
		ps.locked = append(ps.locked, j.Partition) // (not locked before: it was looked up above)
		ps.toWithhold = append(ps.toWithhold, j.Partition)
	} else {
		if ps.failed == nil {
			ps.failed = classFailures{} // made by the first failure of a pass
		}
		ps.failed.add(j, len(ps.locked), err)
	}
	s.setFailure(j, err, now)
}

// withhold adds the nodes of partitions to withheld (nil: none yet). It
// runs only before a selection that reads them: on a cluster of one
// partition no job is selected after a busy one, so no bitmap is built.
func (s *Scheduler) withhold(withheld *bitset.BitSet, partitions []string) *bitset.BitSet {
	for _, name := range partitions {
		if nodes, ok := s.c.PartitionNodes(name); ok {
			if withheld == nil {
				withheld = nodes
			} else {
				withheld.InPlaceUnion(nodes)
			}
		}
	}
	return withheld
}

// decide applies one decision, reporting a refusal as an event (a
// ReservePlugin's refusal is reported by start itself).
func (s *Scheduler) decide(d Decision, now time.Time) (Started, error) {
	j, ok := s.jobs[d.Job]
	var err error
	switch {
	case !ok:
		err = fmt.Errorf("%w %d", ErrUnknownJob, d.Job)
	case j.State != Pending:
		err = stateErr(j, "start")
	case len(d.Nodes) > 0 && len(d.Layout) > 0, d.Decline:
		err = fmt.Errorf("%w: job %d", ErrDecision, d.Job)
	}
	if err != nil {
		if ok { // the job's own state and partition, not a pending job's
			s.jobEventWith(EventRefused, j, now, err.Error(), &RefusedPayload{Err: err})
		} else {
			s.emit(Event{Kind: EventRefused, Time: now, Job: d.Job, Detail: err.Error(), Payload: &RefusedPayload{Err: err}})
		}
		return Started{}, err
	}
	var st Started
	if len(d.Layout) > 0 {
		st, err = s.startExact(j, d.Layout, now)
	} else {
		st, err = s.startOn(j, d.Nodes, now)
	}
	var refused *StatusError
	if err != nil && !errors.As(err, &refused) {
		s.jobEventWith(EventRefused, j, now, err.Error(), &RefusedPayload{Err: err})
	}
	return st, err
}

// startExact starts j on exactly layout, validated by the pipeline.
func (s *Scheduler) startExact(j *job, layout []selectnodes.NodeUse, now time.Time) (Started, error) {
	p, err := s.c.PlaceExact(&j.Request, layout)
	if err != nil {
		return Started{}, err
	}
	return s.start(j, p, now)
}
