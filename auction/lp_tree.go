package auction

import (
	"math"
	"slices"
)

// lpTree is a depth-first branch and bound over one whole group of jobs
// with the LP relaxation (lp_simplex.go) re-solved at every node, warm
// from the last node's basis: where the Lagrangian search's bound stays
// put as it branches (its prices are fixed), the LP's moves, which is what
// proves windows like J50_B10_s101 (clique LP 1.3% above the optimum).
// It branches on a bid of fractional value (taken first, then left out)
// and, at each node, fixes bids by the LP's reduced costs for the node's
// subtree. It looks only for solutions better than the incumbent by more
// than the proof's gap; a search that completes proves the incumbent (or
// what it found) optimal.
type lpTree struct {
	s       *solver
	lp      *lpRelax
	jobs    []int32
	best    float64 // the value to beat
	bestSel []int32 // per job (index in jobs): model bid or -1
	found   bool
	nodes   int64
	limit   int64 // nodes allowed
	pivots  int64 // pivots allowed per node
	// maxPivots: pivots allowed in all (strong branching's included)
	maxPivots          int64
	complete           bool // false when a budget, the context or the numerics stopped it
	rc                 []float64
	resid              []int32 // scratch for checking integral solutions
	root               float64 // the root's bound (+Inf until solved)
	pc                 pseudoCosts
	sbBasis            lpBasis     // the node's basis while strong branching tries its children
	upBasis, pickBasis lpBasis     // the last trial's up child, and the pick's
	pickValid          bool        // pickBasis holds the pick's up child
	rowsKept           int         // rows after the last dropLooseRows
	drops              int         // dropLooseRows calls
	kept               []keptBasis // per depth: the node's basis for its down child
	// down children solved, and their pivots (tests)
	downNodes, downPivots int64
	path                  []lpFix   // the branching decisions down to the node
	open                  [][]lpFix // nodes left unexplored (lp_carry.go)
	resumed               bool      // the search continues an earlier one's open nodes
	// aim > 0: after the root, only solutions that gain at least aim of
	// the root bound's lead over the incumbent count (rins.go's deep escape)
	aim float64
	// proof: a proof attempt's search of a whole group (prove), which the
	// trace checks
	proof bool
}

// lpPivotShare: see lpPivotBudget.
const lpPivotShare = 20

// lpRowGrowth: a node drops the loose rows (dropLooseRows) once the rows
// have grown by this factor since the last drop. Measured on J50_B10_s101
// from the optimum, five orders of the jobs, when only rows with room
// left were dropped: at the root only, 0.96-1.72 s; at 5% growth,
// 0.68-1.28 s; never, 1.0-2.7 s (the rows grew to 470-520, a pivot
// costing 60 us against about 30 at 200-250 rows). With the degenerate
// rows dropped too, growth factors 1.0, 1.05 and 1.2 were alike.
const lpRowGrowth = 1.05

// lpProofRowGrowth is lpRowGrowth for a proof attempt's search (prove's
// plain and aimed searches of a whole group). On a window whose optimum
// fills every core (the planted 30-job windows) every node's row is
// tight, so the rows the basis leaves degenerate are dropped at almost
// every node (772 drops in 773 nodes, about 30 rows each) and separated
// again at the next.
// Dropping only once the rows have doubled took seed 17443661280779084153
// from unproven on the default budget (5M nodes, 26-28 s of CPU, about
// 3,000 below the planted packing) to proven in 79,000 nodes (11 s), seed
// 16578164345118188610 from unproven to proven in 73,000 nodes, and ten
// tuning seeds from 8 proven to 10; J50_B10_s101's proofs cost about a
// fifth more CPU (0.56-0.66 s to 0.67-0.90 s over three orders of its
// jobs). A growth of 1.2 left the second seed unproven; 1.5 and never
// proved both (15-24 s of CPU) but cost J50_B10_s101 more than 2
// (0.72-1.06 s); BENCHMARKS.md "Planted 30-job windows on fresh seeds".
const lpProofRowGrowth = 2.0

// lpNodePivots caps the pivots of one node's solve.
const lpNodePivots = 5000

// rowGrowth is the growth of the rows at which a node drops the loose
// ones: lpProofRowGrowth in a proof attempt's search, else lpRowGrowth.
func (t *lpTree) rowGrowth() float64 {
	if t.proof {
		return lpProofRowGrowth
	}
	return lpRowGrowth
}

