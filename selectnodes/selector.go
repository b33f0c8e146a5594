package selectnodes

import (
	"fmt"
	"slices"

	"github.com/bits-and-blooms/bitset"
	"github.com/hpcsched/hpcsched/topology"
)

// Selector is the selection plugin (Slurm's select_p_job_test and the load
// checks around it). The pipeline hands it candidate nodes that already
// meet the job's per-node constraints, in weight order; the selector
// decides which of them the load allows and which to take, and the
// pipeline turns its Choice into a Placement. A Selector can be written in
// any package: View and Job give it what it needs, read-only.
type Selector interface {
	// Filter writes into dst the nodes of cand that can take job under the
	// load in v. cand and dst may be the same set.
	Filter(v View, job *Job, cand, dst *bitset.BitSet)
	// JobTest picks nodes from avail (a subset of Filter's output) meeting
	// n, and each one's share; it reports false when it cannot. It must
	// include job.Required.
	JobTest(v View, job *Job, avail *bitset.BitSet, n Counts) (Choice, bool)
}

// Choice is what a selector decides: the nodes and each one's share of
// CPUs and memory. Nodes with no GRES listed get the job's requested GRES
// from the pipeline (each request's Max if free, else what is free).
// Exclusive holds the nodes for the job alone. The pipeline checks the
// choice (nodes in avail, not repeated, shares within the nodes) before it
// builds the Placement. The built-in selectors' choices live in the
// selection call's working memory, valid until their next JobTest in the
// same call: a selector wrapping one that keeps a choice across a second
// JobTest copies its Nodes first (slices.Clone).
type Choice struct {
	Nodes     []NodeUse
	Exclusive bool
}

// JobHooks is implemented by selectors that keep their own tables
// (select_p_job_begin / select_p_job_fini). Cluster.Allocate and Release
// call them after updating the cluster's own state.
type JobHooks interface {
	JobBegin(job JobID, p *Placement)
	JobFini(job JobID, p *Placement)
}

// View is the cluster as a selector sees it, read-only: the configuration
// and a load, which is the live one, a copy WillRun releases jobs from, or
// none at all for TestOnly.
type View struct {
	c  *Cluster
	u  *usage
	ex *Explanation // where selectors note decisions, when explaining
	sc *scratch     // the call's working memory, nil outside a selection call
}

// NodeCount is the number of nodes.
func (v View) NodeCount() int { return len(v.c.nodes) }

// Name is node i's name.
func (v View) Name(i int) string { return v.c.nodes[i].Name }

// Weight is node i's scheduling weight (lower is used first).
func (v View) Weight(i int) int64 { return v.c.nodes[i].Weight }

// Features are node i's features. Do not modify them.
func (v View) Features(i int) []string { return v.c.nodes[i].Features }

// CPUs is node i's CPU count as selection counts it (FastSchedule).
func (v View) CPUs(i int) int { return v.c.effective(i).CPUs }

// Idle is the idle bitmap of this view. Do not modify it.
func (v View) Idle() *bitset.BitSet { return v.u.idle }

// Share is the share bitmap of this view. Do not modify it.
func (v View) Share() *bitset.BitSet { return v.u.share }

// Jobs is the number of jobs on node i.
func (v View) Jobs(i int) int { return int(v.u.jobs[i]) }

// FreeCPUs is node i's CPUs not in use.
func (v View) FreeCPUs(i int) int { return v.c.effective(i).CPUs - v.u.cpus[i] }

// UsedCPUs is node i's CPUs in use.
func (v View) UsedCPUs(i int) int { return v.u.cpus[i] }

// FreeMemory is node i's memory (MB) not in use.
func (v View) FreeMemory(i int) int64 { return v.c.effective(i).RealMemory - v.u.mem[i] }

// GRESFits reports whether node i has free every GRES job asks for, at
// its minimum.
func (v View) GRESFits(i int, job *Job) bool { return v.gresFits(i, job) }

// Topology is the switch tree, or nil.
func (v View) Topology() *topology.Tree { return v.c.topo }

// Note records a decision in the explanation when one is being made; args
// are formatted only then.
func (v View) Note(format string, args ...any) { v.ex.step(format, args...) }

// CPUsPerNode is the least CPUs the job takes on each node (at least 1).
func (job *Job) CPUsPerNode() int { return job.cpusPerNode }

// GRES is what the job asks per node.
func (job *Job) GRES() []GRESRequest { return job.Req.GRES }

