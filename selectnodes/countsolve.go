package selectnodes

import (
	"cmp"
	"math"
	"math/bits"
	"slices"
)

// The counted-terms problem: choose y[s] nodes of each signature s (the
// set of counted terms a node satisfies) so that every term t has resid[t]
// chosen nodes satisfying it, with at most room nodes in all, such that the
// job's CPU total stays reachable when the rest of the room is filled with
// the usable nodes having the most CPUs, at the least total weight.
//
// Nodes are aggregated into groups of equal signature, CPU count and
// weight, so the problem's size is the number of distinct node kinds, not
// nodes. It is decided in three steps, each bounded:
//
//  1. Bounds that need no search: a term with fewer usable nodes than its
//     count, more nodes than room for the largest count, or a CPU total
//     the room cannot reach even with the nodes having the most CPUs.
//  2. A depth-first search over signatures (most terms first), taking the
//     cheapest nodes of each, pruned by cost, by the nodes each term still
//     needs and by the CPUs still reachable; it returns the cheapest cover.
//  3. When the job has a CPU total and step 2 finds no cover within its
//     budget, the same search taking the nodes with the most CPUs first,
//     which finds a cover whenever one exists (a cover can always trade a
//     node for one of its signature with more CPUs).
//
// Both searches have a step budget (costSearchBudget, cpuSearchBudget);
// only constraints with many overlapping terms can exhaust them, and then
// a greedy cover is tried. Every buffer is allocated once per problem.
const (
	costSearchBudget = 1 << 13
	cpuSearchBudget  = 1 << 15
)

// countGroup is usable nodes of one signature with equal CPUs and weight.
type countGroup struct {
	cpus   int
	weight int64
	count  int
	cpuIx  int // index into countProblem.cpuVals
}

// sigClass is every usable node of one signature.
type sigClass struct {
	sig    uint32
	avail  int
	groups []countGroup // in the order the current search takes them
}

type countProblem struct {
	terms    int
	resid    []int // nodes still needed per term
	room     int   // nodes still allowed
	need     int   // CPUs still needed
	sigs     []sigClass
	cpuVals  []int // distinct CPU counts of usable nodes, descending
	cpuAvail []int // usable nodes per CPU count, every signature

	// search state
	taken     []int // nodes taken per CPU count
	y, best   []int
	residAt   []int   // residuals per depth: (len(sigs)+1) * terms
	remain    []int   // nodes satisfying t in sigs k..: (len(sigs)+1) * terms
	minWeight []int64 // the least node weight in sigs k..
	steps     int
	budget    int
	exhausted bool
	firstOnly bool
	bestCost  int64
	bestNodes int
}

// finish orders the problem after its groups are added: CPU counts
// descending, signatures with more terms first, and the bounds per depth.
func (pr *countProblem) finish() {
	order := make([]int, len(pr.cpuVals))
	for k := range order {
		order[k] = k
	}
	slices.SortFunc(order, func(a, b int) int { return pr.cpuVals[b] - pr.cpuVals[a] })
	rank := make([]int, len(order))
	vals, avail := make([]int, len(order)), make([]int, len(order))
	for r, k := range order {
		rank[k], vals[r], avail[r] = r, pr.cpuVals[k], pr.cpuAvail[k]
	}
	pr.cpuVals, pr.cpuAvail = vals, avail
	for s := range pr.sigs {
		sc := &pr.sigs[s]
		for g := range sc.groups {
			sc.groups[g].cpuIx = rank[sc.groups[g].cpuIx]
		}
		sc.groups = mergeGroups(sc.groups)
	}
	slices.SortStableFunc(pr.sigs, func(a, b sigClass) int {
		if pa, pb := bits.OnesCount32(a.sig), bits.OnesCount32(b.sig); pa != pb {
			return pb - pa
		}
		return int(a.sig) - int(b.sig)
	})
	K, T := len(pr.sigs), pr.terms
	pr.taken, pr.y = make([]int, len(pr.cpuVals)), make([]int, K)
	pr.residAt, pr.remain = make([]int, (K+1)*T), make([]int, (K+1)*T)
	pr.minWeight = make([]int64, K+1)
	pr.minWeight[K] = math.MaxInt64
	for k := K - 1; k >= 0; k-- {
		pr.minWeight[k] = pr.minWeight[k+1]
		for _, g := range pr.sigs[k].groups {
			pr.minWeight[k] = min(pr.minWeight[k], g.weight)
		}
		for t := 0; t < T; t++ {
			pr.remain[k*T+t] = pr.remain[(k+1)*T+t]
			if pr.sigs[k].sig&(1<<t) != 0 {
				pr.remain[k*T+t] += pr.sigs[k].avail
			}
		}
	}
}