// lpPivotBudget is the LP search's pivots for a proof attempt that the
// Lagrangian search gets nodes nodes for. A pivot costs as much as three
// of its nodes or more (15-25 us of CPU against 5-8 on the 50 x 10
// windows) but its proofs are the ones that finish. The quick attempt
// before any local search gets twice its nodes (40,000 pivots): it
// starts from the first greedy solution, often the optimum or close to
// it, and J50_B10_s101 is proven there in 77 LP nodes and under 30,000
// pivots (at 20,000 it is not, and the local search and a second attempt
// follow); generated 50 x 10 seed 3 needs about 2,600. Later attempts get
// as many pivots as nodes, and continue the last one's open nodes
// (lp_carry.go). Four times the nodes proves more orders of that window's
// jobs in the quick attempt (BENCHMARKS.md "Auction: proofs (fifth
// round)") but would spend a second there, before any local search, on a
// small window that no attempt proves.
//
// The run's node budget (Options.MaxNodes) caps it too, at one pivot for
// lpPivotShare nodes left: a work-budgeted scheduler pass (ReplayOptions,
// 5,000 nodes) spends at most 250 pivots on the LP, enough for the root
// of a small group, and stays a few milliseconds.
func lpPivotBudget(nodes int64) int64 {
	switch {
	case nodes >= math.MaxInt64/2:
		return math.MaxInt64
	case nodes > quickProofNodes:
		return nodes
	}
	return 2 * nodes
}

// lpSearch searches jobs (a whole group, or rins.go's sub-window,
// released from the selection) by the LP branch and bound within limit
// nodes and maxPivots simplex pivots, keeps a better answer, and reports
// whether the search completed and the root's bound (valid for solutions
// better than the incumbent that avoid fixed-out bids, as fixAll's).
// Given a carry (prove's attempts; not the escapes of rins.go, whose
// sub-windows are not a group), it starts from the pseudo-costs and open
// nodes an earlier attempt left in it and leaves its own there; a search
// of open nodes solves no root, so its root bound is +Inf. aim > 0 is
// lpTree.aim (rins.go's deep escape); 0 for a plain search.
func (s *solver) lpSearch(jobs []int32, limit, maxPivots int64, carry *lpCarry, aim float64) (bool, float64) {
	cur := s.valueOf(jobs)
	old := s.release(jobs)
	t := s.newLPTree(jobs, limit, maxPivots)
	t.best, t.aim, t.proof = cur, aim, carry != nil
	if s.trace != nil && t.proof {
		s.trace.LPSearches++
	}
	t.loadCosts(carry)
	t.search(s.resumable(jobs, carry, cur))
	t.saveCosts(carry)
	s.keepOpen(jobs, carry, t)
	s.nodes += t.nodes
	if s.trace != nil && t.proof && t.complete && !t.lp.trouble {
		s.trace.LPComplete++
	}
	if t.found {
		s.reinstate(jobs, t.bestSel)
	} else {
		s.reinstate(jobs, old)
	}
	return t.complete && !t.lp.trouble, t.root
}

// newLPTree sets up the LP search over jobs (released from the selection;
// the caller sets best, the value to beat).
func (s *solver) newLPTree(jobs []int32, limit, maxPivots int64) *lpTree {
	var out []bool
	if s.fixing {
		out = s.out
	}
	lp := newLP(s.m, jobs, out)
	lp.ctx = s.ctx
	var pc pseudoCosts
	for dir := range 2 {
		pc.sum[dir], pc.cnt[dir] = make([]float64, len(lp.cols)), make([]int32, len(lp.cols))
	}
	return &lpTree{s: s, lp: lp, jobs: jobs, bestSel: make([]int32, len(jobs)),
		limit: limit, pivots: lpNodePivots, maxPivots: maxPivots, complete: true,
		rc: make([]float64, len(lp.cols)), resid: make([]int32, len(s.resid)), root: math.Inf(1), pc: pc}
}

// cut is the least bound that cannot be pruned: a node whose bound is at
// most cut holds no solution better than the incumbent by the proof's gap
// (less a margin for the bound's rounding).
func (t *lpTree) cut(bound float64) float64 {
	return t.best + max(t.s.tol, t.s.proofGap) - 1e-9*max(1, math.Abs(bound))
}

