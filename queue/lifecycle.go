package queue

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/hpcsched/hpcsched/selectnodes"
)

// pendingReason is why an eligible-looking job waits, before selection.
func (s *Scheduler) pendingReason(j *job, now time.Time) Reason {
	switch {
	case j.Held && s.opts.external:
		return ReasonExternal
	case j.Held:
		return ReasonHeld
	case !j.Begin.IsZero() && now.Before(j.Begin): // (no Begin: the zero time, before every now)
		return ReasonBeginTime
	}
	if j.deps.empty() { // most jobs: no call to evaluate
		return ReasonPriority
	}
	switch j.deps.evaluate(s, j, now) {
	case depWaiting:
		return ReasonDependency
	case depNever:
		return ReasonDependencyNeverSatisfied
	}
	return ReasonPriority
}

// end finishes a job: a running or suspended one releases its nodes (and
// the ReleasePlugins hear of it); every one leaves the queue, loses its
// reservation, takes its terminal state and emits one event.
func (s *Scheduler) end(j *job, st State, kind EventKind, now time.Time, detail string, out Outcome) {
	var p Payload
	if j.State == Running || j.State == Suspended {
		// the end's account only for whoever hears of it: a ReleasePlugin
		// or a subscriber (emit drops the event otherwise)
		heard := len(s.opts.release) > 0 || s.queuesEvents()
		var e JobEnd
		if heard {
			e = JobEnd{State: st, Outcome: out, Elapsed: j.elapsed(now), NodeFailure: st == NodeFail}
		}
		s.releaseNodes(j)
		j.State = st
		if heard {
			s.runRelease(s.context(), j, e, now)
		}
		if s.queuesEvents() {
			p = &EndPayload{End: e}
		}
	}
	s.dequeue(j)
	delete(s.resv, j.ID)
	j.State, j.Reason, j.End = st, ReasonNone, now
	s.ended(j)
	s.jobEventWith(kind, j, now, detail, p)
}

// releaseNodes gives a started job's nodes back to the cluster.
func (s *Scheduler) releaseNodes(j *job) {
	_ = s.c.Release(j.ID) // allocated by start; cannot be missing
	delete(s.active, j.ID)
	s.running.remove(j)
}

// elapsed is how long a started job has run by now, suspensions excluded.
func (j *job) elapsed(now time.Time) time.Duration {
	d := now.Sub(j.Start) - j.suspendedFor
	if j.State == Suspended {
		d -= now.Sub(j.suspendedAt)
	}
	return max(0, d)
}

// Cancel ends a pending, running or suspended job.
func (s *Scheduler) Cancel(id JobID, now time.Time) error {
	return s.CancelContext(context.Background(), id, now)
}

// CancelContext is Cancel with a context for the ReleasePlugins.
func (s *Scheduler) CancelContext(ctx context.Context, id JobID, now time.Time) error {
	s.lock(ctx)
	defer s.unlock()
	j, err := s.getIn(id, "cancel", live)
	if err != nil {
		return err
	}
	if err := j.since(now); err != nil {
		return err
	}
	s.saw(now)
	s.end(j, Cancelled, EventCancel, now, "", Outcome{})
	return nil
}

// Finish records how a running (or suspended) job ended. A node failure
// requeues a job submitted with Requeue. An Outcome.Kind that is none of
// the constants is ErrInvalidSpec: ReleasePlugins, which bill by it, never
// see one.
func (s *Scheduler) Finish(id JobID, out Outcome, now time.Time) error {
	return s.FinishContext(context.Background(), id, out, now)
}

// FinishContext is Finish with a context for the ReleasePlugins.
func (s *Scheduler) FinishContext(ctx context.Context, id JobID, out Outcome, now time.Time) error {
	s.lock(ctx)
	defer s.unlock()
	j, err := s.getIn(id, "finish", runningOrSuspended)
	if err != nil {
		return err
	}
	if err := j.since(now); err != nil {
		return err
	}
	if out.Kind > NodeFailure {
		return invalid("unknown outcome kind %d", out.Kind)
	}
	s.saw(now)
	j.ExitCode = out.ExitCode
	switch {
	case out.Kind == NodeFailure && j.Requeue:
		s.requeue(j, now, "node failure", true)
	case out.Kind == NodeFailure:
		s.end(j, NodeFail, EventFinish, now, "node failure", out)
	case out.Kind == Failure || out.ExitCode != 0:
		s.end(j, Failed, EventFinish, now, fmt.Sprintf("exit code %d", out.ExitCode), out)
	default:
		s.end(j, Complete, EventFinish, now, "exit code 0", out)
	}
	return nil
}

// Tick ends running jobs whose time limit has passed (TIMEOUT) and returns
// their IDs.
func (s *Scheduler) Tick(now time.Time) []JobID {
	return s.TickContext(context.Background(), now)
}

