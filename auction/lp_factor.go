package auction

import "math"

// Rebuilding the basis inverse, and the bound. Most basic variables are
// slacks (unit columns), so the inverse needs only the k x k block M of
// the basic bid columns on the rows whose slack is not basic:
//
//	B = [M 0; A21 I]  =>  B^-1 = [M^-1 0; -A21 M^-1 I]
//
// which costs k^3 + (nonzeros of the basic columns) * k, k being the
// basic bids (at most the jobs plus the tight resources).

// refactor rebuilds the inverse, the basic values and the reduced costs;
// a singular block sets trouble.
func (lp *lpRelax) refactor() {
	lp.since = 0
	blk, ok := lp.basisBlock()
	if !ok {
		lp.trouble = true
		return
	}
	mat, basicCols, mRows, slackPos := blk.mat, blk.basicCols, blk.mRows, blk.slackPos
	inv, ok := invertTransposed(mat)
	if !ok {
		lp.trouble = true
		return
	}
	for p := range lp.binv {
		clear(lp.binv[p])
		lp.dirty[p] = true
	}
	for t, p := range basicCols {
		for u, i := range mRows {
			lp.binv[p][i] = inv[t][u]
		}
	}
	for i, p := range slackPos {
		if p >= 0 {
			lp.binv[p][i] = 1
		}
	}
	for t, p := range basicCols {
		lp.colEntries(lp.head[p], func(i int32, a float64) {
			if sp := slackPos[i]; sp >= 0 {
				row := lp.binv[sp]
				for u, ri := range mRows {
					row[ri] -= a * inv[t][u]
				}
			}
		})
	}
	lp.recomputeBeta()
	lp.recomputeDuals()
}

// lpBlock is the basis's block M (mat[t][u]: basic bid column t's entry
// on row mRows[u], a row whose slack is not basic), the positions of the
// basic bids and, per row, its basic slack's position or -1.
type lpBlock struct {
	mat       [][]float64
	basicCols []int32
	mRows     []int32
	slackPos  []int32
}

// basisBlock is the basis's block M; false when it is not square.
func (lp *lpRelax) basisBlock() (lpBlock, bool) {
	rows := len(lp.rhs)
	n := len(lp.cols)
	slackPos := make([]int32, rows) // row -> position of its basic slack, or -1
	for i := range slackPos {
		slackPos[i] = -1
	}
	var basicCols []int32 // positions of the basic bids
	for p, v := range lp.head {
		if lp.isSlack(v) {
			slackPos[int(v)-n] = int32(p)
		} else {
			basicCols = append(basicCols, int32(p))
		}
	}
	rowIdx := make([]int32, rows) // row -> index in M, or -1
	var mRows []int32
	for i := range rowIdx {
		rowIdx[i] = -1
		if slackPos[i] < 0 {
			rowIdx[i] = int32(len(mRows))
			mRows = append(mRows, int32(i))
		}
	}
	k := len(basicCols)
	if len(mRows) != k {
		return lpBlock{}, false
	}
	mat := make([][]float64, k)
	for t, p := range basicCols {
		mat[t] = make([]float64, k)
		lp.colEntries(lp.head[p], func(i int32, a float64) {
			if u := rowIdx[i]; u >= 0 {
				mat[t][u] = a
			}
		})
	}
	return lpBlock{mat, basicCols, mRows, slackPos}, true
}