// dfs searches the node and its subtree; a node it leaves unexplored,
// itself or a child, is kept in t.open.
func (t *lpTree) dfs() {
	n := len(t.open)
	t.node()
	if !t.complete && len(t.open) == n {
		t.open = append(t.open, slices.Clone(t.path))
	}
}

func (t *lpTree) node() {
	t.nodes++
	if t.nodes > t.limit || t.lp.pivots >= t.maxPivots || t.s.ctx.Err() != nil {
		t.complete = false
		return
	}
	if tr := t.s.trace; tr != nil && t.proof {
		tr.LPNodes++
		tr.MaxDepth = max(tr.MaxDepth, len(t.path))
	}
	lp := t.lp
	p0 := lp.pivots
	st := lp.solve(min(t.maxPivots, lp.pivots+t.pivots))
	if n := len(t.path); n > 0 && !t.path[n-1].up {
		t.downPivots += lp.pivots - p0
		t.downNodes++
	}
	if st == lpInfeasible {
		if !t.rayPrunes() {
			t.complete = false
		} else {
			t.traced(pruneRay)
		}
		return
	}
	U := lp.bound(lp.prices(), t.rc)
	if t.nodes == 1 && !t.resumed {
		t.root = U
		if t.aim > 0 && U > t.best {
			t.best += t.aim * (U - t.best)
		}
	}
	if t.nodes == 1 || float64(len(lp.rhs)) > t.rowGrowth()*float64(t.rowsKept) {
		lp.dropLooseRows()
		t.rowsKept = len(lp.rhs)
		t.drops++
	}
	if U <= t.cut(U) {
		t.traced(pruneBound)
		return
	}
	if st != lpOptimal {
		t.complete = false
		return
	}
	undo := t.fixByReducedCost(U)
	defer func() { t.restore(undo) }()
	c, U, pruned := t.strongBranch(U, &undo)
	if pruned {
		return
	}
	if c < 0 {
		if t.s.trace != nil && t.proof {
			t.s.trace.LPIntegral++
		}
		t.integral(U)
		return
	}
	lo, up := lp.lo[c], lp.up[c]
	depth := len(t.path)
	t.keepBasis(depth)
	lp.lo[c] = 1
	if t.pickValid {
		lp.restore(&t.pickBasis) // strong branching's trial of this child
	}
	t.path = append(t.path, lpFix{lp.cols[c], true})
	t.dfs()
	t.path[len(t.path)-1].up = false
	lp.lo[c] = lo
	if !t.complete {
		t.open = append(t.open, slices.Clone(t.path)) // the down child
		t.path = t.path[:len(t.path)-1]
		return
	}
	lp.up[c] = 0
	t.backToBasis(depth)
	t.dfs()
	t.path = t.path[:len(t.path)-1]
	lp.up[c] = up
}

// keepBasis keeps the node's optimal basis (strong branching's saved
// one, which the LP is at) for its down child, at the node's depth, in a
// proof attempt's search; the storage is swapped, not copied. The down
// child started from wherever the up child's subtree left the LP: on a
// planted 30-job window that took about 200 pivots a down child, twice
// an up child's, and from the parent's basis about 50. Measured on the
// planted windows (CPU of Solve, default budget): tuning seeds
// 16578164345118188610 and 17443661280779084153 16.9 and 10.5 s -> 7.7
// and 5.9 s, and 30 more seeds 39.4 s in all -> 33.8 s (worst 9.6 ->
// 7.6 s); J50_B10_s101 0.65-0.86 s -> 0.76-0.94 s over three orders of
// its jobs (its trees grew: the down children's optima differ).
func (t *lpTree) keepBasis(depth int) {
	if !t.proof {
		return
	}
	for len(t.kept) <= depth {
		t.kept = append(t.kept, keptBasis{})
	}
	k := &t.kept[depth]
	k.b, t.sbBasis = t.sbBasis, k.b
	k.drops = t.drops
}

// backToBasis restarts the down child from its parent's basis, kept by
// keepBasis, unless rows were dropped since (the kept basis's rows are
// then not the LP's).
func (t *lpTree) backToBasis(depth int) {
	if !t.proof || depth >= len(t.kept) || t.kept[depth].drops != t.drops {
		return
	}
	t.lp.restore(&t.kept[depth].b)
}

