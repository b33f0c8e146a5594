package selectnodes

// ConfigChanges counts the calls that changed node states, reported
// resources or partitions (SetNodeState, Register, UpdatePartition): a
// part of Changes, the calls that leave the allocations alone. Equal
// values mean that a selection on the empty cluster (TestOnly, and the
// classification of a failed selection) reads what it read before: a
// caller may keep a failure's class across allocations and releases,
// which change the load alone. A snapshot's changes are its own and do
// not count here.
func (c *Cluster) ConfigChanges() uint64 {
	c.mustBeMade("ConfigChanges")
	return c.changes.config
}
