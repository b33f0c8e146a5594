package selectnodes

import (
	"math"
	"math/bits"
	"slices"

	"github.com/bits-and-blooms/bitset"
	"github.com/hpcsched/hpcsched/hostlist"
)

const (
	// MaxCountTerms is the most counted terms one constraint may hold.
	MaxCountTerms = 16
	// countSearchBudget bounds the exact count search; past it the best
	// assignment found so far is used, or a greedy one.
	countSearchBudget = 1 << 18
)

// countClass is every usable node with the same signature (the counted
// terms it satisfies) and the same CPU count, cheapest first. Classes of
// signature 0 satisfy no term; they only help reach the CPU total.
type countClass struct {
	sig    uint32
	cpus   int
	groups []weightGroup // ascending weight
	avail  int
}

type weightGroup struct {
	weight int64
	count  int
}

// cost of the y cheapest nodes of the class.
func (cl *countClass) cost(y int) int64 {
	var c int64
	for _, g := range cl.groups {
		if y <= 0 {
			break
		}
		take := min(y, g.count)
		c += int64(take) * g.weight
		y -= take
	}
	return c
}

// countProblem: choose y[k] nodes of class k so that every term t has
// resid[t] nodes satisfying it, at most room nodes, and the CPU total
// stays reachable, at the least total weight.
type countProblem struct {
	resid   []int
	classes []countClass // the first branch classes have a signature
	branch  int
	room    int
	cpus    int // CPUs still needed beyond the required nodes
}

// cpuFor is what node i adds to the job's CPU total under v.
func cpuFor(v View, job *Job, i int) int {
	if cr, ok := v.c.selector.(ConsRes); ok {
		return cr.free(v, job, i)
	}
	return v.c.effective(i).CPUs
}

func (c *Cluster) countProblem(job *Job, sets []NodeSet, sig []uint32, counts []countTerm, usable *bitset.BitSet, n Counts, v View) *countProblem {
	pr := &countProblem{resid: make([]int, len(counts)), room: math.MaxInt32, cpus: n.CPUs}
	for t, ct := range counts {
		pr.resid[t] = ct.n
	}
	recSig := make(map[int]uint32, len(sets))
	for k, s := range sets {
		recSig[s.Record] = sig[k]
	}
	nreq := 0
	if job.Required != nil {
		for i, ok := job.Required.NextSet(0); ok; i, ok = job.Required.NextSet(i + 1) {
			nreq++
			pr.cpus -= cpuFor(v, job, int(i))
			s := recSig[int(c.recOf[i])]
			for t := range counts {
				if s&(1<<t) != 0 {
					pr.resid[t]--
				}
			}
		}
	}
	if n.Max > 0 {
		pr.room = n.Max - nreq
	}
	type key struct {
		sig  uint32
		cpus int
	}
	byKey := map[key]int{}
	for _, s := range sets {
		for _, i := range s.rec.nodes {
			if !usable.Test(uint(i)) || (job.Required != nil && job.Required.Test(uint(i))) {
				continue
			}
			k := key{recSig[s.Record], cpuFor(v, job, i)}
			ci, ok := byKey[k]
			if !ok {
				ci = len(pr.classes)
				byKey[k] = ci
				pr.classes = append(pr.classes, countClass{sig: k.sig, cpus: k.cpus})
			}
			cl := &pr.classes[ci]
			if g := len(cl.groups) - 1; g >= 0 && cl.groups[g].weight == s.Weight {
				cl.groups[g].count++ // sets come in weight order
			} else {
				cl.groups = append(cl.groups, weightGroup{s.Weight, 1})
			}
			cl.avail++
		}
	}
	// Classes covering more terms first, then cheaper, then more CPUs: good
	// assignments are found early and bound the rest of the search.
	slices.SortStableFunc(pr.classes, func(a, b countClass) int {
		if pa, pb := bits.OnesCount32(a.sig), bits.OnesCount32(b.sig); pa != pb {
			return pb - pa
		}
		if a.groups[0].weight != b.groups[0].weight {
			return int(a.groups[0].weight - b.groups[0].weight)
		}
		return b.cpus - a.cpus
	})
	for pr.branch < len(pr.classes) && pr.classes[pr.branch].sig != 0 {
		pr.branch++
	}
	return pr
}

