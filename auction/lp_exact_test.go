package auction

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/hpcsched/hpcsched/internal/testseed"
	"github.com/stretchr/testify/require"
)

// The basis inverse's kernels (updateInverse, invertTransposed) skip work
// and reorder rows for speed, and must give every value the plain loops
// below give, to the bit (the sign of zeros included): the dual simplex's
// pivots, and so the trees' nodes and the bounds, depend on them. These
// are the plain versions, kept as the reference.

// refUpdateInverse is updateInverse as one plain loop over the rows, on
// binv, norm and dirty.
func refUpdateInverse(binv [][]float64, norm []float64, dirty []bool, r int, acol []float64) {
	pr := binv[r]
	inv := 1 / acol[r]
	var nz []int32
	var vals []float64
	vv := 0.0
	for k, w := range pr {
		if w != 0 {
			w *= inv
			pr[k] = w
			vv += w * w
			nz, vals = append(nz, int32(k)), append(vals, w)
		}
	}
	norm[r], dirty[r] = vv, false
	for p, a := range acol {
		if p == r || a == 0 {
			continue
		}
		row := binv[p]
		dot := 0.0
		for j, k := range nz {
			w := row[k]
			dot += w * vals[j]
			row[k] = w - a*vals[j]
		}
		if !dirty[p] {
			old := norm[p]
			nn := old - 2*a*dot + a*a*vv
			norm[p] = nn
			dirty[p] = nn <= 1e-3*old || nn <= 1e-12
		}
	}
}

// refInvertTransposed is invertTransposed as plain Gauss-Jordan
// elimination over every column of a and e.
func refInvertTransposed(mat [][]float64) ([][]float64, bool) {
	k := len(mat)
	a, e := make([][]float64, k), make([][]float64, k)
	for u := range k {
		a[u], e[u] = make([]float64, k), make([]float64, k)
		e[u][u] = 1
		for t := range k {
			a[u][t] = mat[t][u]
		}
	}
	for col := range k {
		piv := col
		for u := col + 1; u < k; u++ {
			if math.Abs(a[u][col]) > math.Abs(a[piv][col]) {
				piv = u
			}
		}
		if math.Abs(a[piv][col]) < 1e-10 {
			return nil, false
		}
		a[col], a[piv] = a[piv], a[col]
		e[col], e[piv] = e[piv], e[col]
		inv := 1 / a[col][col]
		for x := range k {
			a[col][x] *= inv
			e[col][x] *= inv
		}
		for u := range k {
			if f := a[u][col]; u != col && f != 0 {
				for x := range k {
					a[u][x] -= f * a[col][x]
					e[u][x] -= f * e[col][x]
				}
			}
		}
	}
	return e, true
}

// refEntering is entering with both passes over every variable the pivot
// row touches.
func refEntering(lp *lpRelax, alpha []float64, dir float64) int32 {
	limit := math.Inf(1)
	for _, v := range lp.anz {
		a := alpha[v]
		if at, ok := lp.movable(v, a*dir); ok {
			limit = min(limit, (lp.d[v]+at*lpDualTol)/(a*dir))
		}
	}
	pick, big := int32(-1), 0.0
	for _, v := range lp.anz {
		a := alpha[v]
		if _, ok := lp.movable(v, a*dir); ok && lp.d[v]/(a*dir) <= limit && math.Abs(a) > big {
			pick, big = v, math.Abs(a)
		}
	}
	return pick
}

// sameBits reports the first index where xs and ys differ in their bits
// (-0 and +0 differ), or -1.
func sameBits(xs, ys []float64) int {
	if len(xs) != len(ys) {
		return 0
	}
	for i := range xs {
		if math.Float64bits(xs[i]) != math.Float64bits(ys[i]) {
			return i
		}
	}
	return -1
}

func requireSameMatrix(t *testing.T, want, got [][]float64, what string) {
	t.Helper()
	require.Len(t, got, len(want), what)
	for p := range want {
		if i := sameBits(want[p], got[p]); i >= 0 {
			t.Fatalf("%s: row %d differs at %d: %v (bits %x), plain loop %v (bits %x)", what, p, i,
				got[p][i], math.Float64bits(got[p][i]), want[p][i], math.Float64bits(want[p][i]))
		}
	}
}

func cloneMatrix(m [][]float64) [][]float64 {
	c := make([][]float64, len(m))
	for p := range m {
		c[p] = slices.Clone(m[p])
	}
	return c
}

// exactLP is an LP relaxation whose every pivot and every rebuild's
// block inversion is checked against the plain loops.
type exactLP struct {
	t                  *testing.T
	lp                 *lpRelax
	pivots, inversions int
	steps              int // steps so far
	maxSteps           int // steps at most
	// invertEvery: a block inversion (k^3, k about 120 on the planted
	// 30-job windows) is checked at one step in this many
	invertEvery int
}

