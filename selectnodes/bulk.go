package selectnodes

import "github.com/bits-and-blooms/bitset"

// FreeCPUsInto writes FreeCPUs of every node, in index order, into dst
// (resliced or grown to the node count) and returns it: a planner reading
// every node once a pass pays for one call instead of one per node.
func (c *Cluster) FreeCPUsInto(dst []int) []int {
	c.mustBeMade("FreeCPUsInto")
	n := len(c.nodes)
	if cap(dst) < n {
		dst = make([]int, n)
	}
	dst = dst[:n]
	for i := range dst {
		dst[i] = c.effective(i).CPUs - c.use.cpus[i]
	}
	return dst
}

// JobsOnTotal is the sum of JobsOn over every node: the (allocation,
// node) pairs the cluster holds.
func (c *Cluster) JobsOnTotal() int {
	c.mustBeMade("JobsOnTotal")
	t := 0
	for _, k := range c.use.jobs {
		t += int(k)
	}
	return t
}

// PartitionNodesInto is PartitionNodes written into dst when dst has the
// cluster's length (else into a new set): a planner asking once a pass
// reuses one set. It returns nil and false for an unknown partition.
func (c *Cluster) PartitionNodesInto(name string, dst *bitset.BitSet) (*bitset.BitSet, bool) {
	c.mustBeMade("PartitionNodesInto")
	i, ok := c.partIx[name]
	if !ok {
		return nil, false
	}
	src := c.parts[i].nodes
	if dst == nil || dst.Len() != src.Len() {
		return src.Clone(), true
	}
	src.Copy(dst)
	return dst, true
}