// cpusReachable reports whether, after taking y[k] nodes of each class,
// the remaining room can still bring the CPU total up, taking the nodes
// with the most CPUs first.
func (pr *countProblem) cpusReachable(y []int, used int) bool {
	need := pr.cpus
	for k, yk := range y {
		need -= yk * pr.classes[k].cpus
	}
	if need <= 0 {
		return true
	}
	left := make([]int, len(pr.classes))
	for k := range pr.classes {
		left[k] = pr.classes[k].avail
		if k < len(y) {
			left[k] -= y[k]
		}
	}
	order := make([]int, len(pr.classes))
	for k := range order {
		order[k] = k
	}
	slices.SortStableFunc(order, func(a, b int) int { return pr.classes[b].cpus - pr.classes[a].cpus })
	slots := pr.room - used
	for _, k := range order {
		take := min(left[k], slots)
		need -= take * pr.classes[k].cpus
		slots -= take
		if need <= 0 {
			return true
		}
	}
	return false
}

// solve returns y per branch class, or false when no assignment exists
// (or none was found within the search budget and the greedy fallback
// failed).
func (pr *countProblem) solve() ([]int, bool) {
	K, T := pr.branch, len(pr.resid)
	// remain[k][t]: nodes satisfying t in classes k.. — a bound for pruning.
	remain := make([][]int, K+1)
	remain[K] = make([]int, T)
	for k := K - 1; k >= 0; k-- {
		remain[k] = slices.Clone(remain[k+1])
		for t := 0; t < T; t++ {
			if pr.classes[k].sig&(1<<t) != 0 {
				remain[k][t] += pr.classes[k].avail
			}
		}
	}
	resid := make([][]int, K+1)
	for k := range resid {
		resid[k] = make([]int, T)
	}
	copy(resid[0], pr.resid)
	y := make([]int, K)
	var best []int
	bestCost, bestNodes := int64(math.MaxInt64), math.MaxInt
	steps := 0
	var dfs func(k, used int, cost int64)
	dfs = func(k, used int, cost int64) {
		if steps++; steps > countSearchBudget {
			return
		}
		r := resid[k]
		maxResid := 0
		for t := 0; t < T; t++ {
			if r[t] > remain[k][t] {
				return
			}
			maxResid = max(maxResid, r[t])
		}
		if cost > bestCost || (cost == bestCost && used >= bestNodes) || used+maxResid > pr.room {
			return
		}
		if maxResid == 0 {
			if pr.cpusReachable(y, used) {
				best, bestCost, bestNodes = slices.Clone(y), cost, used
				return
			}
			// covered, but the CPUs need other choices: keep looking
		}
		if k == K {
			return
		}
		cl := &pr.classes[k]
		hi := 0
		for t := 0; t < T; t++ {
			if cl.sig&(1<<t) != 0 {
				hi = max(hi, r[t])
			}
		}
		if pr.cpus > 0 {
			hi = cl.avail // more nodes of a class may be needed for the CPUs
		}
		hi = min(hi, cl.avail, pr.room-used)
		for yk := hi; yk >= 0; yk-- {
			next := resid[k+1]
			for t := 0; t < T; t++ {
				next[t] = r[t]
				if cl.sig&(1<<t) != 0 {
					next[t] -= yk
				}
			}
			y[k] = yk
			dfs(k+1, used+yk, cost+cl.cost(yk))
		}
		y[k] = 0
	}
	dfs(0, 0, 0)
	if best != nil {
		return best, true
	}
	if steps > countSearchBudget {
		return pr.greedy()
	}
	return nil, false
}

