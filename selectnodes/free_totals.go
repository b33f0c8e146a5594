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
// node of p leaves them before the change and comes back after it. A
// placement naming a node twice (or out of order) drops them instead.
func (c *Cluster) applyLoad(p *Placement, sign int) {
	if !c.free.known || !ascendingNodes(p.Alloc) {
		c.free.known = false
		c.use.apply(p, sign)
		return
	}
	for k := range p.Alloc {
		c.countNode(p.Alloc[k].Node, -1)
	}
	c.use.apply(p, sign)
	for k := range p.Alloc {
		c.countNode(p.Alloc[k].Node, 1)
	}
}

// countNode adds (sign 1) or takes away (-1) node i's part of the totals.
func (c *Cluster) countNode(i, sign int) {
	if f := c.effective(i).CPUs - c.use.cpus[i]; f > 0 { // FreeCPUs
		c.free.cpus += sign * f
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