// mergeGroups merges groups of equal CPUs and weight.
func mergeGroups(gs []countGroup) []countGroup {
	slices.SortFunc(gs, func(a, b countGroup) int {
		if a.cpus != b.cpus {
			return b.cpus - a.cpus
		}
		return cmp.Compare(a.weight, b.weight)
	})
	out := gs[:0]
	for _, g := range gs {
		if n := len(out); n > 0 && out[n-1].cpus == g.cpus && out[n-1].weight == g.weight {
			out[n-1].count += g.count
			continue
		}
		out = append(out, g)
	}
	return out
}

// orderGroups sets the order nodes of a signature are taken in: cheapest
// first (most CPUs among equals), or most CPUs first.
func (pr *countProblem) orderGroups(byCPUs bool) {
	for s := range pr.sigs {
		slices.SortStableFunc(pr.sigs[s].groups, func(a, b countGroup) int {
			if byCPUs && a.cpus != b.cpus {
				return b.cpus - a.cpus
			}
			if a.weight != b.weight {
				return cmp.Compare(a.weight, b.weight)
			}
			return b.cpus - a.cpus
		})
	}
}

// solve reports whether a cover exists and leaves it in pr.best.
func (pr *countProblem) solve() bool {
	if !pr.bounded() {
		return false
	}
	pr.orderGroups(false)
	if pr.search(costSearchBudget, false) {
		return true
	}
	if pr.need <= 0 {
		// without a CPU total the order of nodes within a signature does
		// not matter: the first search was the whole one
		return pr.exhausted && pr.greedy()
	}
	pr.orderGroups(true)
	if pr.search(cpuSearchBudget, true) {
		return true
	}
	return pr.exhausted && pr.greedy()
}

// bounded applies the checks that need no search.
func (pr *countProblem) bounded() bool {
	T := pr.terms
	maxR := 0
	for t := 0; t < T; t++ {
		if pr.resid[t] > pr.remain[t] {
			return false
		}
		maxR = max(maxR, pr.resid[t])
	}
	return maxR <= pr.room && (pr.need <= 0 || pr.fill(pr.room) >= pr.need)
}

func (pr *countProblem) search(budget int, firstOnly bool) bool {
	pr.steps, pr.budget, pr.exhausted, pr.firstOnly = 0, budget, false, firstOnly
	pr.best, pr.bestCost, pr.bestNodes = nil, math.MaxInt64, math.MaxInt
	clear(pr.taken)
	clear(pr.y)
	copy(pr.residAt, pr.resid)
	pr.dfs(0, 0, 0, 0)
	return pr.best != nil
}

// fill is the most CPUs slots more untaken nodes can add.
func (pr *countProblem) fill(slots int) int {
	sum := 0
	for i := 0; i < len(pr.cpuVals) && slots > 0; i++ {
		take := min(pr.cpuAvail[i]-pr.taken[i], slots)
		sum += take * pr.cpuVals[i]
		slots -= take
	}
	return sum
}

