package auction

import (
	"cmp"
	"context"
	"math"
	"slices"
)

// A quick optimum: before any model is built, the solver's own first
// greedy (jobs by best value, each taking its fitting bid of best value)
// is the incumbent of a small exact search (quick_bound.go) whose bound
// sums the nodes: a selection fits the nodes only if its bids' cores fit
// the free cores in all and their GPUs the free GPUs in all. The replay's
// windows are of jobs that each want a large part of the free machine,
// so that bound leaves few sets of jobs to try, and the search often
// completes within its budget: its incumbent is then optimal, and the
// model, the pricing and the local search need not run.

// quickNodes caps the quick search's nodes: past it nothing is proven and
// the full solve runs.
const quickNodes = 20000

// quickSolve returns an optimal Solution of p when the quick search
// proves one within its budget, else nil. The selection is the greedy's
// unless the search found one worth more than tol above it. p must be
// valid.
func quickSolve(p *Problem, tol float64) *Solution {
	q := runQuick(p, tol)
	sol := q.solution()
	if sol != nil && valueStep(q.values()) > 2*tol { // see provenBound
		sol.Bound, sol.Gap = sol.Objective, 0
	}
	return sol
}

// runQuick runs the quick search on p.
func runQuick(p *Problem, tol float64) *quickSearch {
	q := newQuickSearch(p, tol, quickNodes)
	q.dfs(0, 0, totalCores(p), totalGPUs(p))
	return q
}

// solution is the search's answer, nil when it did not complete.
func (q *quickSearch) solution() *Solution {
	if q.stopped {
		return nil
	}
	p := q.p
	obj, err := p.Evaluate(q.sel)
	if err != nil {
		panic("auction: quick search built an infeasible selection: " + err.Error()) // a bug, not bad input
	}
	// Within tol, unless the values' step makes the proof exact: only
	// quickSolve, whose Bound a caller reads, pays to find out.
	bound := provenBound(obj, q.tol, false)
	return &Solution{Selection: q.sel, Objective: obj, Bound: bound, Gap: (bound - obj) / max(1e-10, math.Abs(obj)),
		Optimal: true, Stopped: "optimal"}
}

// values lists the values of the bids the search tried (those worth
// something), whose steps decide whether its proof is exact.
func (q *quickSearch) values() []float64 {
	var vs []float64
	for k, j := range q.jobs {
		for _, i := range q.bids[k] {
			vs = append(vs, q.p.Value(j, i))
		}
	}
	return vs
}

// solveMerged is Solve on p, a problem of GenerateBids (which validates
// it): the quick path tried on p itself, and the full solve on p with its
// nodes merged. Merging is no cheaper than the quick path, and changes
// neither its answer nor the full solve's. With headCut, the full solve
// stops once p's first job surely loses (quick_head.go).
func (pl *Planner) solveMerged(ctx context.Context, p *Problem, headCut bool) (*Solution, error) {
	opts := pl.solveOptions()
	qs := runQuick(p, opts.tolerance())
	if sol := qs.solution(); sol != nil {
		return sol, nil
	}
	cut := math.Inf(1)
	if headCut {
		cut = qs.headCut()
	}
	// The merged problem's uses and the model's lists come from the
	// planner's, taken and given back as the arena is (two solves at once
	// on one Planner never share them).
	mem := pl.models.Swap(nil)
	if mem == nil {
		mem = &modelMem{merged: useArena{recycle: true}}
	}
	defer pl.models.Store(mem)
	q := p
	if m := mergeNodesIn(p, &mem.merged); m != nil {
		// The merged uses are p's, on the classes' first nodes (each bid
		// uses a class once, within its capacity, which is its nodes'):
		// valid as p's are, so walked only when the planner checks its
		// problems in full.
		if err := m.validate(pl.checkProblems); err != nil {
			return nil, err
		}
		q = m
	}
	return solveModel(ctx, q, opts, nil, cut, mem), nil
}