// TickContext is Tick with a context for the ReleasePlugins.
func (s *Scheduler) TickContext(ctx context.Context, now time.Time) []JobID {
	s.lock(ctx)
	defer s.unlock()
	now, ok := s.passTime(now)
	if !ok {
		return nil
	}
	// the jobs past their limit, in ID order (runlist.go). Ending one job
	// changes no other's state or limit, so the jobs due are known before
	// any ends.
	out := s.timedOutIDs(now)
	for _, id := range out {
		s.end(s.jobs[id], Timeout, EventFinish, now, "time limit", Outcome{})
	}
	return out
}

// timedOut reports whether running job j has reached its time limit by now.
func timedOut(j *job, now time.Time) bool {
	return j.State == Running && j.TimeLimit > 0 && !now.Before(j.End)
}

// runningIDs are the running and suspended jobs, ascending.
func (s *Scheduler) runningIDs() []JobID { return slices.Sorted(maps.Keys(s.active)) }

func (s *Scheduler) ids() []JobID { return slices.Sorted(maps.Keys(s.jobs)) }

// Requeue puts a running or suspended job back in the queue.
func (s *Scheduler) Requeue(id JobID, now time.Time) error {
	return s.RequeueContext(context.Background(), id, now)
}

// RequeueContext is Requeue with a context for the ReleasePlugins.
func (s *Scheduler) RequeueContext(ctx context.Context, id JobID, now time.Time) error {
	s.lock(ctx)
	defer s.unlock()
	j, err := s.getIn(id, "requeue", runningOrSuspended)
	if err != nil {
		return err
	}
	if err := j.since(now); err != nil {
		return err
	}
	s.saw(now)
	s.requeue(j, now, "", false)
	return nil
}

func (s *Scheduler) requeue(j *job, now time.Time, detail string, nodeFailure bool) {
	e := JobEnd{State: Pending, Elapsed: j.elapsed(now), NodeFailure: nodeFailure}
	if nodeFailure {
		e.Outcome = Outcome{Kind: NodeFailure}
	}
	s.releaseNodes(j)
	j.State, j.Start, j.End, j.suspendedFor = Pending, time.Time{}, time.Time{}, 0
	s.runRelease(s.context(), j, e, now)
	j.Restarts++
	s.enqueue(j)
	j.Reason = s.pendingReason(j, now)
	s.jobEventWith(EventRequeue, j, now, detail, &EndPayload{End: e})
}

// transition applies one simple state change to job id: ok says whether
// the job's state allows it (op names it in the error), apply makes it,
// and one event of kind reports it.
func (s *Scheduler) transition(id JobID, now time.Time, op string, kind EventKind, ok func(*job) bool, apply func(*job)) error {
	s.enter()
	defer s.unlock()
	j, err := s.get(id)
	if err != nil {
		return err
	}
	if !ok(j) {
		return stateErr(j, op)
	}
	if err := j.since(now); err != nil {
		return err
	}
	s.saw(now)
	apply(j)
	s.jobEvent(kind, j, now, "")
	return nil
}

// Suspend stops a running job; it keeps its nodes.
func (s *Scheduler) Suspend(id JobID, now time.Time) error {
	return s.transition(id, now, "suspend", EventSuspend,
		func(j *job) bool { return j.State == Running },
		func(j *job) { j.State, j.suspendedAt = Suspended, now })
}

// Resume restarts a suspended job; its expected end moves by the time it
// was suspended.
func (s *Scheduler) Resume(id JobID, now time.Time) error {
	return s.transition(id, now, "resume", EventResume,
		func(j *job) bool { return j.State == Suspended },
		func(j *job) {
			away := now.Sub(j.suspendedAt)
			j.suspendedFor = addDurations(j.suspendedFor, away)
			if j.TimeLimit > 0 {
				j.End = later(j.End, away)
				s.moveAllocationEnd(j)
			}
			j.State = Running
		})
}

// Hold keeps a pending job from starting.
func (s *Scheduler) Hold(id JobID, now time.Time) error {
	return s.transition(id, now, "hold", EventHold,
		func(j *job) bool { return j.State == Pending && !j.Held },
		func(j *job) {
			j.Held, j.Reason = true, ReasonHeld
			delete(s.resv, j.ID) // a held job needs no nodes kept for it
		})
}

// Release lets a held job start again.
func (s *Scheduler) Release(id JobID, now time.Time) error {
	return s.transition(id, now, "release", EventRelease,
		func(j *job) bool { return j.State == Pending && j.Held },
		func(j *job) {
			j.Held = false
			j.Reason, j.ReasonDetail = s.pendingReason(j, now), "" // the hold's why goes with it
		})
}

