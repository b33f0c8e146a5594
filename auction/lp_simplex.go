package auction

import "context"

// A bounded-variable dual simplex over the LP relaxation of one group of
// jobs, for the branch and bound of lp_tree.go. Columns are the group's
// bids (0 <= x <= 1, bounds changed by branching); rows are the jobs'
// rows (2) and, added only when the LP's solution overfills them, the
// model's resources (node cores and GPUs (3)-(4) and conflict cliques):
// a resource the solution leaves alone costs nothing. Every slack is in
// [0, inf) and every column boxed, so any basis is dual feasible once each
// nonbasic column sits at the bound its reduced cost asks for: after a
// branch changes bounds, the parent's basis restarts the dual simplex
// (warm start), and a row added to the basis with its slack is dual
// feasible too. The basis inverse is dense (a few hundred rows), updated
// per pivot and rebuilt from the basic columns every lpRefactor pivots.
//
// Floating point decides only how good the bound is, never whether it is
// valid: bound() prices the rows by the duals clamped to >= 0 and returns
// the Lagrangian L of those prices, an upper bound for any prices.

const (
	lpPrimalTol  = 1e-9  // a basic value this far outside its bounds is infeasible
	lpDualTol    = 1e-9  // reduced costs this far on the wrong side are taken as zero
	lpPivotTol   = 1e-9  // smaller pivots are never taken
	lpRowTol     = 1e-7  // a resource overfilled by more than this gets its row
	lpRefactor   = 128   // pivots between rebuilds of the basis inverse
	lpRowsAdded  = 40    // rows added at most per round of the separation
	lpMaxRows    = 1500  // rows at most: past it the LP gives up (no proof); 600 stopped the root of whole 100 x 15 windows (rins.go)
	lpBigValue   = 1e100 // an infinite upper bound
	lpCheckEvery = 16    // pivots between looks at the context
)

// lpStatus is how a solve ended.
type lpStatus int

const (
	lpOptimal    lpStatus = iota // primal and dual feasible over all rows
	lpInfeasible                 // no solution within the bounds: prune
	lpLimit                      // pivot budget, row cap or numerical trouble: the bound is still valid
)

type colAmt struct {
	col int32
	amt float64
}

type lpRelax struct {
	ctx     context.Context // checked every lpCheckEvery pivots (nil: never)
	m       *model
	cols    []int32   // column -> model bid
	colJob  []int32   // column -> its job's row
	value   []float64 // column -> bid value
	lo, up  []float64 // column bounds
	xN      []float64 // column -> value when nonbasic
	jobCols [][]int32 // job row -> its columns
	resCols [][]colAmt
	rowRes  []int32 // row -> model resource (-1 for a job row)
	rowOf   []int32 // model resource -> row, or -1
	rhs     []float64
	// The basis: position -> variable (column j, or n+i for row i's
	// slack), variable -> position or -1.
	head    []int32
	pos     []int32
	binv    [][]float64 // position -> row of the inverse
	beta    []float64   // position -> basic value
	d       []float64   // variable -> reduced cost, minimising -value
	alpha   []float64   // scratch: variable -> pivot row entry
	anz     []int32     // scratch: the variables alpha has entries for
	ain     []bool      // scratch: variable -> in anz
	cands   []int32     // scratch: the variables entering may pick
	acol    []float64   // scratch: position -> entering column
	act     []float64   // scratch: model resource -> activity
	since   int         // pivots since the last rebuild
	pivots  int64       // pivots in all
	trouble bool        // a rebuild failed: stop claiming anything
	// The row no variable could fix when solve found no solution, and its
	// value less its bound: the dual ray (ray) starts there.
	deadRow   int
	deadDelta float64
	// Scratch: the pivot row's nonzeros, a column's rows and amounts;
	// per position, its inverse row's squared norm and whether that row
	// changed since.
	nz      []int32
	nzv     []float64 // the pivot row's values at nz
	normed  []int32   // the positions whose norm a pivot updates
	entries []int32
	amts    []float64
	norm    []float64
	dirty   []bool
}

// newLP builds the relaxation of jobs (out bids left out when skip is
// set), with only the job rows, slacks basic, every column at the bound
// its value asks for.
func newLP(m *model, jobs []int32, out []bool) *lpRelax {
	lp := &lpRelax{m: m, rowOf: make([]int32, len(m.capacity)), resCols: make([][]colAmt, len(m.capacity))}
	for r := range lp.rowOf {
		lp.rowOf[r] = -1
	}
	for k, j := range jobs {
		mj := m.jobs[j]
		var cs []int32
		for b := mj.first; b < mj.end; b++ {
			if out != nil && out[b] {
				continue
			}
			c := int32(len(lp.cols))
			cs = append(cs, c)
			lp.cols = append(lp.cols, b)
			lp.colJob = append(lp.colJob, int32(k))
			lp.value = append(lp.value, m.value[b])
			as := m.amtF(b)
			for u, r := range m.res(b) {
				lp.resCols[r] = append(lp.resCols[r], colAmt{c, as[u]})
			}
		}
		lp.jobCols = append(lp.jobCols, cs)
		lp.rowRes = append(lp.rowRes, -1)
		lp.rhs = append(lp.rhs, 1)
	}
	n := len(lp.cols)
	lp.lo, lp.up, lp.xN = make([]float64, n), make([]float64, n), make([]float64, n)
	lp.d, lp.pos, lp.alpha = make([]float64, n), make([]int32, n), make([]float64, n)
	lp.ain = make([]bool, n)
	lp.act = make([]float64, len(m.capacity))
	for c := range n {
		lp.up[c], lp.d[c], lp.pos[c] = 1, -lp.value[c], -1
	}
	for i := range lp.rhs {
		lp.addSlack(i)
	}
	lp.place()
	lp.recomputeBeta() // place updates only what moved; the slacks start unset
	return lp
}

