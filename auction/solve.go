package auction

import (
	"cmp"
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"time"
)

// Options tune Solve. The zero value is usable.
type Options struct {
	// TimeLimit stops the search after this long (0: only the context's
	// deadline and the work budgets stop it).
	TimeLimit time.Duration
	// MaxNodes caps the branch-and-bound nodes of the whole run (0:
	// 5,000,000, or no cap when a time limit or deadline is set). Runs
	// that end on it are deterministic.
	MaxNodes int64
	// Rounds caps the local-search rounds (0: 300 per job of the window,
	// or no cap when a time limit or deadline is set).
	Rounds int
	// ExactJobs: groups of jobs up to this size get an exact search for a
	// proof of optimality (0: 60).
	ExactJobs int
	// PricingSteps caps the subgradient steps that price each group of
	// jobs for its bound and first solution (0: 1,500). Fewer steps give a
	// looser bound and a rougher start sooner: what a scheduler pass that
	// must be cheap wants (Planner).
	PricingSteps int
	// Seed drives the local search's choices.
	Seed uint64
	// Tolerance: a solution must beat the incumbent by more than this to
	// count, and the optimum is proven within it (0, NaN, or not below
	// 1e12: 1e-6; an infinite one proved an empty selection optimal).
	Tolerance float64
}

// Solution is Solve's answer.
type Solution struct {
	Selection Selection // chosen bid per job, -1 when left out
	Objective float64   // value of Selection, objective (1)
	Bound     float64   // proven upper bound on the optimum (a proof within Tolerance adds it, per group of jobs solved apart, unless the values' step makes the proof exact)
	Gap       float64   // (Bound-Objective)/max(1e-10, |Objective|)
	Optimal   bool      // no selection beats Objective by more than Tolerance (per group of jobs solved apart)
	Nodes     int64     // branch-and-bound nodes explored
	Rounds    int       // local-search rounds run
	Stopped   string    // "optimal", "budget", "time" or "cancelled"
}

// maxTolerance: Options.Tolerance from here on is taken as unset.
const maxTolerance = 1e12

// lagrangeIters is the subgradient steps spent on each group's bound by
// default.
const lagrangeIters = 1500

// quickProofNodes is the exact search's budget per group before the local
// search starts; firstRounds (per job) is the local search's first part,
// and firstProofNodes the exact search's budget per group after it.
const (
	quickProofNodes = 20_000
	firstRounds     = 20
	firstProofNodes = 300_000
)

type solver struct {
	m   *model
	ctx context.Context
	tol float64
	// proofGap: a bound this close above a solution proves it optimal —
	// the tolerance, or nearly a step of the objective's granularity
	// (valueStep) when there is one.
	proofGap float64
	price    []float64
	best     []float64 // the prices of each group's bound, which sub-window pricing leaves alone
	resid    []int32
	sel      []int32 // per model job: chosen bid or -1
	usage    []int32
	demand   []int32 // per resource: the open jobs' largest uses (search.go)
	mark     []uint32
	jobMark  []uint32
	out      []bool // per bid: fixed out by reduced cost (fixing.go)
	must     []bool // per job: in every better solution (fixing.go)
	fixing   bool   // out and must apply (the proof's searches only)
	stamp    uint32
	nodes    int64
	budget   int64
	rng      *rand.Rand
	carry    *lpCarry // what a proof attempt's LP search leaves the next (lp_carry.go)
	trace    *searchTrace
	cut      float64            // checkCut's value
	stop     context.CancelFunc // cancels the solve's context; nil without a cut
}