// checkCycle rejects a dependency of job id that leads back to it.
func (s *Scheduler) checkCycle(id JobID, d *Dependency) error {
	seen := map[JobID]bool{}
	stack := d.targets()
	for len(stack) > 0 {
		t := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if t == id {
			return invalid("dependency of job %d is circular", id)
		}
		if seen[t] {
			continue
		}
		seen[t] = true
		o, ok := s.jobs[t]
		if !ok {
			if _, forgotten := s.gone[t]; forgotten {
				continue // finished: it depends on nothing any more
			}
			if s.bare.has(t) {
				return forgottenBare(t)
			}
			return invalid("dependency on unknown job %d", t)
		}
		stack = append(stack, o.deps.targets()...)
	}
	return nil
}

// SetNodeState changes a node's state in the cluster. Jobs running on a
// node that goes down end with NODE_FAIL (or are requeued when they asked
// to be).
func (s *Scheduler) SetNodeState(name string, st selectnodes.NodeState, now time.Time) error {
	return s.SetNodeStateContext(context.Background(), name, st, now)
}

// SetNodeStateContext is SetNodeState with a context for the
// ReleasePlugins of the jobs a node going down ends.
func (s *Scheduler) SetNodeStateContext(ctx context.Context, name string, st selectnodes.NodeState, now time.Time) error {
	s.lock(ctx)
	defer s.unlock()
	if err := CheckTime(now); err != nil {
		return err
	}
	var ends []*job
	if st == selectnodes.NodeDown {
		for _, id := range s.runningIDs() {
			if j := s.jobs[id]; j.Placement != nil && containsName(j.Placement.Names, name) {
				if err := j.since(now); err != nil {
					return err
				}
				ends = append(ends, j)
			}
		}
	}
	if err := s.c.SetNodeState(name, st); err != nil {
		return err
	}
	s.configChanged()
	s.saw(now)
	kind := map[selectnodes.NodeState]EventKind{selectnodes.NodeUp: EventNodeResume,
		selectnodes.NodeDrain: EventNodeDrain, selectnodes.NodeDown: EventNodeDown}[st]
	payload := &NodePayload{State: st}
	s.emit(Event{Kind: kind, Time: now, Node: name, Payload: payload})
	for _, j := range ends {
		id := j.ID
		payload.Ended = append(payload.Ended, id)
		if j.Requeue {
			s.requeue(j, now, "node "+name+" down", true)
		} else {
			s.end(j, NodeFail, EventFinish, now, "node "+name+" down", Outcome{Kind: NodeFailure})
		}
	}
	return nil
}

func containsName(names []string, n string) bool { return slices.Contains(names, n) }

// UpdatePartition adds or changes a partition; pending jobs of it are
// re-ordered by its new priority. A change that takes a node away from a
// job of the partition running on it is an ErrJobState error (end or
// requeue the job first): a job's placement stays inside its partition.
func (s *Scheduler) UpdatePartition(p selectnodes.Partition, now time.Time) error {
	s.enter()
	defer s.unlock()
	if err := CheckTime(now); err != nil {
		return err
	}
	if err := s.keepsRunningNodes(p); err != nil {
		return err
	}
	ownPartition(&p) // the cluster keeps it: not the caller's slices
	if err := s.c.UpdatePartition(p); err != nil {
		return err
	}
	s.configChanged()
	s.saw(now)
	s.maxPartPrio, s.lastPart = -1, partMemo{}
	s.partGen++
	for _, id := range s.ids() {
		if j := s.jobs[id]; j.State == Pending && j.Partition == p.Name {
			s.enqueue(j)
		}
	}
	s.emit(Event{Kind: EventPartition, Time: now, Partition: p.Name})
	return nil
}

// moveAllocationEnd tells the cluster a started job's new expected end,
// so WillRun and Backfill plan with it.
func (s *Scheduler) moveAllocationEnd(j *job) {
	_ = s.c.SetAllocationEnd(j.ID, later(j.expectedEnd(j.Start), j.suspendedFor)) // allocated by start
}

// keepsRunningNodes refuses a new definition of a partition that leaves
// out a node one of its started jobs holds.
func (s *Scheduler) keepsRunningNodes(p selectnodes.Partition) error {
	if !s.c.HasPartition(p.Name) {
		return nil
	}
	keep := make(map[string]bool, len(p.Nodes))
	for _, n := range p.Nodes {
		keep[n] = true
	}
	for _, id := range s.runningIDs() {
		j := s.jobs[id]
		if j.Partition != p.Name || j.Placement == nil {
			continue
		}
		for _, n := range j.Placement.Names {
			if !keep[n] {
				return fmt.Errorf("%w: partition %s: node %s holds job %d of the partition", ErrJobState, p.Name, n, id)
			}
		}
	}
	return nil
}
