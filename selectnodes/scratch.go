package selectnodes

import (
	"github.com/hpcsched/hpcsched/topology"
)

// scratch is the working memory of one selection, kept on the cluster
// between calls: a planner probes thousands of trial placements per pass,
// and building each trial's node list, CPU shares and best-fit lists
// afresh made the garbage collector a fifth of a replay (BENCHMARKS.md,
// "Hot paths, second round"). Nothing in it outlives the call that uses
// it: the Placement handed back is always built in new memory.
type scratch struct {
	fit    topology.Scratch
	uses   []NodeUse
	shares []int
	cpu    []int32 // ConsRes's free CPUs per node, for a topology's Fit
}

// takeScratch lends the cluster's scratch to one call; a concurrent call
// (two goroutines reading one Snapshot) finds none and makes its own, so
// calls never share it.
func (c *Cluster) takeScratch() *scratch {
	if sc := c.scratch.Swap(nil); sc != nil {
		return sc
	}
	return new(scratch)
}

// putScratch returns the scratch for the next call.
func (c *Cluster) putScratch(sc *scratch) { c.scratch.Store(sc) }

// nodeUses returns a NodeUse slice of length n: the scratch's when there
// is one (the view of a selection call), else a new one.
func (sc *scratch) nodeUses(n int) []NodeUse {
	if sc == nil {
		return make([]NodeUse, n)
	}
	sc.uses = growTo(sc.uses, n)
	return sc.uses
}

// ints returns an int slice of length n, zeroed, from the scratch when
// there is one.
func (sc *scratch) ints(n int) []int {
	if sc == nil {
		return make([]int, n)
	}
	sc.shares = growTo(sc.shares, n)
	clear(sc.shares)
	return sc.shares
}

// cpuTable returns a per-node table of n entries, every one unknownCPUs.
func (sc *scratch) cpuTable(n int) []int32 {
	var t []int32
	if sc == nil {
		t = make([]int32, n)
	} else {
		sc.cpu = growTo(sc.cpu, n)
		t = sc.cpu
	}
	for i := range t {
		t[i] = unknownCPUs
	}
	return t
}

// fitScratch is the scratch for topology.Tree.FitWith (a new one without
// a call's scratch).
func (sc *scratch) fitScratch() *topology.Scratch {
	if sc == nil {
		return new(topology.Scratch)
	}
	return &sc.fit
}

// growTo returns b resized to n, reusing its array when it is big enough.
func growTo[T any](b []T, n int) []T {
	if cap(b) < n {
		return make([]T, n, n+n/4)
	}
	return b[:n]
}
