package queue

import (
	"slices"
	"time"
)

// runList holds the running and suspended jobs (those of
// Scheduler.active) in a slice, for Tick: a replay ticks once per time
// limit reached with hundreds of jobs running, and a walk over a slice
// costs a fraction of one over a map. A job's place in it is kept in the
// job (runIx), so adding and removing one is a constant-time swap.
//
// An index by expected end was measured instead, a heap kept through every
// start, end and move of an end: its upkeep at every start and end cost
// more than the scans it saved on all but the busiest trace.
type runList struct {
	jobs []*job
}

// add appends j, which is not in the list.
func (l *runList) add(j *job) {
	l.jobs = append(l.jobs, j)
	j.runIx = len(l.jobs)
}

// remove takes j out of the list, if it is there.
func (l *runList) remove(j *job) {
	i := j.runIx - 1
	if i < 0 {
		return
	}
	n := len(l.jobs) - 1
	if i != n {
		l.jobs[i] = l.jobs[n]
		l.jobs[i].runIx = i + 1
	}
	l.jobs[n] = nil // drop the reference
	l.jobs = l.jobs[:n]
	j.runIx = 0
}

// timedOutIDs returns the running jobs past their limit at now, in ID
// order.
func (s *Scheduler) timedOutIDs(now time.Time) []JobID {
	var out []JobID
	for _, j := range s.running.jobs {
		if timedOut(j, now) {
			out = append(out, j.ID)
		}
	}
	slices.Sort(out)
	return out
}