// Solve finds a selection of bids of p of maximum objective (1) under
// constraints (2)-(4). It validates p and first tries a quick proof
// (quick.go): its own first greedy, or better, proven optimal by a small
// exact search bounded by the free cores and GPUs in all; a window so
// answered gets no model (Nodes and Rounds 0). Otherwise it prices the node capacities and
// the conflict cliques by Lagrangian relaxation (a proven bound), builds a
// greedy solution guided by the prices, improves it by local search
// (eject-and-repair moves, and sub-windows of jobs that share nodes, each
// solved exactly by branch and bound while the rest stay fixed) and, for
// groups of jobs small enough, fixes bids by reduced cost and runs an
// exact branch and bound that proves the optimum. It stops at ctx's deadline, at
// opts.TimeLimit or when its budgets run out, with the best it has; it is
// deterministic for the same input and options unless stopped by time.
func Solve(ctx context.Context, p *Problem, opts Options) (*Solution, error) {
	if p == nil {
		return nil, &Error{Err: ErrInvalid, Msg: "nil *Problem"}
	}
	return solve(ctx, p, opts, nil)
}

// solve is Solve, with a trace of the exact searches when tr is not nil
// (trace.go).
func solve(ctx context.Context, p *Problem, opts Options, tr *searchTrace) (*Solution, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	if tr == nil { // a trace is of the full solve's searches
		if sol := quickSolve(p, opts.tolerance()); sol != nil {
			return sol, nil
		}
	}
	return solveModel(ctx, p, opts, tr, math.Inf(1), nil), nil
}

// solveModel is solve on a valid problem that the quick path did not
// prove: the model, its pricing, the local search and the exact searches.
// Once the selection is worth more than cut, the solve stops (as if
// cancelled) with it (see solver.checkCut); +Inf never stops it. The
// model's use lists come from mem (nil: allocated), which the caller
// may hand on once solveModel returns.
func solveModel(ctx context.Context, p *Problem, opts Options, tr *searchTrace, cut float64, mem *modelMem) *Solution {
	var stop context.CancelFunc
	if cut < math.Inf(1) {
		ctx, stop = context.WithCancel(ctx)
		defer stop()
	}
	_, hasDeadline := ctx.Deadline()
	opts = opts.withDefaults(len(p.Jobs), hasDeadline || opts.TimeLimit > 0)
	if opts.TimeLimit > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, opts.TimeLimit)
		defer cancel()
	}
	m := buildModelIn(p, mem)
	s := newSolver(ctx, m, opts)
	s.trace = tr
	s.cut, s.stop = cut, stop
	comps := m.components()
	bounds := make([]float64, len(comps))
	s.initial(comps, bounds, opts.PricingSteps)
	s.best = slices.Clone(s.price)
	// Small groups are often proven at once; the local search then works
	// only on the rest, and the exact search gets what budget remains.
	proven := s.prove(comps, bounds, opts.ExactJobs, quickProofNodes)
	rounds := 0
	if !proven {
		// A short local search first, then fixing and a bounded proof
		// attempt, so that a small window is proven early even when a
		// time limit would let the local search run on.
		first := min(opts.Rounds, firstRounds*len(m.jobs))
		rounds = s.localSearch(comps, bounds, first)
		proven = s.fixAndProve(comps, bounds, opts, firstProofNodes)
		if !proven && opts.Rounds > first {
			rounds += s.localSearch(comps, bounds, opts.Rounds-first)
			proven = s.fixAndProve(comps, bounds, opts, math.MaxInt64)
		}
	}
	return s.solution(p, bounds, proven, rounds)
}

// fixAndProve fixes by reduced cost against the solution found so far
// and runs the exact search on the small groups (perGroup nodes each).
func (s *solver) fixAndProve(comps [][]int32, bounds []float64, opts Options, perGroup int64) bool {
	s.fixAll(comps, bounds, opts.ExactJobs, opts.PricingSteps)
	copy(s.price, s.best) // the sub-windows' pricing left its own prices
	return s.prove(comps, bounds, opts.ExactJobs, perGroup)
}

