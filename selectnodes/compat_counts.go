package selectnodes

import (
	"errors"

	"github.com/bits-and-blooms/bitset"
	"github.com/hpcsched/hpcsched/hostlist"
)

// Slurm 22.05's node counts against a partition's limits, as observed on a
// real controller; used in SlurmCompat mode only.
//
//   - A job whose maximum node count (-N min-max) exceeds the partition's
//     MaxNodes is not trimmed to it: it pends (ErrPartConfig), as a job
//     whose minimum does. A job that gave no maximum gets the partition's.
//   - A node range (-N3-5) is allocated up to its maximum when the nodes
//     are there, and down to the minimum when they are not: the desired
//     count is the maximum.
//
// The default mode trims the maximum to the partition's MaxNodes and aims
// for the minimum (or DesiredNodes), which starts more jobs and leaves
// nodes for others; Explain says so (compatDiffers).
func compatNodeCounts(job *Job, n Counts) (Counts, error) {
	req, p := job.Req, job.Part
	if p.MaxNodes > 0 && req.MaxNodes > p.MaxNodes {
		return n, newError(ErrPartConfig, "asks for up to %d nodes but partition %s allows at most %d (MaxNodes); Slurm does not trim the request",
			req.MaxNodes, p.Name, p.MaxNodes)
	}
	if n.Max == 0 && p.MaxNodes > 0 {
		n.Max = p.MaxNodes
	}
	if n.Max > 0 && n.Min > n.Max {
		return n, newError(ErrPartConfig, "needs at least %d nodes but at most %d are allowed (partition %s MinNodes %d MaxNodes %d)",
			n.Min, n.Max, p.Name, p.MinNodes, p.MaxNodes)
	}
	n.Desired = max(req.DesiredNodes, n.Min, req.MaxNodes)
	if n.Max > 0 {
		n.Desired = min(n.Desired, n.Max)
	}
	return n, nil
}

// compatCountsFirst is the node counts' verdict on the partition's
// limits, which Slurm 22.05 gives before it looks at the nodes: -p big
// -N4 -w zc08, with big's MaxNodes=2 and zc08 not in it, pends
// (PartitionConfig) rather than being refused for the node
// (blind8/recorded.tsv:77). nil in the default mode, which reports the
// node first.
func (c *Cluster) compatCountsFirst(job *Job) error {
	if !c.compat {
		return nil
	}
	_, err := c.nodeCounts(job)
	return err
}

// countsDiffer says, in the default mode, where NodeCounts answered
// otherwise than Slurm 22.05 would.
func (cx *call) countsDiffer() {
	if cx.ex == nil || cx.c.compat {
		return
	}
	req, p := cx.job.Req, cx.job.Part
	if p.MaxNodes > 0 && req.MaxNodes > p.MaxNodes {
		cx.defaultDiffers("up to %d nodes asked, trimmed to partition %s MaxNodes %d; Slurm leaves such a job pending",
			req.MaxNodes, p.Name, p.MaxNodes)
	}
	if req.MaxNodes > cx.n.Desired {
		cx.defaultDiffers("aims for %d nodes of %d-%d; Slurm takes up to %d when they are free",
			cx.n.Desired, cx.n.Min, req.MaxNodes, min(req.MaxNodes, max(cx.n.Max, req.MaxNodes)))
	}
	if first, all := cx.c.noMemoryOver(cx.job); first && !all {
		cx.defaultDiffers("no memory asked: Slurm gives the job its nodes' whole memory and leaves it pending (PartitionConfig), "+
			"partition %s's first node holding more than its MaxMemPerNode %d MB", p.Name, p.MaxMemPerNode)
	}
	if req.MaxSwitches > 0 && cx.c.topo != nil {
		cx.defaultDiffers("--switches=%d is not enforced: the placement takes the lowest common switch whatever "+
			"the number of leaves; Slurm leaves a job pending while its nodes would span more than %d leaf switches",
			req.MaxSwitches, req.MaxSwitches)
	}
}

// bracketedTermError is the class of a bracketed counted term that found
// too few nodes once the earlier terms' picks were set aside: those nodes
// are not down, so too few for the terms together is the configuration's
// (node_config), unless the load is to blame (busy). -p short -N3 -C
// [big*1&fat*2], with two big,fat nodes in short, is refused
// (blind16/recorded.tsv:32).
func bracketedTermError(c *Cluster, ct countTerm, acc *bitset.BitSet, err error) error {
	var e *Error
	if !errors.As(err, &e) || e.Class != ErrPartConfig {
		return err
	}
	return &Error{Class: ErrNodeConfig, Cause: e,
		Reason: "count " + ct.name + ": too few nodes besides those the earlier terms took (" + hostlist.Compress(c.Names(acc)) + ")"}
}
