package selectnodes

import (
	"fmt"

	"github.com/bits-and-blooms/bitset"
	"github.com/hpcsched/hpcsched/hostlist"
)

// topologyCause names what the switch tree takes away when a job can
// never run: required nodes under no switch (no job placed by a tree can
// use them, as Slurm's topology/tree warns "switches lack access"), or
// qualifying nodes under no switch that the job would have needed. It
// returns "" without a tree or when every qualifying node is under one.
func (c *Cluster) topologyCause(job *Job, total *bitset.BitSet) string {
	if c.topo == nil {
		return ""
	}
	covered := c.topo.Covered()
	if job.Required != nil {
		if off := job.Required.Difference(covered); off.Any() {
			return fmt.Sprintf("; %s %s under no switch of the topology, so no job can be placed on %s",
				hostlist.Compress(c.Names(off)), plural(int(off.Count()), "is", "are"), plural(int(off.Count()), "it", "them"))
		}
	}
	off := total.Difference(covered)
	if !off.Any() {
		return ""
	}
	return fmt.Sprintf("; %s of the %d qualifying nodes (%s) %s under no switch of the topology and cannot be used",
		fmt.Sprint(off.Count()), total.Count(), hostlist.Compress(c.Names(off)), plural(int(off.Count()), "is", "are"))
}