// invertTransposed returns X with X[t] the t-th row of M^-1, where mat[t]
// is M's t-th column (mat = M^T), by Gauss-Jordan elimination with
// partial pivoting; false when M is numerically singular.
//
// It skips work whose results no later step reads, or whose results it
// knows without computing them, so that every value of the output e, the
// sign of every zero included, is the plain elimination's (a row
// operation over all k columns of a and e):
//   - a's columns up to the pivot's: after step col nothing reads them
//     (the steps after read only columns past col, and the output is e);
//   - a's columns where the pivot row holds a zero: subtracting f times a
//     zero leaves a nonzero as it is and a zero a zero (of either sign),
//     and a's zeros are read only as zeros (no multiplier f, no pivot);
//   - e's columns outside a row's support. Row u of e is a combination of
//     its own unit row (column o[u], o tracking the row swaps) and the
//     earlier pivot rows, so outside the columns A of the rows pivoted so
//     far and o[u] it holds only zeros, all of one sign (negZero[u]): a
//     row scaled by a negative number turns +0 into -0, and -0 - (-0) is
//     +0. A column joining A gets those zeros written out first.
func invertTransposed(mat [][]float64) ([][]float64, bool) {
	k := len(mat)
	// a = M (rows u, columns t), e = I; reduce a to I, e becomes M^-1.
	a, e := make([][]float64, k), make([][]float64, k)
	o, negZero := make([]int32, k), make([]bool, k)
	for u := range k {
		a[u], e[u] = make([]float64, k), make([]float64, k)
		e[u][u], o[u] = 1, int32(u)
		for t := range k {
			a[u][t] = mat[t][u]
		}
	}
	A := make([]int32, 0, k) // e's columns written out in every row
	ax := make([]int32, 0, k)
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
		o[col], o[piv] = o[piv], o[col]
		negZero[col], negZero[piv] = negZero[piv], negZero[col]
		x0 := o[col]
		for u := range k {
			if u != col {
				e[u][x0] = signedZero(negZero[u])
			}
		}
		A = append(A, x0)
		inv := 1 / a[col][col]
		ax = ax[:0] // the pivot row's nonzeros in a, past col
		for x := col + 1; x < k; x++ {
			if a[col][x] *= inv; a[col][x] != 0 {
				ax = append(ax, int32(x))
			}
		}
		ec := e[col]
		for _, x := range A {
			ec[x] *= inv
		}
		zc := signedZero(negZero[col]) * inv
		negZero[col] = math.Signbit(zc)
		for u := range k {
			if f := a[u][col]; u != col && f != 0 {
				eliminateRow(a[u], a[col], ax, f)
				// A row not pivoted yet keeps its own column's 1 (the
				// pivot rows hold zeros there: 1 - f*0 is 1).
				eliminateRow(e[u], ec, A, f)
				zu := signedZero(negZero[u])
				zu -= f * zc
				negZero[u] = math.Signbit(zu)
			}
		}
	}
	return e, true // e = M^-1: row t is basic column t's row of the inverse
}

// eliminateRow subtracts f times the pivot row pr from row u on the
// columns xs.
func eliminateRow(u, pr []float64, xs []int32, f float64) {
	for _, x := range xs {
		u[x] -= f * pr[x]
	}
}

// signedZero is -0 when neg, else +0.
func signedZero(neg bool) float64 {
	if neg {
		return math.Copysign(0, -1)
	}
	return 0
}

// recomputeDuals sets y = c_B B^-1 (c = -value) and every reduced cost.
func (lp *lpRelax) recomputeDuals() {
	rows := len(lp.rhs)
	y := make([]float64, rows)
	for p, v := range lp.head {
		if lp.isSlack(v) {
			continue
		}
		c := -lp.value[v]
		for i, w := range lp.binv[p] {
			y[i] += c * w
		}
	}
	n := len(lp.cols)
	for v := range lp.d {
		switch {
		case lp.pos[v] >= 0:
			lp.d[v] = 0
		case v >= n:
			lp.d[v] = -y[v-n]
		default:
			dv := -lp.value[v]
			lp.colEntries(int32(v), func(i int32, a float64) { dv -= y[i] * a })
			lp.d[v] = dv
		}
	}
}

// prices are the rows' prices in the maximising form: the slacks'
// reduced costs, clamped to >= 0 (any such prices give a valid bound).
func (lp *lpRelax) prices() []float64 {
	n := len(lp.cols)
	pi := make([]float64, len(lp.rhs))
	for i := range pi {
		pi[i] = max(0, lp.d[n+i])
	}
	return pi
}

// bound is the Lagrangian L at prices pi (per row, >= 0; resources
// without a row priced 0): sum_i pi_i*rhs_i plus each column's reduced
// value at whichever bound earns more. It fills rc with the reduced
// values. It is an upper bound on every solution within the columns'
// bounds, however inexact pi is.
func (lp *lpRelax) bound(pi, rc []float64) float64 {
	L := 0.0
	copy(rc, lp.value)
	// Row by row: only the priced rows (a few of them) cost anything.
	for i, p := range pi {
		if p == 0 {
			continue
		}
		L += p * lp.rhs[i]
		if r := lp.rowRes[i]; r < 0 {
			for _, c := range lp.jobCols[i] {
				rc[c] -= p
			}
		} else {
			for _, ca := range lp.resCols[r] {
				rc[ca.col] -= p * ca.amt
			}
		}
	}
	for c, v := range rc {
		if v > 0 {
			L += v * lp.up[c]
		} else {
			L += v * lp.lo[c]
		}
	}
	return L
}

// ray is the prices after a step s along the dual ray of the row at
// position r that no variable could fix (pivot found none to enter):
// along it the bound falls without limit when the bounds admit no
// solution.
func (lp *lpRelax) ray(r int, delta, s float64) []float64 {
	pi := lp.prices()
	sign := 1.0
	if delta > 0 {
		sign = -1
	}
	for i, rho := range lp.binv[r] {
		pi[i] = max(0, pi[i]+sign*s*rho)
	}
	return pi
}