// take adds (sign 1) or removes (sign -1) y nodes of signature k in the
// current order, returning their CPUs and weight.
func (pr *countProblem) take(k, y, sign int) (cpus int, cost int64) {
	for _, g := range pr.sigs[k].groups {
		if y == 0 {
			break
		}
		t := min(g.count, y)
		pr.taken[g.cpuIx] += sign * t
		cpus += t * g.cpus
		cost = satAdd64(cost, satMul64(int64(t), g.weight))
		y -= t
	}
	return cpus, cost
}

func (pr *countProblem) dfs(k, used, cpus int, cost int64) {
	if pr.steps++; pr.steps > pr.budget {
		pr.exhausted = true
		return
	}
	T := pr.terms
	r := pr.residAt[k*T : (k+1)*T]
	maxR, sumR := 0, 0
	for t := 0; t < T; t++ {
		if r[t] > pr.remain[k*T+t] {
			return
		}
		maxR, sumR = max(maxR, r[t]), sumR+r[t]
	}
	// at least this many more nodes: each covers at most as many terms as
	// the next signature (they come most terms first)
	more := maxR
	if k < len(pr.sigs) && sumR > 0 {
		pop := bits.OnesCount32(pr.sigs[k].sig)
		more = max(more, (sumR+pop-1)/pop)
	}
	lb := cost
	if more > 0 {
		lb = satAdd64(cost, satMul64(int64(more), pr.minWeight[k]))
	}
	switch {
	case used+more > pr.room:
		return
	case lb > pr.bestCost || (lb == pr.bestCost && used+more >= pr.bestNodes):
		return
	case pr.need > 0 && cpus+pr.fill(pr.room-used) < pr.need:
		return
	case maxR == 0:
		pr.best, pr.bestCost, pr.bestNodes = append(pr.best[:0], pr.y...), cost, used
		return
	case k == len(pr.sigs):
		return
	}
	s := &pr.sigs[k]
	hi := 0
	for t := 0; t < T; t++ {
		if s.sig&(1<<t) != 0 {
			hi = max(hi, r[t])
		}
	}
	next := pr.residAt[(k+1)*T : (k+2)*T]
	for yk := min(hi, s.avail, pr.room-used); yk >= 0; yk-- {
		for t := 0; t < T; t++ {
			next[t] = r[t]
			if s.sig&(1<<t) != 0 {
				next[t] = max(r[t]-yk, 0)
			}
		}
		dc, dcost := pr.take(k, yk, 1)
		pr.y[k] = yk
		pr.dfs(k+1, used+yk, cpus+dc, satAdd64(cost, dcost))
		pr.take(k, yk, -1)
		if pr.exhausted || (pr.firstOnly && pr.best != nil) {
			break
		}
	}
	pr.y[k] = 0
}

// greedy covers the terms signature by signature in search order; used
// only when the searches ran out of budget.
func (pr *countProblem) greedy() bool {
	T := pr.terms
	r := slices.Clone(pr.resid)
	clear(pr.taken)
	used, cpus := 0, 0
	for k := range pr.sigs {
		hi := 0
		for t := 0; t < T; t++ {
			if pr.sigs[k].sig&(1<<t) != 0 {
				hi = max(hi, r[t])
			}
		}
		pr.y[k] = min(hi, pr.sigs[k].avail, pr.room-used)
		dc, _ := pr.take(k, pr.y[k], 1)
		used, cpus = used+pr.y[k], cpus+dc
		for t := 0; t < T; t++ {
			if pr.sigs[k].sig&(1<<t) != 0 {
				r[t] = max(r[t]-pr.y[k], 0)
			}
		}
	}
	if slices.Max(append(r, 0)) > 0 || (pr.need > 0 && cpus+pr.fill(pr.room-used) < pr.need) {
		return false
	}
	pr.best = slices.Clone(pr.y)
	return true
}

func satAdd64(a, b int64) int64 {
	if a > math.MaxInt64-b {
		return math.MaxInt64
	}
	return a + b
}

func satMul64(a, b int64) int64 {
	if a != 0 && b > math.MaxInt64/a {
		return math.MaxInt64
	}
	return a * b
}