// placement checks a selector's choice and builds the Placement from it,
// in node index order.
func (v View) placement(job *Job, ch Choice, avail *bitset.BitSet, nodesOnly bool) (*Placement, *Error) {
	c := v.c
	uses := ch.Nodes
	byNode := func(a, b NodeUse) int { return a.Node - b.Node }
	if !slices.IsSortedFunc(uses, byNode) {
		uses = slices.Clone(uses) // the selector's slice stays as it was
		slices.SortFunc(uses, byNode)
	}
	p := v.newPlacement(len(uses), nodesOnly)
	p.Partition, p.Exclusive, p.Immediate, p.clusterNodes = job.Part.Name, ch.Exclusive, true, len(c.nodes)
	var slab *gresSlab
	if !nodesOnly {
		if len(job.gres) > 0 { // takeGRES takes nothing for a job without GRES
			slab = newGRESSlab(len(uses), job)
		}
	}
	for k, u := range uses {
		if err := v.checkUse(u, avail, k > 0 && uses[k-1].Node == u.Node); err != nil {
			return nil, err
		}
		p.Names = p.Names[:k+1]
		p.Names[k] = c.nodes[u.Node].Name
		p.Weight = satAdd64(p.Weight, c.nodes[u.Node].Weight) // weights are user numbers
		if nodesOnly {
			p.nodes = append(p.nodes, u.Node)
			if len(u.GRES) > 0 { // still checked, as for a placement with its Alloc
				if err := v.giveGRES(u, &NodeAlloc{}); err != nil {
					return nil, err
				}
			}
			p.TotalCPUs += u.CPUs
			continue
		}
		// filled in place: the new element is zero, so its GRES slices
		// are written only when the node has GRES (pointer writes cost
		// write barriers while the collector runs)
		p.Alloc = p.Alloc[:len(p.Alloc)+1]
		a := &p.Alloc[len(p.Alloc)-1]
		a.Node, a.CPUs, a.Memory = u.Node, u.CPUs, u.Memory
		if len(u.GRES) == 0 {
			if slab != nil {
				v.takeGRES(u.Node, job, a, slab)
			}
		} else if err := v.giveGRES(u, a); err != nil {
			return nil, err
		}
		p.TotalCPUs += a.CPUs
	}
	return p, nil
}

// checkUse rejects a node a selector may not have chosen.
func (v View) checkUse(u NodeUse, avail *bitset.BitSet, repeated bool) *Error {
	switch {
	case u.Node < 0 || u.Node >= len(v.c.nodes) || !avail.Test(uint(u.Node)):
		return selectorError("chose node %d, which is not among the available nodes", u.Node)
	case repeated:
		return selectorError("chose node %s twice", v.c.nodes[u.Node].Name)
	case u.CPUs < 0 || u.CPUs > v.CPUs(u.Node) || u.Memory < 0 || u.Memory > v.c.effective(u.Node).RealMemory:
		return selectorError("gave node %s %d CPUs and %d MB, outside what it has", v.c.nodes[u.Node].Name, u.CPUs, u.Memory)
	}
	return nil
}

// giveGRES takes the GRES a selector listed for a node.
func (v View) giveGRES(u NodeUse, a *NodeAlloc) *Error {
	for _, g := range u.GRES {
		key, ok := v.c.gres.keyIx[gresKey{g.Name, g.Type}]
		slot := -1
		if ok {
			slot = v.c.gres.slot(u.Node, key)
		}
		if slot < 0 || g.Count < 0 || g.Count > v.c.gres.cap[slot]-v.u.gres[slot] {
			return selectorError("gave node %s %d %s%s, which it does not have free", v.c.nodes[u.Node].Name, g.Count, g.Name, typeSuffix(g.Type))
		}
		a.GRES = append(a.GRES, GRESAlloc{Name: g.Name, Type: g.Type, Count: g.Count, key: int32(key), slot: int32(slot)})
	}
	return nil
}

// selectorError is a selector breaking its contract: a bug in the
// selector, reported as an invalid request rather than a panic.
func selectorError(format string, args ...any) *Error {
	return newError(ErrInvalidRequest, "the selector %s", fmt.Sprintf(format, args...))
}

// uses turns chosen nodes and a CPU share per node into a Choice, in
// the view's scratch when it has one (see scratch).
func uses(v View, chosen []int, cpus func(i int) int, memory int64, exclusive bool) Choice {
	ch := Choice{Nodes: v.sc.nodeUses(len(chosen)), Exclusive: exclusive}
	for k, i := range chosen {
		u := &ch.Nodes[k] // field by field, as ConsRes.choice does
		u.Node, u.CPUs, u.Memory = i, cpus(i), memory
		if u.GRES != nil {
			u.GRES = nil
		}
	}
	return ch
}

// loadFilter is how the built-in selectors filter by load: the nodes of
// a mask, less the busy ones without room. The pipeline applies it word
// range by word range (filterSpan), so a selection that stops at its
// first node sets filters only their spans of the cluster.
type loadFilter interface {
	mask(v View, job *Job) *bitset.BitSet
	dropBusy(v View, job *Job, dst *bitset.BitSet, lo, hi int)
}

// builtinFilter is the selector's loadFilter when it is a built-in one
// itself: a type embedding Linear or ConsRes has their methods too but
// may have its own Filter, which must then be the one called.
func builtinFilter(s Selector) (loadFilter, bool) {
	switch f := s.(type) {
	case Linear:
		return f, true
	case *Linear:
		return *f, true
	case ConsRes:
		return f, true
	case *ConsRes:
		return *f, true
	}
	return nil, false
}

// filterAll is Selector.Filter for a loadFilter.
func filterAll(f loadFilter, v View, job *Job, cand, dst *bitset.BitSet) {
	andInto(dst, cand, f.mask(v, job))
	f.dropBusy(v, job, dst, 0, len(dst.Words()))
}

// filterSpan is filterAll on the words [lo, hi) of the bitmaps only.
func filterSpan(f loadFilter, v View, job *Job, cand, dst *bitset.BitSet, lo, hi int) {
	andSpan(dst, cand, f.mask(v, job), lo, hi)
	f.dropBusy(v, job, dst, lo, hi)
}
