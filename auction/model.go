package auction

import (
	"cmp"
	"slices"
)

// model is the solver's compact form of a Problem: bids with a positive
// value only (a bid worth nothing never helps), and only the binding
// resources — a node's cores or GPUs that the window could over-ask. A
// resource no combination of bids can overfill is dropped, so most of the
// machine vanishes from the search.
type model struct {
	jobs     []mjob
	value    []float64 // per bid
	useStart []int32   // bid b's uses are useRes/useAmt[useStart[b]:useStart[b+1]]
	useRes   []int32   // compact resource index
	useAmt   []int32
	useAmtF  []float64 // useAmt as floats, for pricing's inner loop
	capacity []int32   // per compact resource
	origBid  []int32   // bid -> index in its Problem job
	jobOf    []int32   // bid -> model job
	resJobs  [][]int32 // resource -> jobs with a bid on it
	mem      *modelMem // where its lists come from (nil: allocated)
}

type mjob struct {
	orig       int   // index in Problem.Jobs
	first, end int32 // bids first..end-1
	best       float64
}

// resource index of node n's cores (2n) and GPUs (2n+1).
func coreRes(n int) int { return 2 * n }
func gpuRes(n int) int  { return 2*n + 1 }

func buildModel(p *Problem) *model { return buildModelIn(p, nil) }

// buildModelIn is buildModel with the model's use lists from mem (nil:
// allocated afresh).
func buildModelIn(p *Problem, mem *modelMem) *model {
	capacity := make([]int32, 2*len(p.Nodes))
	for n, nd := range p.Nodes {
		capacity[coreRes(n)] = int32(nd.CPUs)
		capacity[gpuRes(n)] = int32(nd.GPUs)
	}
	// demand[r]: what the window asks of r at most (one bid per job).
	demand := make([]int64, len(capacity))
	big := make([]int32, len(capacity)) // jobs asking more than half of r
	jobMax := make([]int32, len(capacity))
	touched := []int{}
	positive := 0     // bids worth something
	positiveUses := 0 // their uses
	for j := range p.Jobs {
		for i := range p.Jobs[j].Bids {
			if p.Value(j, i) <= 0 {
				continue
			}
			positive++
			positiveUses += len(p.Jobs[j].Bids[i].Uses)
			for _, u := range p.Jobs[j].Bids[i].Uses {
				for k, a := range [2]int{coreRes(u.Node), gpuRes(u.Node)} {
					amt := int32(u.Cores)
					if k == 1 {
						amt = int32(u.GPUs)
					}
					if amt > jobMax[a] {
						if jobMax[a] == 0 {
							touched = append(touched, a)
						}
						jobMax[a] = amt
					}
				}
			}
		}
		for _, a := range touched {
			demand[a] += int64(jobMax[a])
			if 2*jobMax[a] > capacity[a] {
				big[a]++
			}
			jobMax[a] = 0
		}
		touched = touched[:0]
	}
	compact := make([]int32, len(capacity))
	m := &model{value: make([]float64, 0, positive), origBid: make([]int32, 0, positive),
		jobOf: make([]int32, 0, positive), useStart: make([]int32, 0, positive+1), mem: mem}
	for r := range capacity {
		compact[r] = -1
		if demand[r] > int64(capacity[r]) {
			compact[r] = int32(len(m.capacity))
			m.capacity = append(m.capacity, capacity[r])
		}
	}
	// Conflict cliques (clique.go) tighten the bound; past maxCliqueBids
	// only half cliques do: bids taking more than half of a resource
	// exclude each other, a valid row x_a + x_b + ... <= 1 that the
	// capacity row alone implies only for integers (two bids of 10 cores
	// on a 16-core node can each be taken 0.8 in the LP).
	useConflicts := positive <= maxCliqueBids
	clique := make([]int32, len(capacity))
	for r := range capacity {
		clique[r] = -1
		if compact[r] >= 0 && big[r] >= 2 && !useConflicts {
			clique[r] = int32(len(m.capacity))
			m.capacity = append(m.capacity, 1)
		}
	}
	// A use records at most its cores and its GPUs, so memory handed on
	// from solve to solve (mem) is sized by that bound and need not be
	// counted exactly; with half cliques, or allocated afresh, the lists
	// are sized by the count.
	uses := 2 * positiveUses
	if mem == nil || !useConflicts {
		uses = modelUses(p, compact, clique, capacity)
	}
	m.useRes, m.useAmt, m.useAmtF = mem.lists(0, uses)
	m.resJobs = make([][]int32, len(m.capacity))
	m.useStart = append(m.useStart, 0)
	seen := make([]int32, len(m.capacity)) // 1 + the last model job that listed the resource
	for j := range p.Jobs {
		m.addJob(p, j, compact, clique, capacity, seen)
	}
	if useConflicts {
		m.addCliques(m.conflictCliques(), mem)
	}
	return m
}

