package selectnodes

// changeCount counts the calls that changed what a placement reads, so a
// caller that keeps something derived from the cluster (a planner's
// availability profile) can tell, by one comparison, that nothing it
// derived from has moved, instead of reading every node again.
type changeCount struct {
	n      uint64
	config uint64 // of them, those that changed node states, reported resources or partitions
}

// bump notes one change. Every method that writes allocations, their
// ends, node states, reported resources or partitions calls it (a call
// that fails after changing nothing may bump too: equal counts must mean
// no change, unequal ones need not mean one).
func (c *changeCount) bump() { c.n++ }

// bumpConfig notes one change of node states, reported resources or
// partitions: what a selection on the empty cluster reads.
func (c *changeCount) bumpConfig() { c.n++; c.config++ }

// Changes counts the calls that changed allocations, node states or
// partitions; equal values mean nothing a placement reads changed. The
// count says nothing of time passing: an allocation's end that time has
// reached is still the same allocation. A snapshot's changes are its own
// and do not count here.
func (c *Cluster) Changes() uint64 {
	c.mustBeMade("Changes")
	return c.changes.n
}
