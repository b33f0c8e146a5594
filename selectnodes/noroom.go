package selectnodes

import "math/bits"

// A probe that no node can take. Replaying a trace of many-core nodes
// (MetaCentrum's: nodes of 80 and 12 cores, jobs asking 8-80 cores on one
// node), most probes of an EASY pass are jobs asking more cores on a node
// than any node has free: the cluster's free cores are many but spread
// thin. The pipeline found that out at the end of a whole selection
// (the partition's checks, the node sets and their features, the load
// filter node by node over every set's span), and a probe reads only that
// it failed. noRoom finds it first, from the load alone, reading each
// node of the partition once and stopping at the first that might be
// usable.

// noRoom reports whether no node of job's partition can be usable to it
// under the live load, so that a RunNow selection fails whatever its node
// sets, counts and selector would do: accumulate never has a usable node,
// and a job always needs at least one (NodeCounts' Min). It answers only
// when that follows from the built-in selectors' load filters, for a job
// that does not share nodes and has no counted feature terms; otherwise
// it reports false and the pipeline decides.
//
// A node the filters keep (usable) is available, and either idle, or
// busy under ConsRes for a job that is not exclusive, in the share mask
// and with room: its free CPUs (freeOf, at most its CPUs less their load)
// at least the job's CPUs per node. An idle node is in a node set only if
// its record's CPUs, or under FastSchedule 0 its own reported ones, reach
// the job's MinCPUsPerNode (baselineFits, reportedFits; idleUnits never
// exceeds the CPUs it is given). Every node passing neither test is out
// of every set's usable nodes, so with none left the pipeline's answer is
// a failure.
func (c *Cluster) noRoom(job *Job) bool {
	lf, ok := builtinFilter(c.selector)
	if !ok || job.Shared || (job.Req.Features != nil && len(job.Req.Features.Counts()) > 0) {
		return false
	}
	_, consRes := lf.(ConsRes)
	busyMayFit := consRes && !job.Exclusive
	part := c.parts[job.partIndex].nodes.Words()
	avail, idle, share := job.availNodes.Words(), c.use.idle.Words(), c.use.share.Words()
	minCPUs, perNode := job.Req.MinCPUsPerNode, job.cpusPerNode
	for k := range part {
		cand := part[k] & avail[k]
		for w := cand & idle[k]; w != 0; w &= w - 1 {
			i := k*64 + bits.TrailingZeros64(w)
			if max(c.nodes[i].CPUs, c.effective(i).CPUs) >= minCPUs {
				return false
			}
		}
		if !busyMayFit {
			continue
		}
		for w := cand &^ idle[k] & share[k]; w != 0; w &= w - 1 {
			i := k*64 + bits.TrailingZeros64(w)
			if c.effective(i).CPUs-c.use.cpus[i] >= perNode {
				return false
			}
		}
	}
	return true
}
