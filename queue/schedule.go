package queue

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/hpcsched/hpcsched/selectnodes"
)

// unlimited stands for "no time limit" when a job's end must be planned.
const unlimited = 100 * 365 * 24 * time.Hour

func (j *job) expectedEnd(start time.Time) time.Time {
	if j.TimeLimit <= 0 {
		return later(start, unlimited)
	}
	return later(start, j.TimeLimit)
}

// eligible reports whether a pending job may be considered now, updating
// its reason when not (and cancelling it when its dependencies can never
// be met and the scheduler was told to).
func (s *Scheduler) eligible(j *job, now time.Time) bool {
	if !j.Held && j.Begin == (time.Time{}) && j.deps.empty() {
		// pendingReason's ReasonPriority, in line: most jobs, at every
		// pass (a Begin that is the zero instant in a zone other than
		// UTC goes the slow way, to the same answer)
		return true
	}
	return s.eligibleSlow(j, now)
}

// eligibleSlow is eligible for a job held, with a Begin or with a
// dependency.
func (s *Scheduler) eligibleSlow(j *job, now time.Time) bool {
	r := s.pendingReason(j, now)
	if r == ReasonDependencyNeverSatisfied && s.opts.cancelNever {
		s.end(j, Cancelled, EventCancel, now, "dependency can never be satisfied", Outcome{})
		return false
	}
	if r != ReasonPriority {
		j.Reason = r
		return false
	}
	return true
}

// recalc recomputes a dynamic policy's priorities once per pass (or at
// most once per WithRecalcInterval), moving only jobs whose priority
// changed.
func (s *Scheduler) recalc(now time.Time) {
	if !s.opts.policy.Dynamic() || (!s.lastRecalc.IsZero() && now.Sub(s.lastRecalc) < s.opts.recalc) {
		return
	}
	s.lastRecalc = now
	var changed []*job
	s.queue.Ascend(func(j *job) bool {
		if j.AdminPriority == 0 {
			changed = append(changed, j)
		}
		return true
	})
	for _, j := range changed {
		old := j.Priority
		if s.computePriority(j, now) {
			s.enqueue(j)
			s.jobEventWith(EventPriority, j, now, fmt.Sprintf("%d -> %d", old, j.Priority), &PriorityPayload{Old: old, New: j.Priority})
		}
	}
}

// Schedule is Slurm's schedule (the Novotný thesis §3.2.1): eligible pending jobs in
// order of partition priority, job priority and submit order; each gets a
// RunNow selection. A busy job locks its partition and withholds the
// partition's nodes from the jobs after it; a job that can never run on
// this configuration fails. It returns the jobs started, in the order they
// started, in a new slice that is the caller's.
func (s *Scheduler) Schedule(now time.Time) []Started {
	return s.ScheduleContext(context.Background(), now)
}

// ScheduleContext is Schedule with a context for the Planner and plugins.
// A start a ReservePlugin refuses leaves the job as the plugin says and
// does not lock its partition.
func (s *Scheduler) ScheduleContext(ctx context.Context, now time.Time) []Started {
	s.lock(ctx)
	defer s.unlock()
	return s.schedule(ctx, now)
}

// schedule is one pass of Schedule, under the lock.
func (s *Scheduler) schedule(ctx context.Context, now time.Time) []Started {
	now, ok := s.passTime(now)
	if !ok {
		return nil
	}
	s.recalc(now)
	if s.opts.planner != nil {
		return s.plan(ctx, now)
	}
	if s.copyWalk {
		return s.selectEach(s.ordered(), func(j *job) bool { return s.eligible(j, now) }, now)
	}
	return s.scheduleQueue(now)
}

// scheduleQueue is selectEach on the queue in order, walking the queue
// itself rather than a copy. A pass without a backfill visits every
// pending job, and behind a busy job nearly all of them only take
// ReasonPriority: a job without a hold, a Begin or a dependency in a
// locked partition is settled in the walk (eligible would say yes, and
// selectOne would give it that reason). Any other job stops the walk, is
// handled by selectOne (which may start, fail or cancel it, changing the
// queue) and the walk resumes after its key. Keys are unique and none
// changes during a pass, so the jobs visited are the queue's at the start
// of the pass, in order, as with a copy.
func (s *Scheduler) scheduleQueue(now time.Time) []Started {
	eligible := func(j *job) bool { return s.eligible(j, now) } // checked as the pass reaches it: starts may satisfy dependencies
	var ps passState
	if s.pivot == nil {
		s.pivot = new(job)
	}
	after := s.pivot // holds the key of the job handled last (resumed after)
	resumed := false
	for {
		var next *job
		visit := func(j *job) bool {
			if resumed && !lessKey(after.key, j.key) {
				return true // the job handled last, still queued
			}
			if len(ps.locked) > 0 && !j.Held && j.Begin.IsZero() && j.deps.empty() && slices.Contains(ps.locked, j.Partition) {
				j.Reason = ReasonPriority
				return true
			}
			next = j
			return false
		}
		if resumed {
			s.queue.AscendGreaterOrEqual(after, visit)
		} else {
			s.queue.Ascend(visit)
		}
		if next == nil {
			return ps.out
		}
		after.key, resumed = next.key, true
		s.selectOne(&ps, next, eligible, now)
	}
}

// ordered is the pending queue as a slice, so jobs may leave it while it
// is walked.
func (s *Scheduler) ordered() []*job {
	out := make([]*job, 0, s.queue.Len())
	s.queue.Ascend(func(j *job) bool {
		out = append(out, j)
		return true
	})
	return out
}

// setFailure records why a selection failed: a configuration the job can
// never run on fails it, anything else leaves it pending with a reason.
func (s *Scheduler) setFailure(j *job, err error, now time.Time) {
	if e := asSelectError(err); e != nil {
		j.Explanation = e.Explanation
	}
	switch {
	case neverRuns(err):
		j.Reason = ReasonNodeConfig
		s.end(j, Failed, EventFinish, now, err.Error(), Outcome{})
	case isSelectClass(err, selectnodes.ErrBusy):
		j.Reason = ReasonResources
	case isSelectClass(err, selectnodes.ErrHeld):
		j.Reason = ReasonHeld
	default:
		j.Reason = s.partitionReason(j)
	}
}

// partitionReason names which partition limit holds a job back.
func (s *Scheduler) partitionReason(j *job) Reason {
	p, _ := s.c.PartitionLimits(j.Partition)
	req := j.Request
	switch {
	case p.State != selectnodes.PartitionUp:
		return ReasonPartitionDown
	case p.MaxTime > 0 && j.TimeLimit > p.MaxTime:
		return ReasonPartitionTimeLimit
	case p.MaxNodes > 0 && max(req.MinNodes, 1) > p.MaxNodes, req.MaxNodes > 0 && req.MaxNodes < p.MinNodes:
		return ReasonPartitionNodeLimit
	}
	return ReasonNodesUnavailable
}
