package selectnodes

import (
	"math"
	"slices"

	"github.com/bits-and-blooms/bitset"
	"github.com/hpcsched/hpcsched/features"
	"github.com/hpcsched/hpcsched/hostlist"
)

// NodeUse is an exact share of one node: what a planner (an auction bid)
// decides. GRES lists the units taken by name and type; a GRES whose Type
// is "" is the node's untyped GRES of that name.
type NodeUse struct {
	Node   int
	CPUs   int
	Memory int64 // MB
	GRES   []GRES
}

// PlaceExact validates that uses satisfy req and fit the current load, and
// returns the Placement they describe, exactly: the nodes, CPUs, memory
// and GRES given, nothing chosen by a selector. It checks, in order:
//
//   - the request itself and its partition (as SelectNodes does);
//   - the layout: node indices in range and not repeated, no negative
//     amount, GRES the cluster knows (ErrInvalidRequest);
//   - every node against the job's per-node constraints: partition,
//     exclusions, features, CPUs, memory, disk and GRES, and that no share
//     exceeds what the node has (ErrNodeConfig);
//   - the request's shape: node counts, required nodes, contiguity, CPUs
//     per node and in total, memory per node, GRES min..max per node, one
//     matching-OR alternative for all nodes and every counted term met;
//     under Linear, whole nodes (ErrInvalidRequest);
//   - node availability: up, not drained, not withheld (ErrPartConfig);
//   - the load: the selector's sharing rules and the free CPUs, memory and
//     GRES of every node (ErrBusy).
//
// Errors are *Error values whose Reason names the node and the resource.
func (c *Cluster) PlaceExact(req *Request, uses []NodeUse) (*Placement, error) {
	c.mustBeMade("PlaceExact")
	job, n, err := c.resolveExact(req)
	if err != nil {
		return nil, err
	}
	p, err := c.exactLayout(job, uses)
	if err != nil {
		return nil, err
	}
	for k := range p.Alloc {
		if err := c.exactNode(job, &p.Alloc[k], p.Exclusive); err != nil {
			return nil, err
		}
	}
	if err := c.exactShape(job, p, n); err != nil {
		return nil, err
	}
	if err := c.exactLoad(job, p); err != nil {
		return nil, err
	}
	return p, nil
}

// exactLayout turns uses into a Placement in node index order, rejecting
// malformed layouts.
func (c *Cluster) exactLayout(job *Job, uses []NodeUse) (*Placement, error) {
	if len(uses) == 0 {
		return nil, newError(ErrInvalidRequest, "the layout names no node")
	}
	uses = slices.Clone(uses)
	slices.SortStableFunc(uses, func(a, b NodeUse) int { return a.Node - b.Node })
	_, whole := c.selector.(Linear)
	p := &Placement{Partition: job.Part.Name, Immediate: true, clusterNodes: len(c.nodes),
		Exclusive: job.Exclusive || (whole && !job.Shared)}
	p.Alloc = make([]NodeAlloc, 0, len(uses))
	p.Names = make([]string, 0, len(uses))
	for k, u := range uses {
		switch {
		case u.Node < 0 || u.Node >= len(c.nodes):
			return nil, newError(ErrInvalidRequest, "layout entry %d: node index %d is out of range [0, %d)", k, u.Node, len(c.nodes))
		case k > 0 && uses[k-1].Node == u.Node:
			return nil, newError(ErrInvalidRequest, "node %s appears twice in the layout", c.nodes[u.Node].Name)
		case u.CPUs < 0 || u.Memory < 0:
			return nil, newError(ErrInvalidRequest, "node %s: negative CPUs or memory in the layout", c.nodes[u.Node].Name)
		}
		a := NodeAlloc{Node: u.Node, CPUs: u.CPUs, Memory: u.Memory}
		for _, g := range u.GRES {
			key, known := c.gres.keyIx[gresKey{g.Name, g.Type}]
			if !known || g.Count < 0 {
				return nil, newError(ErrInvalidRequest, "node %s: GRES %s%s count %d: no node has it, or the count is negative",
					c.nodes[u.Node].Name, g.Name, typeSuffix(g.Type), g.Count)
			}
			if slices.ContainsFunc(a.GRES, func(had GRESAlloc) bool { return had.key == int32(key) }) {
				return nil, newError(ErrInvalidRequest, "node %s: the layout gives GRES %s%s twice", c.nodes[u.Node].Name, g.Name, typeSuffix(g.Type))
			}
			if g.Count > 0 {
				a.GRES = append(a.GRES, GRESAlloc{Name: g.Name, Type: g.Type, Count: g.Count, key: int32(key), slot: int32(c.gres.slot(u.Node, key))})
			}
		}
		p.Names = append(p.Names, c.nodes[u.Node].Name)
		p.Alloc = append(p.Alloc, a)
		p.Weight = satAdd64(p.Weight, c.nodes[u.Node].Weight) // weights are user numbers
	}
	return p, nil
}