// modelUses is how many uses addJob will record: a problem's bids use
// hundreds of nodes each, of which the model keeps the few binding
// resources, so sizing the lists by the bids' uses would allocate many
// times what they hold.
func modelUses(p *Problem, compact, clique, capacity []int32) int {
	n := 0
	count := func(r int, amt int) {
		if compact[r] >= 0 && amt > 0 {
			n++
			if clique[r] >= 0 && 2*int32(amt) > capacity[r] {
				n++
			}
		}
	}
	for j := range p.Jobs {
		for i := range p.Jobs[j].Bids {
			if p.Value(j, i) <= 0 {
				continue
			}
			for _, u := range p.Jobs[j].Bids[i].Uses {
				count(coreRes(u.Node), u.Cores)
				count(gpuRes(u.Node), u.GPUs)
			}
		}
	}
	return n
}

// addJob adds job j's bids worth something; seen is addJob's scratch, one
// entry per compact resource, kept across calls (a map per job was a
// tenth of a planner pass).
func (m *model) addJob(p *Problem, j int, compact, clique, capacity, seen []int32) {
	mj := mjob{orig: j, first: int32(len(m.value))}
	k := int32(len(m.jobs))
	for i := range p.Jobs[j].Bids {
		v := p.Value(j, i)
		if v <= 0 {
			continue
		}
		for _, u := range p.Jobs[j].Bids[i].Uses {
			m.addUse(coreRes(u.Node), int32(u.Cores), compact, clique, capacity)
			m.addUse(gpuRes(u.Node), int32(u.GPUs), compact, clique, capacity)
		}
		m.value = append(m.value, v)
		m.origBid = append(m.origBid, int32(i))
		m.jobOf = append(m.jobOf, k)
		m.useStart = append(m.useStart, int32(len(m.useRes)))
		mj.best = max(mj.best, v)
	}
	mj.end = int32(len(m.value))
	if mj.end == mj.first {
		return // no bid worth anything: the job is never chosen
	}
	for b := mj.first; b < mj.end; b++ {
		for _, r := range m.res(b) {
			if seen[r] != k+1 {
				seen[r] = k + 1
				m.resJobs[r] = append(m.resJobs[r], k)
			}
		}
	}
	m.jobs = append(m.jobs, mj)
}

// addUse records amt of original resource r for the bid being built, and
// its half-clique row when amt is more than half of r.
func (m *model) addUse(r int, amt int32, compact, clique, capacity []int32) {
	if compact[r] < 0 || amt <= 0 {
		return
	}
	m.useRes = append(m.useRes, compact[r])
	m.useAmt = append(m.useAmt, amt)
	m.useAmtF = append(m.useAmtF, float64(amt))
	if clique[r] >= 0 && 2*amt > capacity[r] {
		m.useRes = append(m.useRes, clique[r])
		m.useAmt = append(m.useAmt, 1)
		m.useAmtF = append(m.useAmtF, 1)
	}
}

