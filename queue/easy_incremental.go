package queue

import (
	"time"

	"github.com/hpcsched/hpcsched/selectnodes"
)

// An incremental EASY pass. A pass walks the queue in order; when nothing
// but Submit was called since the last pass, nothing the walk read has
// changed (the cluster, the running jobs, the queue before its new jobs,
// the head's plan). Every job that pass walked and did not start was
// refused by the free counts (else the pass is marked unsure), which only
// fall as a pass starts jobs, or by the head's shadow time, which a later
// end only passes more: a whole pass now would decide each as before and
// reach the same head with the same counts, so the walk can go on from
// where it stopped with the new jobs alone. The partitions it locked (and
// the refusals that locked them, like the others) stay in e.locks until
// the next walk, which goes on with them.

// easyMark is where a pass left off: what it saw of the scheduler, and
// its walk's state at the end.
type easyMark struct {
	valid bool
	// the scheduler's counters after the pass
	changes, submits uint64
	queued           int  // the queue's length after the pass
	tail             qkey // the last queued job's key, when queued > 0
	walk             easyWalk
}

// remember keeps where pass w left off, unless a later time could decide
// a job it walked otherwise.
func (e *EASY) remember(w *easyWalk) {
	s, m := e.s, &e.mark
	m.valid = false // the rest is read only when valid: left as it is
	if w.unsure || s.opts.policy.Dynamic() || w.full && w.countedStarts > 0 {
		// (a walk cut by BackfillDepth that made backfills: a pass now
		// would count fewer jobs before the cut and walk past it. Its
		// in-order starts count against no depth: without them a pass
		// now counts the same jobs, refused by the same counts, and
		// meets the cut at the same job, with the same locks after it)
		return
	}
	// a pass now would count only the jobs this one walked and left
	// (field by field: a literal of the whole mark was built aside and
	// copied, at every pass)
	m.valid, m.changes, m.submits, m.queued = true, s.changes, s.submits, s.queue.Len()
	m.walk = easyWalk{head: w.head, freeCPUs: w.freeCPUs, freeNodes: w.freeNodes, outCPUs: w.outCPUs,
		outNodes: w.outNodes, considered: w.considered - w.countedStarts, full: w.full}
	m.tail = qkey{}
	if last, ok := s.queue.Max(); ok {
		m.tail = last.key
	}
}

// BackfillSubmittedIDs is BackfillIDs (it appends the started jobs' IDs to
// dst and returns it), made cheaper for a caller that passes after every
// submission: when the only calls to the scheduler since this EASY's
// last pass were Submit, and every job they queued comes after the jobs
// that pass saw in queue order, it considers only the new jobs, from
// where the last pass stopped. Otherwise (any other call in between, a
// job submitted ahead of older ones, a time-dependent priority policy, or
// a last pass that met a job a later time could decide otherwise: not
// eligible, with a dependency, or without a possible start) it makes a
// whole pass. Either way it starts exactly the jobs, on exactly the nodes,
// that BackfillIDs would: it is safe to call always.
//
// The cluster is the scheduler's: a change made to it directly, not
// through the Scheduler, is not seen by this shortcut.
func (e *EASY) BackfillSubmittedIDs(now time.Time, dst []JobID) []JobID {
	return e.passIDs(now, dst, true)
}

// resume walks the jobs submitted since the last pass, under the lock,
// and reports true; or reports false, having changed nothing, when a
// whole pass is needed.
func (e *EASY) resume(now time.Time, ids *[]JobID) bool {
	s, m := e.s, &e.mark
	// this call is counted too
	if !m.valid || s.changes-1-m.changes != s.submits-m.submits || s.opts.policy.Dynamic() || CheckTime(now) != nil {
		return false
	}
	now = maxTime(now, s.clock)
	if m.walk.head != nil && !m.walk.head.shadow.After(now) {
		return false // a whole pass remakes a plan whose shadow time has come
	}
	// the new jobs, which must be every job queued since
	e.order = e.order[:0]
	collect := func(j *job) bool {
		e.order = append(e.order, j)
		return true
	}
	if m.queued > 0 {
		if e.pivot == nil {
			e.pivot = new(job) // a key to search by, made once
		}
		e.pivot.key = m.tail
		s.queue.AscendGreaterOrEqual(e.pivot, func(j *job) bool {
			return j.key == m.tail || collect(j)
		})
	} else {
		s.queue.Ascend(collect)
	}
	if s.queue.Len()-m.queued != len(e.order) {
		clear(e.order)
		return false // a new job sorts ahead of an old one
	}
	s.passTime(now)
	w := m.walk
	w.now, w.ids = now, ids
	e.walk(&w, e.order) // past the depth, it goes on in the partitions not locked
	clear(e.order)
	e.req = selectnodes.Request{}
	e.remember(&w)
	e.resumed++
	return true
}
