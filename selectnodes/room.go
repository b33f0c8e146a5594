package selectnodes

import (
	"math"
	"math/bits"
)

// Word bounds for the load filters. A ConsRes selection on a half-loaded
// cluster checked every busy node of the spans it read, one at a time
// (free CPUs, free memory, jobs per node): 70 % of a one-node selection on
// 100,000 nodes (BENCHMARKS.md, "Hot paths, third round"). Bounds kept per
// 64-node word let the filter pass a whole word of busy nodes at once
// when even its fullest node has room for the job; the answer is the
// same, only the words whose bounds are too tight are checked node by
// node.
//
// The bounds come in two halves so that the load's half needs no node
// configuration: the status keeps, per word, the least CPUs and memory
// any of its nodes offers a selection (wordCap: configuration, or what
// nodes reported under FastSchedule 0), and the load keeps, per word, the
// most CPUs, memory and jobs any of its nodes holds (wordLoad). A node of
// the word then has at least cap.cpus-load.cpus CPUs free.

// wordCap is the least any node of one 64-node word offers.
type wordCap struct {
	cpus int
	mem  int64
}

// wordLoad is the most any node of one 64-node word holds: exact, kept
// by usage.apply.
type wordLoad struct {
	cpus int
	mem  int64
	jobs int32
}

// words is how many 64-node words n nodes take.
func words(n int) int { return (n + 63) / 64 }

// computeCaps fills the status's per-word capacities for every word.
func (c *Cluster) computeCaps() { c.caps, c.alikeCPUs = c.capsNow(), c.alikeNow() }

// alikeNow is the CPUs every node offers a selection when they all offer
// the same, else -1 (also for no nodes).
func (c *Cluster) alikeNow() int {
	if len(c.nodes) == 0 {
		return -1
	}
	cpn := c.effective(0).CPUs
	for i := 1; i < len(c.nodes); i++ {
		if c.effective(i).CPUs != cpn {
			return -1
		}
	}
	return cpn
}

// capsNow is every word's capacity from its nodes' effective resources.
func (c *Cluster) capsNow() []wordCap {
	caps := make([]wordCap, words(len(c.nodes)))
	for w := range caps {
		caps[w] = c.capOf(w)
	}
	return caps
}

// capOf is word w's capacity from its nodes' effective resources.
func (c *Cluster) capOf(w int) wordCap {
	lo, hi := w*64, min(w*64+64, len(c.nodes))
	e := c.effective(lo)
	low := wordCap{cpus: e.CPUs, mem: e.RealMemory}
	for i := lo + 1; i < hi; i++ {
		e := c.effective(i)
		low.cpus, low.mem = min(low.cpus, e.CPUs), min(low.mem, e.RealMemory)
	}
	return low
}

// reloadWord recomputes word w's load bounds from its busy nodes (an idle
// node holds nothing). The word's idle bits must be current.
func (u *usage) reloadWord(w int) {
	u.reloadBelow(w, wordLoad{cpus: math.MaxInt, mem: math.MaxInt64, jobs: math.MaxInt32})
}

// reloadBelow is reloadWord after a release lowered what the word's
// fullest node held, when no node of the word holds more than was (the
// bounds before the release: a release only takes load away). The scan
// stops at the first node that still holds was in every field: no node
// can hold more, so the bounds are was again. On a cluster of like nodes
// each running one job, the first busy node usually does.
func (u *usage) reloadBelow(w int, was wordLoad) {
	var l wordLoad
	for busy := ^u.idle.Words()[w]; busy != 0; busy &= busy - 1 {
		i := w*64 + bits.TrailingZeros64(busy)
		if i >= len(u.cpus) {
			break // the last word's bits past the cluster
		}
		l.cpus, l.mem, l.jobs = max(l.cpus, u.cpus[i]), max(l.mem, u.mem[i]), max(l.jobs, u.jobs[i])
		if l == was {
			break
		}
	}
	u.high[w] = l
}

// roomy reports whether every node of word w has room for job under v's
// load by the bounds alone (ConsRes's dropBusy would keep them all). A
// job asking GRES is checked node by node.
func (v View) roomy(job *Job, w int) bool {
	if len(job.gres) > 0 || job.Part.MaxCPUsPerNode > 0 || job.Req.WholeMemory || job.Req.CoreTasks || job.Req.MaxCPUsPerSocket > 0 || w >= len(v.u.high) || w >= len(v.c.caps) {
		return false
	}
	capW, load := v.c.caps[w], v.u.high[w]
	if job.Shared && int(load.jobs) >= job.MaxShare {
		return false
	}
	// at least this much memory and these many CPUs are free on each node
	// (CPUs capped by sharing only upwards, so the unshared bound holds)
	memFree := capW.mem - load.mem
	cpuFree := capW.cpus - load.cpus
	if job.memPerCPU > 0 && !job.Exclusive {
		cpuFree = min(cpuFree, int(min(max(memFree, 0)/job.memPerCPU, int64(cpuFree))))
	}
	return cpuFree >= job.cpusPerNode && memFree >= job.Req.MinMemoryPerNode
}

// joinable reports whether a sharing job may join every node of word w
// by the bounds alone (Linear's dropBusy would keep them all).
func (v View) joinable(job *Job, w int) bool {
	return len(job.gres) == 0 && w < len(v.u.high) && int(v.u.high[w].jobs) < job.MaxShare
}

// eachBusyTight calls f for every node of the words [lo, hi) of b that
// runs a job under v, except in the words pass passes whole; it visits
// words rather than nodes, so idle stretches cost nothing.
func (v View) eachBusyTight(b []uint64, lo, hi int, pass func(w int) bool, f func(i uint)) {
	idle := v.u.idle.Words()
	for k := lo; k < hi && k < len(b) && k < len(idle); k++ {
		busy := b[k] &^ idle[k]
		if busy == 0 || pass(k) {
			continue
		}
		for ; busy != 0; busy &= busy - 1 {
			f(uint(k*64 + bits.TrailingZeros64(busy)))
		}
	}
}
