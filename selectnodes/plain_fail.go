package selectnodes

import "github.com/bits-and-blooms/bitset"

// A failing plain walk. A blocked queue head asks, pass after pass, for
// more than the idle nodes give; the pipeline then builds the node set,
// finds too few usable nodes (or calls the selector, which cannot reach
// the CPUs) and classifies the failure with selections on the empty
// cluster. When the walk already knows that no selection can succeed,
// the answer is that classification alone, and on a plain cluster its
// selections are mostly plain picks too.

// plainNever reports whether no selection of whole nodes of cpus CPUs
// each from count candidates can meet n: the picker and its fallback
// (largestFirst) take only candidates, at most limit(n, count) of them,
// and succeed only with at least max(n.Min, 1) nodes and n.CPUs CPUs.
// The pipeline then fails whether or not it calls the selector, and
// classifies the failure over the partition's nodes.
func plainNever(n Counts, count, cpus int) bool {
	return count < max(n.Min, 1) || (n.CPUs > 0 && limit(n, count)*cpus < n.CPUs)
}

// plainFailure is the pipeline's error for a plain walk that plainNever
// refused: the node set is the partition's nodes (one record that meets
// the request, no nodes excluded by name), so accumulate ends in
// classifyIn over them, or in the quick "does not fit" for a probe.
func (c *Cluster) plainFailure(job *Job, sc *scratch, quick bool) error {
	if quick {
		// the probes (Probe, ProbeNodes, ProbeInto) report only that it
		// failed: the class alone, with no message made for nobody
		return ErrBusy
	}
	n, err := c.nodeCounts(job)
	if err != nil { // plainWalk refused such jobs already
		return err
	}
	return c.classifyBy(sc, job, c.parts[job.partIndex].nodes, n, true)
}

// emptyFits is whether the selector finds n in set on the empty cluster
// (the view empty). With plain, a plain pick that meets the counts is
// the picker's own success, so the selector is asked only when it does
// not (its fallback may still succeed).
func (c *Cluster) emptyFits(empty View, job *Job, set *bitset.BitSet, n Counts, plain bool) bool {
	if plain {
		if _, ok := plainPick(empty.sc, set, len(c.nodes), n, int(set.Count()), c.records[0].cpus); ok {
			return true
		}
	}
	_, ok := c.selector.JobTest(empty, job, set, n)
	return ok
}

// cpusWithinBy is cpusWithin; with plain every node of set offers the
// job the same CPUs (one kind of node, a plain request: no per-socket
// or per-core layout), so the bound is a product instead of a walk.
func (c *Cluster) cpusWithinBy(job *Job, set *bitset.BitSet, n Counts, plain bool) bool {
	if !plain {
		return c.cpusWithin(job, set, n)
	}
	if n.CPUs <= 0 {
		return true
	}
	return limit(n, int(set.Count()))*c.idleUnits(job, c.records[0].nodes[0], c.records[0].cpus) >= n.CPUs
}
