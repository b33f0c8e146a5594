package selectnodes

import (
	"slices"

	"github.com/bits-and-blooms/bitset"
)

// ProbeInto is ProbeNodes for a planner that needs only the set of nodes a
// job would take: it runs the same pipeline, makes the same choice and the
// same checks of it, and writes the chosen nodes into dst (cleared first;
// it grows to the cluster's size when smaller) instead of building a
// Placement. It reports whether the job fits; dst is empty when it does
// not. Requests with alternative or counted features take ProbeNodes'
// path. dst stays the caller's: the cluster keeps no reference to it. A nil
// dst panics.
func (c *Cluster) ProbeInto(req *Request, mode Mode, dst *bitset.BitSet) bool {
	c.mustBeMade("ProbeInto")
	if dst == nil {
		panic("selectnodes.ProbeInto: dst is nil")
	}
	dst.ClearAll()
	if n := uint(len(c.nodes)); dst.Len() < n {
		dst.Set(n - 1).Clear(n - 1) // the cluster's size, as documented
	}
	if mode == WillRun {
		mode = RunNow
	}
	if req != nil && req.Features != nil && (len(req.Features.Alternatives()) > 0 || len(req.Features.Counts()) > 0) {
		// alternatives are weighed and counted terms merged from whole
		// placements: build them
		p, ok := c.ProbeNodes(req, mode)
		if ok {
			for i := range p.All() {
				dst.Set(uint(i))
			}
		}
		return ok
	}
	_, _, err := c.runWith(req, mode, callOptions{quick: true, nodesOnly: true, into: dst})
	if err != nil {
		dst.ClearAll()
	}
	return err == nil
}

// choiceInto checks a selector's choice as placement does for a
// nodes-only Placement and writes the chosen nodes into dst.
func (v View) choiceInto(ch Choice, avail, dst *bitset.BitSet) *Error {
	uses := ch.Nodes
	byNode := func(a, b NodeUse) int { return a.Node - b.Node }
	if !slices.IsSortedFunc(uses, byNode) {
		uses = slices.Clone(uses) // the selector's slice stays as it was
		slices.SortFunc(uses, byNode)
	}
	for k, u := range uses {
		if err := v.checkUse(u, avail, k > 0 && uses[k-1].Node == u.Node); err != nil {
			return err
		}
		if len(u.GRES) > 0 { // still checked, as for a placement
			if err := v.giveGRES(u, &NodeAlloc{}); err != nil {
				return err
			}
		}
		dst.Set(uint(u.Node))
	}
	return nil
}