// exactNode checks one node against the job's per-node constraints and
// its own size, and the share against what the request asks per node.
func (c *Cluster) exactNode(job *Job, a *NodeAlloc, exclusive bool) error {
	i, name := a.Node, c.nodes[a.Node].Name
	switch {
	case !c.parts[job.partIndex].nodes.Test(uint(i)):
		return newError(ErrNodeConfig, "node %s is not in partition %s", name, job.Part.Name)
	case job.Excluded != nil && job.Excluded.Test(uint(i)):
		return newError(ErrNodeConfig, "node %s is excluded by the request", name)
	}
	if why, ok := c.nodeFits(job, i); !ok {
		return newError(ErrNodeConfig, "node %s: %s", name, why)
	}
	eff := c.effective(i)
	switch {
	case a.CPUs > eff.CPUs:
		return newError(ErrNodeConfig, "node %s has %d CPUs, the layout gives %d", name, eff.CPUs, a.CPUs)
	case a.Memory > eff.RealMemory:
		return newError(ErrNodeConfig, "node %s has %d MB of memory, the layout gives %d", name, eff.RealMemory, a.Memory)
	case a.CPUs < job.cpusPerNode:
		return newError(ErrInvalidRequest, "node %s: the layout gives %d CPUs, the job needs at least %d per node", name, a.CPUs, job.cpusPerNode)
	case !exclusive && a.Memory < job.Req.MinMemoryPerNode:
		return newError(ErrInvalidRequest, "node %s: the layout gives %d MB, the job needs at least %d per node", name, a.Memory, job.Req.MinMemoryPerNode)
	}
	if _, whole := c.selector.(Linear); whole && a.CPUs != eff.CPUs {
		return newError(ErrInvalidRequest, "node %s: select/linear allocates whole nodes (%d CPUs), the layout gives %d", name, eff.CPUs, a.CPUs)
	}
	return c.exactGRES(job, a)
}

// exactGRES checks the node's GRES share: within the node's capacity, and
// per requested GRES within its min..max; nothing unrequested.
func (c *Cluster) exactGRES(job *Job, a *NodeAlloc) error {
	name := c.nodes[a.Node].Name
	// each count within the node's capacity first, so the sums below add
	// counts a node has, not whatever a layout says
	for _, kc := range a.GRES {
		gk := c.gres.keys[kc.key]
		capacity := int64(0)
		if kc.slot >= 0 {
			capacity = c.gres.cap[kc.slot]
		}
		if kc.Count > capacity {
			return newError(ErrNodeConfig, "node %s has %d %s%s, the layout gives %d", name, capacity, gk.name, typeSuffix(gk.typ), kc.Count)
		}
	}
	covered := make([]bool, len(a.GRES))
	for _, need := range job.gres {
		var got int64
		for g, kc := range a.GRES {
			if slices.Contains(need.keys, int(kc.key)) {
				covered[g] = true
				got = satAdd64(got, kc.Count)
			}
		}
		if got < need.min || got > need.max {
			return newError(ErrInvalidRequest, "node %s: the layout gives %d %s%s, the job asks %d..%d per node",
				name, got, need.req.Name, typeSuffix(need.req.Type), need.min, need.max)
		}
	}
	for g, kc := range a.GRES {
		if !covered[g] {
			gk := c.gres.keys[kc.key]
			return newError(ErrInvalidRequest, "node %s: the layout gives %s%s, which the job does not request", name, gk.name, typeSuffix(gk.typ))
		}
	}
	return nil
}