// addSlack makes row i's slack basic at a new position whose inverse row
// is e_i, as the new last row of a basis that held no entry in row i.
func (lp *lpRelax) addSlack(i int) {
	rows := len(lp.rhs)
	for p := range lp.binv {
		for len(lp.binv[p]) < rows {
			lp.binv[p] = append(lp.binv[p], 0)
		}
	}
	row := make([]float64, rows)
	row[i] = 1
	lp.binv = append(lp.binv, row)
	lp.head = append(lp.head, int32(len(lp.cols)+i))
	lp.pos = append(lp.pos, int32(len(lp.head)-1))
	lp.d = append(lp.d, 0)
	lp.alpha = append(lp.alpha, 0)
	lp.ain = append(lp.ain, false)
	lp.beta = append(lp.beta, 0)
	lp.acol = append(lp.acol, 0)
	lp.norm = append(lp.norm, 0)
	lp.dirty = append(lp.dirty, true)
}

// addRow adds model resource r's row: its slack enters the basis, and the
// inverse gains the row -a_B B^-1 + e_new.
func (lp *lpRelax) addRow(r int32) {
	i := len(lp.rhs)
	lp.rowRes = append(lp.rowRes, r)
	lp.rowOf[r] = int32(i)
	lp.rhs = append(lp.rhs, float64(lp.m.capacity[r]))
	lp.addSlack(i)
	last := lp.binv[len(lp.binv)-1]
	slack := lp.rhs[i]
	for _, ca := range lp.resCols[r] {
		slack -= ca.amt * lp.colValue(ca.col)
		if p := lp.pos[ca.col]; p >= 0 {
			for k, v := range lp.binv[p] {
				last[k] -= ca.amt * v
			}
		}
	}
	lp.beta[len(lp.beta)-1] = slack
	lp.pivots++ // a row costs about a pivot
}

// isSlack reports whether variable v is a row's slack.
func (lp *lpRelax) isSlack(v int32) bool { return int(v) >= len(lp.cols) }

// colEntries calls f with each row and amount of column c in the LP.
func (lp *lpRelax) colEntries(c int32, f func(i int32, a float64)) {
	f(lp.colJob[c], 1)
	b := lp.cols[c]
	as := lp.m.amtF(b)
	for k, r := range lp.m.res(b) {
		if i := lp.rowOf[r]; i >= 0 {
			f(i, as[k])
		}
	}
}

// place puts each nonbasic column at the bound its reduced cost asks for
// (a fixed column at its value) and updates the basic values: column by
// column when few moved, else from scratch.
func (lp *lpRelax) place() {
	moved := lp.entries[:0] // reused: placed before any ftran below
	var dxs []float64
	for c := range lp.cols {
		if lp.pos[c] >= 0 {
			continue
		}
		x := lp.up[c]
		if lp.lo[c] == lp.up[c] || lp.d[c] >= 0 {
			x = lp.lo[c]
		}
		if x != lp.xN[c] {
			moved = append(moved, int32(c))
			dxs = append(dxs, x-lp.xN[c])
			lp.xN[c] = x
		}
	}
	if len(moved) > 8 {
		lp.recomputeBeta()
		return
	}
	moved = append([]int32(nil), moved...)
	for k, c := range moved {
		acol := lp.ftran(c)
		for p, a := range acol {
			lp.beta[p] -= dxs[k] * a
		}
	}
}

// recomputeBeta sets beta = B^-1 (rhs - N x_N).
func (lp *lpRelax) recomputeBeta() {
	res := append([]float64(nil), lp.rhs...)
	for c := range lp.cols {
		if lp.pos[c] >= 0 || lp.xN[c] == 0 {
			continue
		}
		x := lp.xN[c]
		lp.colEntries(int32(c), func(i int32, a float64) { res[i] -= a * x })
	}
	for p, row := range lp.binv {
		v := 0.0
		for i, w := range row {
			v += w * res[i]
		}
		lp.beta[p] = v
	}
}

// varBounds are variable v's bounds (a slack's are [0, inf)).
func (lp *lpRelax) varBounds(v int32) (float64, float64) {
	if lp.isSlack(v) {
		return 0, lpBigValue
	}
	return lp.lo[v], lp.up[v]
}

// leaving picks the basic position most out of its bounds, weighted by the
// norm of its inverse row (a cheap dual steepest edge), or -1; delta is
// its value less the bound it leaves at.
func (lp *lpRelax) leaving() (int, float64) {
	best, pick, delta := 0.0, -1, 0.0
	for p, x := range lp.beta {
		lo, up := lp.varBounds(lp.head[p])
		var dl float64
		switch {
		case x < lo-lpPrimalTol:
			dl = x - lo
		case x > up+lpPrimalTol:
			dl = x - up
		default:
			continue
		}
		if lp.dirty[p] {
			norm := 0.0
			for _, w := range lp.binv[p] {
				norm += w * w
			}
			lp.norm[p], lp.dirty[p] = norm, false
		}
		if score := dl * dl / max(lp.norm[p], 1e-12); score > best {
			best, pick, delta = score, p, dl
		}
	}
	return pick, delta
}
