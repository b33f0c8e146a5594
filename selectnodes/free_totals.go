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
// order) drops them instead. When every node's CPUs are its configured
// ones, the totals' move is read in the load's own walk over the nodes.
func (c *Cluster) applyLoad(p *Placement, sign int) {
	if !c.free.known {
		c.use.apply(p, sign)
		return
	}
	if c.fastSchedule == 0 && c.reported != nil { // a node's CPUs may be the reported ones
		c.applyLoadEffective(p, sign)
		return
	}
	var mv freeMove
	if sign > 0 {
		mv = c.use.add(p, c.nodes)
	} else {
		mv = c.use.remove(p, c.nodes)
	}
	c.use.applyPart(p, sign) // partcap.go
	if mv.unordered {
		c.free.known = false
		return
	}
	c.free.cpus += mv.cpus
	c.free.nodes += mv.nodes
}

// applyLoadEffective is applyLoad node by node through effective.
func (c *Cluster) applyLoadEffective(p *Placement, sign int) {
	if !ascendingNodes(p.Alloc) {
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

// freeMove is how the free totals move under a load change, summed node
// by node; unordered when a node did not come after the one before it
// (the totals are then dropped, as the node may be counted twice).
type freeMove struct {
	cpus, nodes int
	unordered   bool
}

// node adds the move of a node with free CPUs free before the change,
// which takes cpus of them (gives them back when negative).
func (mv *freeMove) node(free, cpus int, unordered bool) {
	if free > 0 {
		mv.cpus -= free
		mv.nodes--
	}
	if free -= cpus; free > 0 {
		mv.cpus += free
		mv.nodes++
	}
	mv.unordered = mv.unordered || unordered
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