// exactShape checks the layout as a whole against the request.
func (c *Cluster) exactShape(job *Job, p *Placement, n Counts) error {
	req, count := job.Req, len(p.Alloc)
	switch {
	case count < n.Min:
		return newError(ErrInvalidRequest, "the layout has %d nodes, the job needs at least %d", count, n.Min)
	case n.Max > 0 && count > n.Max:
		return newError(ErrInvalidRequest, "the layout has %d nodes, the job allows at most %d", count, n.Max)
	case job.Required != nil && !subsetOf(job.Required, p.NodeSet()):
		return newError(ErrInvalidRequest, "the layout lacks required nodes %s", hostlist.Compress(c.Names(job.Required.Difference(p.NodeSet()))))
	case req.Contiguous && p.Alloc[count-1].Node-p.Alloc[0].Node != count-1:
		return newError(ErrInvalidRequest, "the job asks for contiguous nodes, the layout's are not")
	}
	total := 0
	for _, a := range p.Alloc {
		if a.CPUs > math.MaxInt-total {
			return newError(ErrInvalidRequest, "the layout's CPU total overflows")
		}
		total += a.CPUs
	}
	p.TotalCPUs = total
	if total < req.CPUs {
		return newError(ErrInvalidRequest, "the layout gives %d CPUs in total, the job needs %d", total, req.CPUs)
	}
	return c.exactFeatures(job, p)
}

// exactFeatures checks the matching-OR alternatives (one for every node)
// and the counted terms (enough nodes for each).
func (c *Cluster) exactFeatures(job *Job, p *Placement) error {
	expr := job.Req.Features
	if expr == nil {
		return nil
	}
	if alts := expr.Alternatives(); len(alts) > 0 {
		one := slices.ContainsFunc(alts, func(t features.Term) bool {
			for _, a := range p.Alloc {
				if !t.Match(c.nodes[a.Node].Features) {
					return false
				}
			}
			return true
		})
		if !one {
			return newError(ErrInvalidRequest, "the layout's nodes do not share one alternative of %s", expr)
		}
	}
	for _, ct := range expr.Counts() {
		got := 0
		for _, a := range p.Alloc {
			if ct.Term.Match(c.nodes[a.Node].Features) {
				got++
			}
		}
		if got < ct.N {
			return newError(ErrInvalidRequest, "the layout has %d nodes with %s, the counted term %s needs %d", got, ct.Term, ct, ct.N)
		}
	}
	return nil
}

// exactLoad checks availability (ErrPartConfig) and the load (ErrBusy).
func (c *Cluster) exactLoad(job *Job, p *Placement) error {
	for _, a := range p.Alloc {
		if !job.availNodes.Test(uint(a.Node)) {
			return newError(ErrPartConfig, "node %s is %s or withheld from the job", c.nodes[a.Node].Name, c.states[a.Node])
		}
	}
	v := c.live()
	fit := bitset.New(uint(len(c.nodes)))
	c.selector.Filter(v, job, p.NodeSet(), fit)
	maxShare := c.maxShareOf(p.Partition)
	for k := range p.Alloc {
		a := &p.Alloc[k]
		i, name := a.Node, c.nodes[a.Node].Name
		if !fit.Test(uint(i)) {
			return newError(ErrBusy, "node %s cannot take the job under the current load (%d jobs, %d CPUs and %d MB free)",
				name, c.use.jobs[i], c.FreeCPUs(i), c.FreeMemory(i))
		}
		capacity := c.effective(i).CPUs
		if job.Shared {
			capacity = satMul(capacity, job.MaxShare)
		}
		if c.use.cpus[i] > capacity-a.CPUs {
			return newError(ErrBusy, "node %s has %d of %d CPUs in use for this job, the layout adds %d", name, c.use.cpus[i], capacity, a.CPUs)
		}
		if err := c.fitsNode(a, p, maxShare); err != nil {
			return newError(ErrBusy, "%v", err)
		}
	}
	return nil
}

// resolveExact is what PlaceExact and Offer check before looking at any
// node, so that both refuse a request for the same reasons: the request
// resolved, not held, its partition willing and its node counts
// satisfiable.
func (c *Cluster) resolveExact(req *Request) (*Job, Counts, error) {
	if req == nil {
		return nil, Counts{}, newError(ErrInvalidRequest, "no request")
	}
	job, err := c.Resolve(req)
	if err != nil {
		return nil, Counts{}, err
	}
	if req.Held {
		return nil, Counts{}, newError(ErrHeld, "the job has priority 0")
	}
	if err := c.checkPartition(job); err != nil {
		return nil, Counts{}, err
	}
	n, err := c.nodeCounts(job)
	if err != nil {
		return nil, Counts{}, err
	}
	return job, n, nil
}