// newSolver starts with nothing chosen and every price 0; opts has its
// defaults filled in.
func newSolver(ctx context.Context, m *model, opts Options) *solver {
	s := &solver{
		m: m, ctx: ctx, tol: opts.Tolerance, budget: opts.MaxNodes,
		price: make([]float64, len(m.capacity)), resid: append([]int32(nil), m.capacity...),
		usage: make([]int32, len(m.capacity)), demand: make([]int32, len(m.capacity)), mark: make([]uint32, len(m.capacity)),
		rng: rand.New(rand.NewPCG(opts.Seed, 0x9e3779b97f4a7c15)),
	}
	s.proofGap = max(s.tol, valueStep(m.value)-s.tol)
	s.sel = make([]int32, len(m.jobs))
	s.jobMark = make([]uint32, len(m.jobs))
	s.out, s.must = make([]bool, len(m.value)), make([]bool, len(m.jobs))
	for k := range s.sel {
		s.sel[k] = -1
	}
	return s
}

// ReplayOptions is a work budget for one scheduler pass of a simulated
// replay (Planner with a negative Budget): 300 local-search rounds, 5,000
// branch-and-bound nodes and 200 pricing steps, a few milliseconds for a
// window of 100 jobs on 1,024 nodes, and the same decisions on any machine
// however loaded (BENCHMARKS.md "Auction").
func ReplayOptions() Options {
	return Options{Rounds: 300, MaxNodes: 5000, PricingSteps: 200}
}

// withDefaults fills in the zero options. With a deadline, time alone
// ends the search unless budgets were given.
func (o Options) withDefaults(jobs int, timed bool) Options {
	if o.MaxNodes <= 0 {
		o.MaxNodes = 5_000_000
		if timed {
			o.MaxNodes = math.MaxInt64
		}
	}
	if o.Rounds <= 0 {
		o.Rounds = 300 * max(jobs, 1)
		if timed {
			o.Rounds = math.MaxInt
		}
	}
	if o.PricingSteps <= 0 {
		o.PricingSteps = lagrangeIters
	}
	if o.ExactJobs <= 0 {
		o.ExactJobs = 60
	}
	o.Tolerance = o.tolerance()
	return o
}

// tolerance is Tolerance, or 1e-6 when unset (0, NaN, or not below 1e12).
func (o Options) tolerance() float64 {
	if !(o.Tolerance > 0 && o.Tolerance < maxTolerance) { // NaN and +Inf too
		return 1e-6
	}
	return o.Tolerance
}

// provenBound is the upper bound a proof within tol gives on an optimum
// found worth obj. A proof cuts what cannot beat obj by more than tol, so
// a better selection may hide within tol: obj+tol is the bound, unless
// exact, when every value is a whole multiple of a step more than twice
// tol (the solver's proofGap is then above tol), so that nothing lies
// between obj and obj+step and the searches cut nothing that reaches
// obj+step. Reporting obj regardless claimed, under a large
// Options.Tolerance, a bound below a better selection.
func provenBound(obj, tol float64, exact bool) float64 {
	if exact {
		return obj
	}
	return obj + tol
}

// initial prices each group, keeps its bound, and builds the first
// solution: the best of a priority greedy, the repaired relaxed choices
// met while pricing, and a greedy guided by the final prices.
func (s *solver) initial(comps [][]int32, bounds []float64, steps int) {
	for c, jobs := range comps {
		lb := s.greedy(jobs, false)
		s.checkCut()
		bounds[c] = s.lagrangeRepairing(jobs, s.m.capacity, lb, steps, true)
		s.greedy(jobs, true)
		s.checkCut()
	}
}

// checkCut stops the solve once the selection is worth more than s.cut,
// and reports whether it has. Until then it changes nothing. After it,
// every phase ends at its next look at the context, and none of them
// gives up value it holds (only the annealing does, within the
// tolerance, and it does not run once stopped), so the answer is worth
// at least what it was here: more than the cut.
func (s *solver) checkCut() bool {
	if s.stop == nil {
		return false
	}
	if s.total() > s.cut {
		s.stop()
		s.stop = nil
		return true
	}
	return false
}

