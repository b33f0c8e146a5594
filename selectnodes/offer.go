package selectnodes

import (
	"github.com/bits-and-blooms/bitset"
	"github.com/hpcsched/hpcsched/features"
)

// Offer is what each node can give one job under the load of the cluster
// (or snapshot) it was asked of: the question a planner that decides
// exact layouts (an auction's bids) asks before it builds them, so that a
// layout made of Use entries on Nodes passes PlaceExact on that load
// whenever the request's shape (node count, CPUs in total, one
// matching-OR alternative) is met and no two layouts share a node's
// resources. It applies the pipeline's own rules: the request and its
// partition's limits, the per-node constraints of BuildNodeSets
// (partition, exclusions, features, CPUs, memory, disk, GRES),
// availability, and the selector's load filter (idle nodes only for an
// exclusive job, sharing, memory and GRES free). An Offer reads the
// cluster it came from: it is valid until that cluster's load changes (a
// Snapshot's never does). Its methods hand out new values. The zero
// Offer offers nothing.
type Offer struct {
	c      *Cluster
	job    *Job
	counts Counts
	nodes  *bitset.BitSet
	whole  bool // CPUs(i) CPUs on every node: exclusive, or Linear
	owned  bool // the placement holds its nodes alone: no memory counted
}

// Offer resolves req and returns what each node can give it now. The
// error is the one PlaceExact returns for any layout of this request:
// an invalid request, a held job, a partition that refuses it (down,
// limits, access) or node counts it cannot meet, or no node meeting
// its per-node constraints (ErrNodeConfig).
func (c *Cluster) Offer(req *Request) (*Offer, error) {
	c.mustBeMade("Offer")
	job, n, err := c.resolveExact(req)
	if err != nil {
		return nil, err
	}
	sets, err := c.buildNodeSets(&call{c: c, job: job}) // (their Features are the records': read only here)
	if err != nil {
		return nil, err
	}
	cand := sets[0].cand.Intersection(job.availNodes) // the sets share one candidate bitmap
	fit := bitset.New(uint(len(c.nodes)))
	c.selector.Filter(c.live(), job, cand, fit)
	_, linear := c.selector.(Linear)
	o := &Offer{c: c, job: job, counts: n, nodes: fit, whole: c.wholeNodes(job), owned: job.Exclusive || (linear && !job.Shared)}
	for i, ok := fit.NextSet(0); ok; i, ok = fit.NextSet(i + 1) {
		if o.cpus(int(i)) < job.cpusPerNode {
			fit.Clear(i)
		}
	}
	return o, nil
}

// Offer is Cluster.Offer on the snapshot's load.
func (s *Snapshot) Offer(req *Request) (*Offer, error) { return s.c.Offer(req) }

// Nodes is the nodes that can take the job now (a new bitmap).
func (o *Offer) Nodes() *bitset.BitSet {
	if o.c == nil {
		return bitset.New(0)
	}
	return o.nodes.Clone()
}

// Counts is the node counts a layout must meet (NodeCounts: the
// request's and the partition's limits).
func (o *Offer) Counts() Counts { return o.counts }

// Whole reports whether the job takes whole nodes (an exclusive job, or a
// whole-node selector such as Linear): a layout then gives each node
// exactly CPUs(i) CPUs.
func (o *Offer) Whole() bool { return o.whole }

// CPUsPerNode is the fewest CPUs the job takes on a node.
func (o *Offer) CPUsPerNode() int {
	if o.job == nil {
		return 1
	}
	return o.job.cpusPerNode
}

// CPUs is the most CPUs node i gives the job under the current load of
// the cluster or snapshot (placements added since the offer was made
// count): its free CPUs (more
// under oversubscription, never more than the node has), as many as its
// free memory holds at the job's memory per CPU; a whole node for a
// whole-node job. 0 for a node not in Nodes.
func (o *Offer) CPUs(i int) int {
	if o.c == nil || i < 0 || i >= len(o.c.nodes) || !o.nodes.Test(uint(i)) {
		return 0
	}
	return o.cpus(i)
}

