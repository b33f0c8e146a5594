package selectnodes

import (
	"math"

	"github.com/bits-and-blooms/bitset"
)

// MaxCountTerms is the most counted terms one constraint may hold.
const MaxCountTerms = 16

// cpuFor is what node i adds to the job's CPU total under v.
func cpuFor(v View, job *Job, i int) int {
	if cr, ok := v.c.selector.(ConsRes); ok {
		return cr.free(v, job, i)
	}
	return v.c.effective(i).CPUs
}

// countProblem builds the counted-terms problem for the usable nodes of
// sets; sig[k] is the terms set k's nodes satisfy.
func (c *Cluster) countProblem(job *Job, sets []NodeSet, sig []uint32, counts []countTerm, usable *bitset.BitSet, n Counts, v View) *countProblem {
	pr := &countProblem{terms: len(counts), resid: make([]int, len(counts)), room: math.MaxInt32, need: n.CPUs}
	for t, ct := range counts {
		pr.resid[t] = ct.n
	}
	nreq := c.countRequired(job, sets, sig, pr, v)
	if n.Max > 0 {
		pr.room = n.Max - nreq
	}
	cpuIx := map[int]int{}
	sigIx := map[uint32]int{}
	perCPU := []int{} // nodes of the current set per CPU index
	for k, s := range sets {
		clear(perCPU)
		for _, i := range s.rec.nodes {
			if !usable.Test(uint(i)) || (job.Required != nil && job.Required.Test(uint(i))) {
				continue
			}
			cpus := cpuFor(v, job, i)
			ix, ok := cpuIx[cpus]
			if !ok {
				ix = len(pr.cpuVals)
				cpuIx[cpus] = ix
				pr.cpuVals, pr.cpuAvail, perCPU = append(pr.cpuVals, cpus), append(pr.cpuAvail, 0), append(perCPU, 0)
			}
			pr.cpuAvail[ix]++
			perCPU[ix]++
		}
		if sig[k] == 0 {
			continue // these nodes only help reach the CPU total
		}
		si, ok := sigIx[sig[k]]
		if !ok {
			si = len(pr.sigs)
			sigIx[sig[k]] = si
			pr.sigs = append(pr.sigs, sigClass{sig: sig[k]})
		}
		for ix, cnt := range perCPU {
			if cnt > 0 {
				pr.sigs[si].groups = append(pr.sigs[si].groups, countGroup{cpus: pr.cpuVals[ix], weight: s.Weight, count: cnt, cpuIx: ix})
				pr.sigs[si].avail += cnt
			}
		}
	}
	pr.finish()
	return pr
}

// countRequired takes the required nodes off the terms' counts and the
// CPU total, and returns how many there are.
func (c *Cluster) countRequired(job *Job, sets []NodeSet, sig []uint32, pr *countProblem, v View) int {
	if job.Required == nil {
		return 0
	}
	recSig := make(map[int]uint32, len(sets))
	for k, s := range sets {
		recSig[s.Record] = sig[k]
	}
	nreq := 0
	for i, ok := job.Required.NextSet(0); ok; i, ok = job.Required.NextSet(i + 1) {
		nreq++
		pr.need -= cpuFor(v, job, int(i))
		s := recSig[int(c.recOf[i])]
		for t := range pr.resid {
			if s&(1<<t) != 0 {
				pr.resid[t]--
			}
		}
	}
	return nreq
}

// signatures returns, per set, the counted terms its nodes satisfy, and
// every candidate of the sets.
func (c *Cluster) signatures(sets []NodeSet, counts []countTerm) ([]uint32, *bitset.BitSet) {
	sig := make([]uint32, len(sets))
	candAll := bitset.New(uint(len(c.nodes)))
	for k, s := range sets {
		for t, ct := range counts {
			if ct.match(s.Features) {
				sig[k] |= 1 << t
			}
		}
		orSpan(candAll, s.cand, s.rec)
	}
	return sig, candAll
}

// coverNodes turns the solution into nodes: per signature, the nodes of
// its groups in the order the search took them, lowest weight first.
func (c *Cluster) coverNodes(job *Job, sets []NodeSet, sig []uint32, pr *countProblem, usable *bitset.BitSet, v View) *bitset.BitSet {
	type kind struct {
		sig    uint32
		cpus   int
		weight int64
	}
	want := map[kind]int{}
	for k, y := range pr.best {
		for _, g := range pr.sigs[k].groups {
			take := min(g.count, y)
			if take > 0 {
				want[kind{pr.sigs[k].sig, g.cpus, g.weight}] += take
			}
			y -= take
		}
	}
	acc := bitset.New(uint(len(c.nodes)))
	for k, s := range sets { // weight order
		if sig[k] == 0 {
			continue
		}
		for _, i := range s.rec.nodes {
			kk := kind{sig[k], cpuFor(v, job, i), s.Weight}
			if want[kk] > 0 && usable.Test(uint(i)) && (job.Required == nil || !job.Required.Test(uint(i))) {
				acc.Set(uint(i))
				want[kk]--
			}
		}
	}
	return acc
}

// classifyCounts finds why the counts cannot be met: never (node
// configuration), not with the nodes up (partition), or not now (busy).
func (c *Cluster) classifyCounts(job *Job, sets []NodeSet, sig []uint32, counts []countTerm, candAll *bitset.BitSet, n Counts) error {
	if !c.cpusWithin(job, candAll, n) {
		return c.classify(job, candAll, n)
	}
	if _, ok := c.selector.JobTest(c.none(), job, candAll, n); !ok {
		// the node counts or CPUs fail whatever the counted terms
		return c.classify(job, candAll, n)
	}
	none := c.none()
	if !c.countProblem(job, sets, sig, counts, candAll, n, none).solve() {
		return newError(ErrNodeConfig, "no choice of nodes in the partition satisfies the counted terms %s", termNames(counts))
	}
	ready := candAll.Intersection(job.availNodes)
	if !c.countProblem(job, sets, sig, counts, ready, n, none).solve() {
		return newError(ErrPartConfig, "the counted terms %s need nodes that are down or drained", termNames(counts))
	}
	return newError(ErrBusy, "the counted terms %s need nodes in use by running jobs", termNames(counts))
}
