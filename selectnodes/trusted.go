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
		c.selectedPrint.Store(placementPrint(p))
		c.selected.Store(p)
	}
}

// placementPrint is a fingerprint of what Allocate would check in p: its
// partition, exclusivity, total and every node's index, CPUs, memory and
// GRES counts. It tells a placement modified after its selection from the
// one the selection returned, and it is taken twice a start, so it is
// cheap: each node's fields are folded into one word by multiplications
// that do not wait on each other, and only that word goes through the
// chained mix that makes the order of the nodes count.
func placementPrint(p *Placement) uint64 {
	const (
		prime          = 1099511628211
		kNode, kCPUs   = 0x9e3779b97f4a7c15, 0xc2b2ae3d27d4eb4f
		kMem, kGRES    = 0x165667b19e3779f9, 0xd6e8feb86659fd93
		kCount, kTotal = 0xff51afd7ed558ccd, 0xc4ceb9fe1a85ec53
	)
	h := uint64(14695981039346656037)
	mix := func(v uint64) { h = (h ^ v) * prime }
	mix(uint64(len(p.Partition))*kNode ^ uint64(p.TotalCPUs)*kTotal ^ uint64(len(p.Alloc))*kCount)
	if p.Exclusive {
		mix(1)
	}
	alloc := p.Alloc // (p.Alloc would be read again at every node)
	for i := range alloc {
		a := &alloc[i]
		x := uint64(a.Node)*kNode + uint64(a.CPUs)*kCPUs + uint64(a.Memory)*kMem + uint64(len(a.GRES))*kGRES
		for g := range a.GRES {
			x = x*prime + uint64(a.GRES[g].Count)*kCount
		}
		mix(x)
	}
	return h
}

// AllocateSelected is Allocate for the placement the last RunNow
// selection (SelectNodes, Try or Probe) on this cluster returned, with
// nothing changed on the cluster since: it is complete and fits the load
// by construction, so its nodes are not checked again.
// Any other placement (an earlier selection's, another cluster's or a
// snapshot's, one selected in another mode or by a custom Selector, one
// with Changes moved since, or the selection's placement modified since:
// its partition, exclusivity, total, or any node's index, CPUs, memory or
// GRES counts, told by a fingerprint taken at the selection) gets
// Allocate's full checks. p is kept by the cluster, as with Allocate.
func (c *Cluster) AllocateSelected(job JobID, p *Placement, start, end time.Time) error {
	c.mustBeMade("AllocateSelected")
	if p == nil || c.selected.Load() != p || c.selectedAt.Load() != c.changes.n ||
		c.selectedPrint.Load() != placementPrint(p) {
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
	c.ends.ReplaceOrInsert(newEndKey(end, job, p))
	p.live++
	if h, ok := c.selector.(JobHooks); ok {
		h.JobBegin(job, p)
	}
	return nil
}