// step runs the dual simplex for one pivot at most (or a round of the
// separation), checking the pivot's update of the inverse and, when the
// basis is square, the inversion of its block; it returns solve's status.
func (x *exactLP) step() lpStatus {
	lp := x.lp
	x.steps++
	if blk, ok := lp.basisBlock(); ok && x.steps%x.invertEvery == 1 {
		want, wok := refInvertTransposed(blk.mat)
		got, gok := invertTransposed(cloneMatrix(blk.mat))
		require.Equal(x.t, wok, gok, "singular")
		requireSameMatrix(x.t, want, got, "block inverse")
		x.inversions++
	}
	lp.place()
	// solve's first steps, done again there to no effect: leaving brings
	// norms up to date, and the pivot it picks must enter the same variable.
	if r, delta := lp.leaving(); r >= 0 {
		dir := 1.0
		if delta < 0 {
			dir = -1
		}
		alpha := lp.rowAlpha(r)
		require.Equal(x.t, refEntering(lp, alpha, dir), lp.entering(alpha, dir), "entering")
	}
	binv, norm, dirty := cloneMatrix(lp.binv), slices.Clone(lp.norm), slices.Clone(lp.dirty)
	head, p0 := slices.Clone(lp.head), lp.pivots
	st := lp.solve(lp.pivots + 1)
	if lp.pivots != p0+1 || lp.since == 0 || len(lp.head) != len(head) {
		return st // a row added, a rebuild, or no pivot
	}
	r := slices.IndexFunc(head, func(v int32) bool { return lp.pos[v] < 0 })
	require.GreaterOrEqual(x.t, r, 0)
	refUpdateInverse(binv, norm, dirty, r, lp.acol)
	requireSameMatrix(x.t, binv, lp.binv, "inverse after a pivot")
	// solve's leaving, after the pivot, computes afresh some stale norms.
	for p := range norm {
		want := norm[p]
		switch {
		case !dirty[p]:
			require.False(x.t, lp.dirty[p], "position %d", p)
		case lp.dirty[p]:
			continue
		default:
			want = 0
			for _, w := range lp.binv[p] {
				want += w * w
			}
		}
		if math.Float64bits(want) != math.Float64bits(lp.norm[p]) {
			x.t.Fatalf("norm %d: %v, plain loop %v", p, lp.norm[p], want)
		}
	}
	x.pivots++
	return st
}

// solve steps until the LP is solved, infeasible or stopped, or until
// maxSteps steps in all.
func (x *exactLP) solve() lpStatus {
	for x.steps < x.maxSteps {
		if st := x.step(); st != lpLimit || x.lp.trouble {
			return st
		}
	}
	return lpLimit
}

// Random dives on fresh planted windows (seed drawn and logged): solved
// pivot by pivot, with bounds fixed as branching does, loose rows
// dropped and bases saved and restored, every pivot's inverse and norms
// and every block inverse equal to the plain loops' to the bit.
func TestInverseKernelsMatchThePlainLoops(t *testing.T) {
	seed := testseed.Draw(t)
	rng := rand.New(rand.NewPCG(seed, 7))
	windows, jobs, dives, steps, every := 2, 30, 6, 3000, 25
	if testing.Short() { // -race makes each step about 20 times dearer
		windows, jobs, dives, steps, every = 1, 14, 3, 250, 3
	}
	total := exactLP{t: t}
	for range windows {
		p := plantedWindow(rng.Uint64(), jobs, 8, 2)
		m := buildModel(p)
		x := &exactLP{t: t, lp: newLP(m, m.components()[0], nil), maxSteps: steps, invertEvery: every}
		x.solve()
		var saved lpBasis
		for range dives {
			x.lp.save(&saved)
			if !x.dive(rng) { // a basis saved before rows were dropped no longer fits
				x.lp.restore(&saved)
			}
		}
		total.pivots += x.pivots
		total.inversions += x.inversions
	}
	t.Logf("%d pivots and %d block inversions checked", total.pivots, total.inversions)
	require.Greater(t, total.pivots, 50)
}

// dive fixes fractional columns one way or the other at random and
// re-solves, dropping the loose rows now and then, until the solution is
// whole or the bounds admit none; it undoes its bounds and reports
// whether it dropped rows.
func (x *exactLP) dive(rng *rand.Rand) (dropped bool) {
	lp := x.lp
	var undo []boundChange
	defer func() {
		for k := len(undo) - 1; k >= 0; k-- {
			lp.lo[undo[k].col], lp.up[undo[k].col] = undo[k].lo, undo[k].up
		}
	}()
	for depth := 0; depth < 12; depth++ {
		var frac []int32
		for c := range lp.cols {
			if v := lp.colValue(int32(c)); v > lpIntTol && v < 1-lpIntTol && lp.lo[c] != lp.up[c] {
				frac = append(frac, int32(c))
			}
		}
		if len(frac) == 0 {
			return dropped
		}
		c := frac[rng.IntN(len(frac))]
		undo = append(undo, boundChange{c, lp.lo[c], lp.up[c]})
		if rng.IntN(2) == 0 {
			lp.lo[c] = 1
		} else {
			lp.up[c] = 0
		}
		if rng.IntN(3) == 0 {
			dropped = lp.dropLooseRows() > 0 || dropped
		}
		if st := x.solve(); st != lpOptimal || lp.trouble {
			return dropped
		}
	}
	return dropped
}

// Random square matrices with negative entries and zeros (where the
// elimination's negative pivots make -0s): the block inversion equals the
// plain elimination to the bit.
func TestInvertTransposedMatchesThePlainLoop(t *testing.T) {
	seed := testseed.Draw(t)
	rng := rand.New(rand.NewPCG(seed, 8))
	for c := range 300 {
		k := 1 + rng.IntN(24)
		mat := make([][]float64, k)
		for i := range mat {
			mat[i] = make([]float64, k)
			for j := range mat[i] {
				switch rng.IntN(4) {
				case 0:
					mat[i][j] = float64(rng.IntN(5) - 2)
				case 1:
					mat[i][j] = rng.NormFloat64()
				}
			}
		}
		want, wok := refInvertTransposed(mat)
		got, gok := invertTransposed(cloneMatrix(mat))
		require.Equal(t, wok, gok, "case %d: singular", c)
		requireSameMatrix(t, want, got, "inverse")
	}
}