// rayPrunes: when the node's bounds admit no LP solution, prices far
// along the dual ray give a bound below the cut (checked, not assumed).
func (t *lpTree) rayPrunes() bool {
	_, ok := t.rayBound()
	return ok
}

// rayBound is the first bound along the dual ray that reaches the cut,
// and whether one does.
func (t *lpTree) rayBound() (float64, bool) {
	lp := t.lp
	for _, s := range []float64{1e2, 1e4, 1e6, 1e8} {
		if U := lp.bound(lp.ray(lp.deadRow, lp.deadDelta, s), t.rc); U <= t.cut(U) {
			return U, true
		}
	}
	return 0, false
}

// keptBasis is a node's basis and t.drops when it was kept.
type keptBasis struct {
	b     lpBasis
	drops int
}

type boundChange struct {
	col    int32
	lo, up float64
}

// fixByReducedCost fixes, for the node's subtree, each free bid whose
// reduced value says that taking it (or leaving it) drops the bound U to
// the cut; it returns the old bounds.
func (t *lpTree) fixByReducedCost(U float64) []boundChange {
	lp := t.lp
	var undo []boundChange
	cut := t.cut(U)
	held := t.witnessHeld()
	for c, rc := range t.rc {
		if lp.lo[c] == lp.up[c] {
			continue
		}
		switch {
		case rc < 0 && U+rc <= cut:
			undo = append(undo, boundChange{int32(c), lp.lo[c], lp.up[c]})
			lp.up[c] = lp.lo[c]
		case rc > 0 && U-rc <= cut:
			undo = append(undo, boundChange{int32(c), lp.lo[c], lp.up[c]})
			lp.lo[c] = lp.up[c]
		default:
			continue
		}
		if t.tracedFix("the LP's reduced-cost fixing", held) {
			held = false
		}
	}
	return undo
}

func (t *lpTree) restore(undo []boundChange) {
	for k := len(undo) - 1; k >= 0; k-- {
		u := undo[k]
		t.lp.lo[u.col], t.lp.up[u.col] = u.lo, u.up
	}
}

// lpIntTol: a value this close to 0 or 1 counts as whole.
const lpIntTol = 1e-6

// branchColumn is the free bid whose value is most fractional (of two
// alike, the more valuable), or -1 when the solution is whole.
func (t *lpTree) branchColumn() int32 {
	lp := t.lp
	pick, score := int32(-1), 0.0
	for c := range lp.cols {
		x := lp.colValue(int32(c))
		f := min(x, 1-x)
		if f <= lpIntTol || lp.lo[c] == lp.up[c] {
			continue
		}
		if sc := f * lp.value[c]; sc > score {
			pick, score = int32(c), sc
		}
	}
	return pick
}

// integral takes the node's whole LP solution as a candidate: checked
// against the capacities in integers, kept when better. The LP's optimum
// being whole, nothing below the node is better, provided the bound agrees
// with the solution's value.
func (t *lpTree) integral(U float64) {
	s, lp := t.s, t.lp
	copy(t.resid, s.resid)
	sel := make([]int32, len(t.jobs))
	for k := range sel {
		sel[k] = -1
	}
	val := 0.0
	for c := range lp.cols {
		if lp.colValue(int32(c)) < 0.5 {
			continue
		}
		b, k := lp.cols[c], lp.colJob[c]
		if sel[k] >= 0 || !s.m.fits(b, t.resid) {
			t.complete = false // not a solution after all: numerical trouble
			return
		}
		s.m.take(b, t.resid)
		sel[k] = b
		val += lp.value[c]
	}
	if val > t.best+t.s.tol {
		t.best, t.found = val, true
		copy(t.bestSel, sel)
	}
	// The bound may exceed the whole solution's value by the rounding
	// of its duals: then the solution is the subtree's best. cut alone
	// is no test here, as it lies below the incumbent by that rounding:
	// a whole solution tying the incumbent stopped the whole search, and
	// a 30-job window stayed three jobs short of its optimum.
	if U > t.cut(U) && U-val > max(t.s.tol, t.s.proofGap)+1e-9*max(1, math.Abs(U)) {
		t.complete = false // the bound disagrees with its whole solution
	}
}