// valueOf is the objective the current selection earns from jobs.
func (s *solver) valueOf(jobs []int32) float64 {
	v := 0.0
	for _, j := range jobs {
		if b := s.sel[j]; b >= 0 {
			v += s.m.value[b]
		}
	}
	return v
}

// greedy rebuilds the selection of jobs greedily (each job, best value
// first, takes its fitting bid of best value, or of best positive reduced
// value when priced, else of best value) and keeps it when better than the
// current one. It returns the value of jobs' selection afterwards.
func (s *solver) greedy(jobs []int32, priced bool) float64 {
	m := s.m
	oldVal := s.valueOf(jobs)
	old := s.release(jobs)
	byValue := slices.Clone(jobs)
	slices.SortStableFunc(byValue, func(a, b int32) int { return cmp.Compare(m.jobs[b].best, m.jobs[a].best) })
	val := 0.0
	for _, j := range byValue {
		pick := int32(-1)
		if priced {
			pick = s.bestFitting(j, true)
		}
		if pick < 0 {
			pick = s.bestFitting(j, false)
		}
		if pick >= 0 {
			m.take(pick, s.resid)
			s.sel[j] = pick
			val += m.value[pick]
		}
	}
	if val > oldVal+s.tol || oldVal == 0 && val == 0 {
		return val
	}
	s.reinstate(jobs, old)
	return oldVal
}

// release takes jobs out of the selection, returning their bids.
func (s *solver) release(jobs []int32) []int32 {
	old := make([]int32, len(jobs))
	for k, j := range jobs {
		old[k] = s.sel[j]
		if old[k] >= 0 {
			s.m.give(old[k], s.resid)
			s.sel[j] = -1
		}
	}
	return old
}

// reinstate gives jobs back the bids release returned, dropping whatever
// they hold now.
func (s *solver) reinstate(jobs, old []int32) {
	for k, j := range jobs {
		if s.sel[j] >= 0 {
			s.m.give(s.sel[j], s.resid)
		}
		s.sel[j] = old[k]
		if old[k] >= 0 {
			s.m.take(old[k], s.resid)
		}
	}
}

// solution assembles the answer in Problem terms.
func (s *solver) solution(p *Problem, bounds []float64, proven bool, rounds int) *Solution {
	sol := &Solution{Selection: make(Selection, len(p.Jobs)), Nodes: s.nodes, Rounds: rounds}
	for k := range sol.Selection {
		sol.Selection[k] = -1
	}
	for j, b := range s.sel {
		if b >= 0 {
			sol.Selection[s.m.jobs[j].orig] = int(s.m.origBid[b])
		}
	}
	obj, err := p.Evaluate(sol.Selection)
	if err != nil {
		panic("auction: solver built an infeasible selection: " + err.Error()) // a bug, not bad input
	}
	sol.Objective = obj
	for _, b := range bounds {
		sol.Bound += b
	}
	sol.Bound = max(sol.Bound, obj)
	sol.Optimal = proven || sol.Bound-obj <= s.proofGap
	exact := s.proofGap > s.tol // see provenBound
	switch {
	case sol.Optimal && exact:
		sol.Bound = obj
	case !exact:
		// Each group's searches and fixing cut what cannot beat its
		// incumbent by more than tol, and its bound may sit at that
		// incumbent: up to tol a group may hide above it.
		sol.Bound += float64(len(bounds)) * s.tol
	}
	sol.Gap = (sol.Bound - obj) / max(1e-10, math.Abs(obj))
	switch {
	case sol.Optimal:
		sol.Stopped = "optimal"
	case s.ctx.Err() == context.DeadlineExceeded:
		sol.Stopped = "time"
	case s.ctx.Err() != nil:
		sol.Stopped = "cancelled"
	default:
		sol.Stopped = "budget"
	}
	return sol
}