// cpus is CPUs under the current load: it checks again what the load
// filter checked when the offer was made (memory and GRES free, room
// among sharing jobs, no exclusive holder), so an offer asked once stays
// right while placements are added to its snapshot.
func (o *Offer) cpus(i int) int {
	c, job := o.c, o.job
	eff := c.effective(i)
	switch {
	case c.use.excl[i] > 0,
		job.Shared && int(c.use.jobs[i]) >= job.MaxShare,
		!o.owned && eff.RealMemory-c.use.mem[i] < job.Req.MinMemoryPerNode,
		len(job.gres) > 0 && !c.live().gresFits(i, job):
		return 0
	}
	capacity := eff.CPUs
	if job.Shared {
		capacity = satMul(capacity, job.MaxShare)
	}
	if o.whole {
		if c.use.cpus[i] > capacity-eff.CPUs || (!o.owned && memCPUs(c.live(), job, i) < eff.CPUs) {
			return 0
		}
		return eff.CPUs
	}
	return max(0, min(capacity-c.use.cpus[i], eff.CPUs, memCPUs(c.live(), job, i)))
}

// GRES is how many units of the job's GRES request k (in Request.GRES
// order) are free on node i, of every type the request accepts.
func (o *Offer) GRES(i, k int) int64 {
	if o.c == nil || i < 0 || i >= len(o.c.nodes) || k < 0 || k >= len(o.job.gres) {
		return 0
	}
	return o.c.live().freeGRES(i, &o.job.gres[k])
}

// Alternatives is, for a request with a matching-OR feature list
// ([a|b]), the nodes of Nodes matching each alternative, in order: every
// node of a layout must match one and the same. nil otherwise.
func (o *Offer) Alternatives() []*bitset.BitSet {
	if o.job == nil {
		return nil
	}
	expr := o.job.Req.Features
	if expr == nil {
		return nil
	}
	alts := expr.Alternatives()
	if len(alts) == 0 {
		return nil
	}
	out := make([]*bitset.BitSet, len(alts))
	for k, t := range alts {
		out[k] = o.matching(t)
	}
	return out
}

func (o *Offer) matching(t features.Term) *bitset.BitSet {
	b := bitset.New(uint(len(o.c.nodes)))
	for i, ok := o.nodes.NextSet(0); ok; i, ok = o.nodes.NextSet(i + 1) {
		if t.Match(o.c.nodes[i].Features) {
			b.Set(i)
		}
	}
	return b
}

// Use is the layout entry giving the job cpus CPUs of node i and, for
// each GRES request k, gres[k] units (types taken in the cluster's key
// order, each as far as it is free): the memory is what the pipeline's
// own selection gives that many CPUs (the job's memory per node, or per
// CPU times cpus; none counted on nodes the job holds alone).
func (o *Offer) Use(i, cpus int, gres ...int64) NodeUse {
	u := NodeUse{Node: i, CPUs: cpus}
	if o.c == nil {
		return u
	}
	if !o.owned {
		u.Memory = max(o.job.Req.MinMemoryPerNode, memFor(o.job, cpus))
	}
	if i < 0 || i >= len(o.c.nodes) {
		return u
	}
	t := &o.c.gres
	for k := range min(len(gres), len(o.job.gres)) {
		want := gres[k]
		need := &o.job.gres[k]
		for s := t.off[i]; s < t.off[i+1] && want > 0; s++ {
			if !need.has(t.key[s]) {
				continue
			}
			take := min(want, t.cap[s]-o.c.use.gres[s])
			if take > 0 {
				key := t.keys[t.key[s]]
				u.GRES = append(u.GRES, GRES{Name: key.name, Type: key.typ, Count: take})
				want -= take
			}
		}
	}
	return u
}