// newQuickSearch orders p's jobs worth something as the solver's greedy
// does (buildModel's jobs by best value, ties in window order), builds
// their aggregates, and starts from the greedy.
func newQuickSearch(p *Problem, tol float64, limit int) *quickSearch {
	q := &quickSearch{p: p, tol: tol, limit: limit}
	type cand struct {
		job  int
		it   item
		bids []int
		sums []item
	}
	var cands []cand
	for j := range p.Jobs {
		if bids := bestFirst(p, j); len(bids) > 0 {
			sums := bidSums(p, j, bids)
			cands = append(cands, cand{job: j, it: jobItem(p.Value(j, bids[0]), sums), bids: bids, sums: sums})
		}
	}
	slices.SortStableFunc(cands, func(a, b cand) int { return cmp.Compare(b.it.value, a.it.value) })
	for _, c := range cands {
		q.jobs, q.items, q.bids = append(q.jobs, c.job), append(q.items, c.it), append(q.bids, c.bids)
		q.sums, q.miss = append(q.sums, c.sums), append(q.miss, make([]int32, len(c.bids)))
	}
	q.byCores = newOpenOrder(byDensity(q.items, func(it item) int { return it.cores }))
	q.byGPUs = newOpenOrder(byDensity(q.items, func(it item) int { return it.gpus }))
	q.cur = make([]int, len(q.jobs))
	q.free = make([]uint64, len(p.Nodes))
	for n, nd := range p.Nodes {
		q.free[n] = packAmount(nd.CPUs, nd.GPUs)
	}
	q.sel, q.best = q.greedy()
	return q
}

// greedy is the solver's first greedy (solver.greedy over buildModel's
// jobs) on the problem itself: each job in order on its first fitting bid
// of best value. Resources the model drops are ones no selection
// overfills, so a bid fits here exactly when it fits the model. It
// returns the selection and its value, and leaves the nodes free.
func (q *quickSearch) greedy() (Selection, float64) {
	sel := make(Selection, len(q.p.Jobs))
	for k := range sel {
		sel[k] = -1
	}
	val := 0.0
	var taken []*Bid
	for _, j := range q.jobs {
		pick, pv := -1, 0.0
		for i := range q.p.Jobs[j].Bids {
			if v := q.p.Value(j, i); v > pv && q.fits(&q.p.Jobs[j].Bids[i]) {
				pick, pv = i, v
			}
		}
		if pick >= 0 {
			b := &q.p.Jobs[j].Bids[pick]
			q.take(b, 1)
			taken = append(taken, b)
			sel[j] = pick
			val += pv
		}
	}
	for _, b := range taken {
		q.take(b, -1)
	}
	return sel, val
}

// jobItem is a job's aggregate: its best value, and the fewest cores
// and GPUs in all of its bids worth something (sums, not empty).
func jobItem(best float64, sums []item) item {
	it := item{value: best, cores: sums[0].cores, gpus: sums[0].gpus}
	for _, s := range sums[1:] {
		it.cores, it.gpus = min(it.cores, s.cores), min(it.gpus, s.gpus)
	}
	return it
}

// bidSums is the cores and GPUs in all of each of job j's bids listed:
// the planner's totals when it made p.
func bidSums(p *Problem, j int, bids []int) []item {
	sums := make([]item, len(bids))
	if p.totals != nil {
		for x, i := range bids {
			sums[x] = p.totals[j][i]
		}
		return sums
	}
	for x, i := range bids {
		for _, u := range p.Jobs[j].Bids[i].Uses {
			sums[x].cores += u.Cores
			sums[x].gpus += u.GPUs
		}
	}
	return sums
}

// bestFirst is job j's bids worth something, by value, best first (ties
// in bid order).
func bestFirst(p *Problem, j int) []int {
	var idx []int
	for i := range p.Jobs[j].Bids {
		if p.Value(j, i) > 0 {
			idx = append(idx, i)
		}
	}
	slices.SortStableFunc(idx, func(a, b int) int { return cmp.Compare(p.Value(j, b), p.Value(j, a)) })
	return idx
}

func totalCores(p *Problem) int {
	n := 0
	for _, nd := range p.Nodes {
		n += nd.CPUs
	}
	return n
}

func totalGPUs(p *Problem) int {
	n := 0
	for _, nd := range p.Nodes {
		n += nd.GPUs
	}
	return n
}
