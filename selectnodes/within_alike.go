package selectnodes

import "github.com/bits-and-blooms/bitset"

// cpusWithinAlike is cpusWithin on a cluster of one node configuration
// (one record), for a job whose count on a node does not depend on the
// node's sockets or threads (no task per core, no CPUs per socket) and
// nodes whose configuration is what selection counts: every node of set
// then offers the same CPUs, so the sum is a product and the n.Max largest
// are any n.Max of them. A conservative backfill classifies every job it
// cannot start; on a crowded cluster of many nodes the walk over the
// partition's nodes, twice per job, was a twentieth of its instructions.
// ok is false when the shortcut does not apply.
func (c *Cluster) cpusWithinAlike(job *Job, set *bitset.BitSet, n Counts) (within, ok bool) {
	if len(c.records) != 1 || job.Req.CoreTasks || job.Req.MaxCPUsPerSocket > 0 ||
		(c.fastSchedule == 0 && c.reported != nil) {
		return false, false
	}
	each := capCPUs(job, c.records[0].cpus) // idleUnits of every node
	count := int(set.Count())
	total := count * each // the walk's sum, overflow included
	if n.Max <= 0 || n.Max >= count || total < n.CPUs {
		return total >= n.CPUs, true
	}
	return n.Max*each >= n.CPUs, true
}
