package selectnodes

import (
	"fmt"
	"time"
)

// stamp notes p as the last placement a built-in RunNow selection made on
// c's present state, for AllocateSelected. A placement from another
// Selector is not noted: only the built-in ones are known to choose
// within the load. (Selections may run side by side, never beside a
// change, so every stamp between two changes carries the same count.)
func (c *Cluster) stamp(p *Placement, mode Mode) {
	if p == nil || p.Alloc == nil || mode != RunNow {
		return
	}
	switch c.selector.(type) {
	case Linear, ConsRes:
		c.selectedAt.Store(c.changes.n)
		c.selected.Store(p)
	}
}

// AllocateSelected is Allocate for the placement the last RunNow
// selection (SelectNodes, Try or Probe) on this cluster returned, with
// nothing changed on the cluster since and the placement unmodified: it
// is complete and fits the load by construction, so its nodes are not
// checked again.
// Any other placement (an earlier selection's, another cluster's or a
// snapshot's, one selected in another mode or by a custom Selector, or
// one with Changes moved since) gets Allocate's full checks. The caller
// answers for not having modified p.
func (c *Cluster) AllocateSelected(job JobID, p *Placement, start, end time.Time) error {
	c.mustBeMade("AllocateSelected")
	if p == nil || c.selected.Load() != p || c.selectedAt.Load() != c.changes.n {
		return c.Allocate(job, p, start, end)
	}
	if _, dup := c.jobs[job]; dup {
		return fmt.Errorf("selectnodes: job %d is already allocated", job)
	}
	c.selected.Store(nil) // the cluster holds no placement past its start
	c.changes.bump()
	c.applyLoad(p, 1)
	// addJob without its lookup: the job has no record, checked above
	c.jobs[job] = running{id: job, p: p, start: start, end: end}
	c.ends.ReplaceOrInsert(endKey{end, job, p})
	if h, ok := c.selector.(JobHooks); ok {
		h.JobBegin(job, p)
	}
	return nil
}
