package selectnodes

// Free totals kept up to date. An EASY pass at every event of a replay
// needs the free CPUs and the nodes with one (FreeTotals); counting them
// node by node was a scan of the cluster per pass. A job's start or end
// changes only its nodes' free CPUs, so the totals follow each load
// change by those nodes alone. A node's registration (its CPUs may become
// the reported ones) drops them, and the next FreeTotals counts afresh.

// freeTotals is FreeTotals' answer while known.
type freeTotals struct {
	cpus, nodes int
	known       bool
}

// applyLoad is use.apply of p with sign, keeping the free totals: each
// node of p leaves them with its free CPUs before the change and comes
// back with those after it. A placement naming a node twice (or out of
// order) drops them instead.
func (c *Cluster) applyLoad(p *Placement, sign int) {
	if !c.free.known || !ascendingNodes(p.Alloc) {
		c.free.known = false
		c.use.apply(p, sign)
		return
	}
	for k := range p.Alloc {
		// each node once (ascending): its free CPUs move by its own CPUs
		a := &p.Alloc[k]
		was := c.effective(a.Node).CPUs - c.use.cpus[a.Node] // FreeCPUs
		c.count(was, -1)
		c.count(was-sign*a.CPUs, 1)
	}
	c.use.apply(p, sign)
}

// count adds (sign 1) or takes away (-1) the part of the totals of a node
// with free CPUs.
func (c *Cluster) count(free, sign int) {
	if free > 0 {
		c.free.cpus += sign * free
		c.free.nodes += sign
	}
}

// ascendingNodes reports whether each node of alloc comes after the one
// before it.
func ascendingNodes(alloc []NodeAlloc) bool {
	for k := 1; k < len(alloc); k++ {
		if alloc[k].Node <= alloc[k-1].Node {
			return false
		}
	}
	return true
}
