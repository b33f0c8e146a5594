package selectnodes

import (
	"errors"
	"time"
)

// willRun is SELECT_MODE_WILL_RUN (the Novotný thesis §4.3.2, SELECTION): when the
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
	// a failure now is classified only when nothing fits later either (a
	// class other than busy does not depend on the load, so the search
	// below finds nothing for such a job), unless it is being explained
	now.mode, now.quick = RunNow, cx.quick || cx.ex == nil
	p, err := now.reqFeatures(job, n)
	cx.memo = now.memo // for a run that explains this one
	if err == nil || !errors.Is(err, ErrBusy) {
		return p, err
	}
	jobs := c.jobs
	// group g is order[bounds[g]:bounds[g+1]], the jobs ending at ends[g],
	// read from the end index Allocate and Release keep
	order, bounds, ends := cx.v.sc.endLists()
	order, bounds, ends = c.endGroups(order, bounds, ends)
	defer cx.v.sc.keepEndLists(order, bounds, ends)
	groups := len(ends)
	u := cx.v.sc.usageCopy(&c.use)
	later := cx.at(View{c: c, u: u}, WillRun)
	// the search's tries are not explained, and a failure is not
	// classified: load cannot change the class the RunNow try above found
	later.ex, later.v.ex = nil, nil
	later.quick = true
	released := 0 // groups [0, released) are released in u
	moveTo := func(g int) {
		for ; released < g; released++ {
			for _, id := range order[bounds[released]:bounds[released+1]] {
				u.apply(jobs[id].p, -1)
			}
		}
		for ; released > g; released-- {
			for _, id := range order[bounds[released-1]:bounds[released]] {
				u.apply(jobs[id].p, 1)
			}
		}
	}
	try := func(g int) (*Placement, error) {
		moveTo(g)
		return later.reqFeatures(job, n)
	}
	// First the fewest groups after whose end enough nodes are free for
	// the selector to be asked at all (counts, no selection): nothing
	// earlier can fit. Usually the job fits right there, and that one
	// selection builds the placement.
	later.boundOnly = true
	lo, err := firstFit(1, groups, try)
	later.boundOnly = false
	if err != nil {
		return nil, cx.whyNot(now, err)
	}
	found, err := try(lo)
	if err != nil && errors.Is(err, ErrBusy) {
		// later ends: search by selections that only decide, then build
		later.decideOnly = true
		lo, err = firstFit(lo+1, groups, try)
		later.decideOnly = false
		if err != nil {
			return nil, cx.whyNot(now, err)
		}
		found, err = try(lo)
	}
	if err != nil {
		return nil, err
	}
	found.Start, found.Immediate = ends[lo-1], false
	cx.step("will run at %s, when the jobs ending by then (%d end times) have ended", rfc3339(found.Start), lo)
	return found, nil
}

// whyNot is the error of a job that fits after no end: the class of its
// failure now when that is not busy (classified unless the call is
// quick), else busy.
func (cx *call) whyNot(now call, busy error) error {
	if cx.quick || !now.quick || !errors.Is(busy, ErrBusy) {
		return busy // not to be classified, or classified already
	}
	now.quick = false
	if _, err := now.reqFeatures(cx.job, cx.n); err != nil && !errors.Is(err, ErrBusy) {
		return err
	}
	return busy
}

// firstFit is the least g in [lo, hi] for which try succeeds, by binary
// search (success is monotone in g); ErrBusy when none does.
func firstFit(lo, hi int, try func(g int) (*Placement, error)) (int, error) {
	found := -1
	for lo <= hi {
		mid := (lo + hi) / 2
		_, err := try(mid)
		switch {
		case err == nil:
			found, hi = mid, mid-1
		case errors.Is(err, ErrBusy):
			lo = mid + 1
		default:
			return 0, err
		}
	}
	if found < 0 {
		return 0, newError(ErrBusy, "cannot start even after every running job ends")
	}
	return found, nil
}

// rfc3339 prints a time as RFC 3339, when formatted.
type rfc3339 time.Time

func (t rfc3339) String() string { return time.Time(t).Format(time.RFC3339) }
