package queue

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/google/btree"
)

// tombstone is what is left of a forgotten job: what a dependency on it
// reads (its end state, and its start for after:job+minutes). Its ID
// stays in use, so no later job takes it. It is 16 bytes with no pointer
// (a time.Time holds one), so that a long replay's many tombstones cost
// the collector nothing to scan: the start is kept as Unix nanoseconds,
// which every time the scheduler accepts fits (MinYear to MaxYear), and
// noStart for a job that never started.
type tombstone struct {
	start int64
	state State
}

// noStart is a tombstone's start when the job never started.
const noStart = math.MinInt64

// newTombstone is the tombstone of a job that ended in state after
// starting at start (zero when it never started).
func newTombstone(start time.Time, state State) tombstone {
	if start.IsZero() {
		return tombstone{start: noStart, state: state}
	}
	return tombstone{start: start.UnixNano(), state: state}
}

// startTime is the forgotten job's start, in UTC (zero when it never
// started): the same instant, though not the location it was given in.
func (t tombstone) startTime() time.Time {
	if t.start == noStart {
		return time.Time{}
	}
	return time.Unix(0, t.start).UTC()
}

// finKey orders the retained finished jobs for WithRetention: the one
// that ended first goes first, ties by ID.
type finKey struct {
	end time.Time
	id  JobID
}

func lessFin(a, b finKey) bool {
	if c := a.end.Compare(b.end); c != 0 {
		return c < 0
	}
	return a.id < b.id
}

// WithRetention keeps at most n finished jobs (COMPLETE, CANCELLED,
// FAILED, TIMEOUT, NODE_FAIL): when more have ended, the ones that ended
// first (ties: the lowest ID) are forgotten, as by Forget, at the end of
// the call that ended them. Zero (the default) keeps every finished job;
// WithForgetFinished keeps none. A negative n panics.
func WithRetention(n int) Option {
	if n < 0 {
		panic(fmt.Sprintf("queue.WithRetention: n is %d, want >= 0", n))
	}
	return func(o *options) {
		if n > 0 {
			o.retain = n
		}
	}
}

// WithForgetFinished forgets every job as soon as it has ended (a replay
// that keeps no history): Job, Jobs and Snapshot no longer show it, and
// the end event is the last word on it.
func WithForgetFinished() Option { return func(o *options) { o.retain = retainNone } }

// WithRecycledPlacements hands a job's placement back to the cluster
// (selectnodes.Cluster.Recycle) when the scheduler forgets the job
// (Forget, WithRetention, WithForgetFinished), so that later starts reuse
// its memory: a long replay then allocates almost nothing per job. What
// the scheduler hands out (Job, Jobs, events, plugins' arguments) is a
// copy and stays valid. Use it only when nothing reads a placement taken
// from the cluster itself (Cluster.Allocation, DescendAllocations, or the
// one a Policy sees in the job's record) after its job is forgotten.
func WithRecycledPlacements() Option { return func(o *options) { o.recycle = true } }

// retainNone is options.retain for "keep no finished job"; 0 keeps all.
const retainNone = -1

// Forget drops a finished job's record: Job, Jobs and Snapshot no longer
// show it. Its ID stays in use (Submit with that Spec.ID fails with
// ErrDuplicateID, and the counter skips it), and a dependency on it still
// resolves as it would on the finished job: the scheduler keeps its end
// state and start time (a few dozen bytes; Snapshot saves them under
// "forgotten"). A job that has not finished is an ErrJobState error; an
// unknown or already forgotten one ErrUnknownJob.
func (s *Scheduler) Forget(id JobID) error {
	s.enter()
	defer s.unlock()
	j, err := s.getIn(id, "forget", State.Terminal)
	if err != nil {
		return err
	}
	s.forget(j)
	return nil
}

// forget replaces terminal job j by its tombstone.
func (s *Scheduler) forget(j *job) {
	if s.opts.noTombstones && s.depJobs == 0 {
		s.bare.add(j.ID)
	} else {
		if s.gone == nil {
			s.gone = map[JobID]tombstone{}
		}
		s.gone[j.ID] = newTombstone(j.Start, j.State)
	}
	delete(s.jobs, j.ID)
	if s.finished != nil {
		s.finished.Delete(finKey{j.End, j.ID})
	}
	if s.byUserName != nil {
		key := userName(j)
		list := slices.DeleteFunc(s.byUserName[key], func(o *job) bool { return o == j })
		if len(list) == 0 {
			delete(s.byUserName, key)
		} else {
			s.byUserName[key] = list
		}
	}
	if s.opts.recycle && j.Placement != nil {
		s.c.Recycle(j.Placement) // the cluster released it when the job ended
	}
	s.keepSpare(j)
}

// maxSpare bounds the forgotten records kept for reuse: a replay that
// forgets jobs as they end submits about as many as it forgets, and a
// burst of ends past the bound leaves the rest to the collector.
const maxSpare = 256

// keepSpare clears forgotten record j and keeps it for a new job to
// reuse. A record is the scheduler's alone (callers, plugins and
// subscribers get copies; a Policy reads one only during its call), so
// nothing reads it after it is forgotten. Reuse spares a replay the
// allocation of a new record per job, and the fresh memory each would
// fault in.
func (s *Scheduler) keepSpare(j *job) {
	if len(s.spare) >= maxSpare {
		return
	}
	*j = job{} // drops its placement, explanation and request for the collector
	s.spare = append(s.spare, j)
}

// newRecord is a cleared job record: a forgotten one when one is kept,
// or a new one.
func (s *Scheduler) newRecord() *job {
	if n := len(s.spare); n > 0 {
		j := s.spare[n-1]
		s.spare[n-1] = nil
		s.spare = s.spare[:n-1]
		return j
	}
	return new(job)
}

// ended notes that j reached a terminal state, for WithRetention.
func (s *Scheduler) ended(j *job) {
	if s.opts.retain == 0 {
		return
	}
	if s.finished == nil {
		s.finished = btree.NewG(32, lessFin)
	}
	s.finished.ReplaceOrInsert(finKey{j.End, j.ID})
}

// retain forgets the finished jobs beyond WithRetention's count, the
// earliest ended first. It runs as a call that ended jobs unlocks.
func (s *Scheduler) retain() {
	keep := max(s.opts.retain, 0)
	if s.opts.retain == 0 || s.finished == nil {
		return
	}
	for s.finished.Len() > keep {
		k, _ := s.finished.Min()
		if j, ok := s.jobs[k.id]; ok && j.State.Terminal() {
			s.forget(j) // deletes k
		} else {
			s.finished.Delete(k)
		}
	}
}

// idUsed reports whether a job, live, finished or forgotten, has id.
func (s *Scheduler) idUsed(id JobID) bool {
	if _, ok := s.jobs[id]; ok {
		return true
	}
	if _, ok := s.gone[id]; ok {
		return true
	}
	return s.bare.has(id)
}

// forgottenIDs lists the forgotten jobs' IDs, ascending.
func (s *Scheduler) forgottenIDs() []JobID {
	ids := make([]JobID, 0, len(s.gone))
	for id := range s.gone {
		ids = append(ids, id)
	}
	slices.SortFunc(ids, cmp.Compare)
	return ids
}