func (m *model) res(b int32) []int32 { return m.useRes[m.useStart[b]:m.useStart[b+1]] }
func (m *model) amt(b int32) []int32 { return m.useAmt[m.useStart[b]:m.useStart[b+1]] }

func (m *model) amtF(b int32) []float64 { return m.useAmtF[m.useStart[b]:m.useStart[b+1]] }

// fits reports whether bid b fits the residual capacities.
func (m *model) fits(b int32, resid []int32) bool {
	rs, as := m.res(b), m.amt(b)
	for k, r := range rs {
		if resid[r] < as[k] {
			return false
		}
	}
	return true
}

func (m *model) take(b int32, resid []int32) {
	rs, as := m.res(b), m.amt(b)
	for k, r := range rs {
		resid[r] -= as[k]
	}
}

func (m *model) give(b int32, resid []int32) {
	rs, as := m.res(b), m.amt(b)
	for k, r := range rs {
		resid[r] += as[k]
	}
}

// components splits the jobs into groups that share no binding resource;
// each group is an independent problem. Groups come out ordered by their
// first job.
func (m *model) components() [][]int32 {
	parent := make([]int32, len(m.jobs))
	for k := range parent {
		parent[k] = int32(k)
	}
	find := func(x int32) int32 {
		for parent[x] != x {
			parent[x] = parent[parent[x]]
			x = parent[x]
		}
		return x
	}
	for _, js := range m.resJobs {
		for _, k := range js[1:] {
			a, b := find(js[0]), find(k)
			if a != b {
				parent[max(a, b)] = min(a, b)
			}
		}
	}
	groups := map[int32][]int32{}
	for k := range m.jobs {
		r := find(int32(k))
		groups[r] = append(groups[r], int32(k))
	}
	out := make([][]int32, 0, len(groups))
	for _, g := range groups {
		out = append(out, g)
	}
	slices.SortFunc(out, func(a, b []int32) int { return cmp.Compare(a[0], b[0]) })
	return out
}

// modelMem is the use lists of a model, kept from one full solve to the
// next: a planner's replay builds a model for every window the quick
// search does not settle, each with lists of hundreds of thousands of
// uses, twice (the bids' own, then with their cliques), so allocating and
// clearing them afresh was a tenth of all a replay allocated. Set k = 0
// holds a model's first lists, k = 1 those with its cliques; a model
// built from mem must be dead before mem builds the next.
type modelMem struct {
	res, amt [2][]int32
	amtF     [2][]float64
	merged   useArena // the merged problem's uses (mergeNodesIn)
	byRes    []bidUse // the uses by resource of the conflict graph
	levels   []uint64 // the conflict graph's sets by level (overfillsByLevels)
}

// lists is set k's lists, empty, with room for n uses; a nil mem
// allocates them.
func (mem *modelMem) lists(k, n int) ([]int32, []int32, []float64) {
	if mem == nil {
		return make([]int32, 0, n), make([]int32, 0, n), make([]float64, 0, n)
	}
	if mem.res[k] == nil || cap(mem.res[k]) < n { // never nil, as make gives
		mem.res[k], mem.amt[k], mem.amtF[k] = make([]int32, 0, n), make([]int32, 0, n), make([]float64, 0, n)
	}
	return mem.res[k][:0], mem.amt[k][:0], mem.amtF[k][:0]
}

// bidUses is n bid uses, not cleared: the caller sets each; a nil mem
// allocates them.
func (mem *modelMem) bidUses(n int) []bidUse {
	if mem == nil {
		return make([]bidUse, n)
	}
	if cap(mem.byRes) < n {
		mem.byRes = make([]bidUse, n)
	}
	return mem.byRes[:n]
}

// levelWords is n words, cleared; a nil mem allocates them.
func (mem *modelMem) levelWords(n int) []uint64 {
	if mem == nil {
		return make([]uint64, n)
	}
	if cap(mem.levels) < n {
		mem.levels = make([]uint64, n)
	}
	clear(mem.levels[:n])
	return mem.levels[:n]
}