// greedy covers the terms class by class in solve's order; used only when
// the exact search ran out of budget without an answer.
func (pr *countProblem) greedy() ([]int, bool) {
	r := slices.Clone(pr.resid)
	y := make([]int, pr.branch)
	used := 0
	for k, cl := range pr.classes[:pr.branch] {
		hi := 0
		for t := range r {
			if cl.sig&(1<<t) != 0 {
				hi = max(hi, r[t])
			}
		}
		y[k] = min(hi, cl.avail, pr.room-used)
		used += y[k]
		for t := range r {
			if cl.sig&(1<<t) != 0 {
				r[t] -= y[k]
			}
		}
	}
	for _, v := range r {
		if v > 0 {
			return nil, false
		}
	}
	return y, pr.cpusReachable(y, used)
}

// exactCounts chooses nodes for the counted terms by solving the covering
// problem over node classes exactly, so a satisfiable request is never
// rejected (the defect of seed 000 §3.3), and cheaply by weight.
func (c *Cluster) exactCounts(job *Job, sets []NodeSet, n Counts, counts []countTerm, v View, mode Mode, ex *Explanation) (*bitset.BitSet, error) {
	if len(counts) > MaxCountTerms {
		return nil, newError(ErrInvalidRequest, "%d counted terms, at most %d are supported", len(counts), MaxCountTerms)
	}
	N := uint(len(c.nodes))
	sig := make([]uint32, len(sets))
	candAll := bitset.New(N)
	for k, s := range sets {
		for t, ct := range counts {
			if ct.match(s.Features) {
				sig[k] |= 1 << t
			}
		}
		orSpan(candAll, s.cand, s.rec)
	}
	usable := bitset.New(N)
	c.usable(job, candAll, v, mode, usable)
	pr := c.countProblem(job, sets, sig, counts, usable, n, v)
	y, ok := pr.solve()
	if !ok {
		if c.quick {
			return nil, newError(ErrBusy, "the counted terms do not fit")
		}
		return nil, c.classifyCounts(job, sets, sig, counts, candAll, n)
	}
	type key struct {
		sig  uint32
		cpus int
	}
	want := map[key]int{}
	for k := range y {
		want[key{pr.classes[k].sig, pr.classes[k].cpus}] = y[k]
	}
	acc := bitset.New(N)
	for k, s := range sets { // weight order: the cheapest nodes of each class
		if sig[k] == 0 {
			continue
		}
		for _, i := range s.rec.nodes {
			kk := key{sig[k], cpuFor(v, job, i)}
			if want[kk] > 0 && usable.Test(uint(i)) && (job.Required == nil || !job.Required.Test(uint(i))) {
				acc.Set(uint(i))
				want[kk]--
			}
		}
	}
	if ex != nil {
		ex.step("counted terms solved exactly: %s", hostlist.Compress(c.Names(acc)))
	}
	return acc, nil
}

// classifyCounts finds why the counts cannot be met: never (node
// configuration), not with the nodes up (partition), or not now (busy).
func (c *Cluster) classifyCounts(job *Job, sets []NodeSet, sig []uint32, counts []countTerm, candAll *bitset.BitSet, n Counts) error {
	if _, ok := c.selector.JobTest(c.none(), job, candAll, n); !ok {
		// the node counts or CPUs fail whatever the counted terms
		return c.classify(job, candAll, n)
	}
	none := c.none()
	if _, ok := c.countProblem(job, sets, sig, counts, candAll, n, none).solve(); !ok {
		return newError(ErrNodeConfig, "no choice of nodes in the partition satisfies the counted terms %s", termNames(counts))
	}
	ready := candAll.Intersection(job.availNodes)
	if _, ok := c.countProblem(job, sets, sig, counts, ready, n, none).solve(); !ok {
		return newError(ErrPartConfig, "the counted terms %s need nodes that are down or drained", termNames(counts))
	}
	return newError(ErrBusy, "the counted terms %s need nodes in use by running jobs", termNames(counts))
}

func termNames(counts []countTerm) string {
	s := ""
	for k, ct := range counts {
		if k > 0 {
			s += "&"
		}
		s += ct.name
	}
	return s
}
