package selectnodes

import (
	"slices"
	"time"
)

// Load read in bulk, for planners that look at every node or every running
// job on each pass (queue's EASY): one call instead of one per node or job.

// AppendFreeCPUs appends each node's free CPUs (FreeCPUs, in node order)
// to dst and returns it. dst is the caller's.
func (c *Cluster) AppendFreeCPUs(dst []int) []int {
	c.mustBeMade("AppendFreeCPUs")
	if c.fastSchedule != 0 || c.reported == nil {
		// the configured CPUs: no node's report to look up. Written in
		// place (an EASY pass asks at every event)
		n, at := len(c.nodes), len(dst)
		dst = slices.Grow(dst, n)[:at+n]
		out, used := dst[at:], c.use.cpus[:n]
		for i := range out {
			out[i] = c.nodes[i].CPUs - used[i]
		}
		return dst
	}
	for i := range c.nodes {
		dst = append(dst, c.FreeCPUs(i))
	}
	return dst
}

// AppendFreeCPUsOn appends the free CPUs (FreeCPUs) of each node of p, in
// p's order, to dst and returns it: a planner that starts p reads its
// nodes before the start in one call. dst is the caller's; p is only read.
func (c *Cluster) AppendFreeCPUsOn(dst []int, p *Placement) []int {
	c.mustBeMade("AppendFreeCPUsOn")
	if p == nil {
		return dst
	}
	m, at := p.NodeCount(), len(dst)
	dst = slices.Grow(dst, m)[:at+m]
	out, used, n := dst[at:], c.use.cpus, len(c.nodes)
	fast := c.fastSchedule != 0 || c.reported == nil // the configured CPUs
	for k := range out {
		var i int
		if p.Alloc != nil { // a placement's usual form: its nodes read in place
			i = p.Alloc[k].Node
		} else {
			i = p.nodes[k]
		}
		switch {
		case i < 0 || i >= n || i >= len(used):
			out[k] = 0 // not a node of this cluster: nothing free
		case fast:
			out[k] = c.nodes[i].CPUs - used[i]
		default:
			out[k] = c.effective(i).CPUs - used[i]
		}
	}
	return dst
}

// CountFull returns how many of nodes (indices) have no free CPU
// (FreeCPUs <= 0): one call for a list a planner checks at every job.
func (c *Cluster) CountFull(nodes []int) int {
	c.mustBeMade("CountFull")
	full := 0
	for _, i := range nodes {
		if c.effective(i).CPUs-c.use.cpus[i] <= 0 {
			full++
		}
	}
	return full
}

// FreeTotals returns the free CPUs (FreeCPUs) summed over the nodes that
// have one, and how many nodes have one, in one call: nodes is 0 exactly
// when no job asking for a CPU can start now.
func (c *Cluster) FreeTotals() (cpus, nodes int) {
	c.mustBeMade("FreeTotals")
	if !c.free.known {
		c.free.cpus, c.free.nodes = c.countFree()
		c.free.known = true
	}
	return c.free.cpus, c.free.nodes
}

// countFree is FreeTotals counted node by node.
func (c *Cluster) countFree() (cpus, nodes int) {
	fast := c.fastSchedule != 0 || c.reported == nil // the configured CPUs
	for i := range c.nodes {
		free := 0
		if fast {
			free = c.nodes[i].CPUs - c.use.cpus[i]
		} else {
			free = c.FreeCPUs(i)
		}
		if free > 0 {
			cpus += free
			nodes++
		}
	}
	return cpus, nodes
}

// HasFreeCPU reports whether some node has a free CPU (FreeCPUs > 0): a
// job asking for a CPU can start only then. The idle nodes are looked at
// first, so a cluster with an idle node answers after a few words rather
// than a scan of the nodes before it.
func (c *Cluster) HasFreeCPU() bool {
	c.mustBeMade("HasFreeCPU")
	if c.free.known {
		return c.free.nodes > 0 // the nodes with a free CPU, kept (free_totals.go)
	}
	idle := c.use.idle
	for i, ok := idle.NextSet(0); ok && int(i) < len(c.nodes); i, ok = idle.NextSet(i + 1) {
		if c.FreeCPUs(int(i)) > 0 {
			return true
		}
	}
	for i := range c.nodes {
		if c.use.jobs[i] > 0 && c.FreeCPUs(i) > 0 {
			return true
		}
	}
	return false
}

// DescendAllocations calls fn for each running allocation from the latest
// expected end to the earliest (equal ends by descending job ID), until fn
// returns false. The Placement is the cluster's: read it during the call,
// do not change or keep it (see Allocation). fn must not change the cluster.
func (c *Cluster) DescendAllocations(fn func(job JobID, end time.Time, p *Placement) bool) {
	c.mustBeMade("DescendAllocations")
	c.ends.Descend(func(k endKey) bool {
		return fn(k.id, k.end, k.p)
	})
}
