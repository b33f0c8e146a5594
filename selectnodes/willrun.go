package selectnodes

import (
	"errors"
	"slices"
)

// willRun is SELECT_MODE_WILL_RUN (seed 000 §4.3.2, SELECTION): if the
// job cannot start now, release the running jobs on a copy of the load in
// order of their expected ends and retry after each, so the result is the
// earliest start the current allocations allow, and where.
func (c *Cluster) willRun(job *Job, sets []NodeSet, n Counts, ex *Explanation) (*Placement, error) {
	p, err := c.reqFeatures(job, sets, n, c.live(), RunNow, ex)
	if err == nil {
		return p, nil
	}
	if !errors.Is(err, ErrBusy) {
		return nil, err
	}
	order := sortedIDs(c.jobs)
	slices.SortStableFunc(order, func(a, b JobID) int { return c.jobs[a].end.Compare(c.jobs[b].end) })
	u := c.use.clone()
	v := View{c, &u}
	k := len(c.gresKeys)
	for i := 0; i < len(order); {
		end := c.jobs[order[i]].end
		// jobs ending together free their nodes together
		for ; i < len(order) && c.jobs[order[i]].end.Equal(end); i++ {
			u.apply(c.jobs[order[i]].p, k, -1)
		}
		p, err := c.reqFeatures(job, sets, n, v, WillRun, nil)
		if err == nil {
			p.Start, p.Immediate = end, false
			ex.step("will run at %s, when %d running jobs have ended", end.Format("2006-01-02T15:04:05Z07:00"), i)
			return p, nil
		}
		if !errors.Is(err, ErrBusy) {
			return nil, err
		}
	}
	return nil, newError(ErrBusy, "cannot start even after every running job ends")
}
