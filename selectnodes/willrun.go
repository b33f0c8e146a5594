package selectnodes

import (
	"errors"
	"slices"
	"time"
)

// willRun is SELECT_MODE_WILL_RUN (seed 000 §4.3.2, SELECTION): when the
// job cannot start now, release the running jobs on a copy of the load in
// order of their expected ends and find the first end after which it can,
// and where. Jobs ending at the same moment free their nodes together.
//
// Releasing jobs only frees resources, so whether the job fits is monotone
// in how many have ended: the first fitting end is found by binary search
// over the end times, moving one copy of the load back and forth, instead
// of retrying after every end.
func (cx *call) willRun() (*Placement, error) {
	c, job, n := cx.c, cx.job, cx.n
	now := *cx
	now.mode = RunNow
	p, err := now.reqFeatures(job, n)
	cx.memo = now.memo // for a run that explains this one
	if err == nil || !errors.Is(err, ErrBusy) {
		return p, err
	}
	jobs := c.jobs
	order := sortedIDs(jobs)
	slices.SortStableFunc(order, func(a, b JobID) int { return jobs[a].end.Compare(jobs[b].end) })
	// groups[g] are the jobs ending at ends[g]
	var groups [][]JobID
	var ends []time.Time
	for _, id := range order {
		e := jobs[id].end
		if len(ends) == 0 || !ends[len(ends)-1].Equal(e) {
			ends = append(ends, e)
			groups = append(groups, nil)
		}
		groups[len(groups)-1] = append(groups[len(groups)-1], id)
	}
	u := c.use.clone()
	later := cx.at(View{c: c, u: &u}, WillRun)
	later.ex, later.v.ex = nil, nil // the search's tries are not explained
	released := 0                   // groups [0, released) are released in u
	moveTo := func(g int) {
		for ; released < g; released++ {
			for _, id := range groups[released] {
				u.apply(jobs[id].p, -1)
			}
		}
		for ; released > g; released-- {
			for _, id := range groups[released-1] {
				u.apply(jobs[id].p, 1)
			}
		}
	}
	try := func(g int) (*Placement, error) {
		moveTo(g)
		return later.reqFeatures(job, n)
	}
	// find the fewest groups g (1..len) after whose end the job fits
	lo, hi := 1, len(groups)
	var found *Placement
	for lo <= hi {
		mid := (lo + hi) / 2
		p, err := try(mid)
		switch {
		case err == nil:
			found, hi = p, mid-1
		case errors.Is(err, ErrBusy):
			lo = mid + 1
		default:
			return nil, err
		}
	}
	if found == nil {
		return nil, newError(ErrBusy, "cannot start even after every running job ends")
	}
	if released != lo {
		// the last success may have been at a larger prefix than lo
		if found, err = try(lo); err != nil {
			return nil, err
		}
	}
	found.Start, found.Immediate = ends[lo-1], false
	cx.step("will run at %s, when the jobs ending by then (%d end times) have ended", rfc3339(found.Start), lo)
	return found, nil
}

// rfc3339 prints a time as RFC 3339, when formatted.
type rfc3339 time.Time

func (t rfc3339) String() string { return time.Time(t).Format(time.RFC3339) }
