package auction

import (
	"cmp"
	"math"
	"slices"
)

// The dual simplex's steps (lp_simplex.go): pick the row most out of
// bounds, the entering variable by a Harris ratio test on the reduced
// costs, then update values, reduced costs and the inverse.

// solve runs the dual simplex from the current basis until the solution
// is feasible for every resource (rows added as needed), the bounds admit
// none, or maxPivots pivots in all have been spent.
func (lp *lpRelax) solve(maxPivots int64) lpStatus {
	lp.place()
	for {
		if lp.trouble {
			return lpLimit
		}
		r, delta := lp.leaving()
		if r < 0 {
			added := lp.separate()
			if added == 0 {
				return lpOptimal
			}
			if len(lp.rhs) > lpMaxRows {
				return lpLimit
			}
			continue
		}
		if lp.pivots >= maxPivots || lp.pivots%lpCheckEvery == 0 && lp.ctx != nil && lp.ctx.Err() != nil {
			return lpLimit
		}
		if !lp.pivot(r, delta) {
			lp.deadRow, lp.deadDelta = r, delta
			return lpInfeasible
		}
	}
}

// rowAlpha fills alpha with row r of B^-1 A for every variable, and
// lp.anz with the variables it touched (each once): entering and the
// reduced costs' update walk those alone, not every column.
func (lp *lpRelax) rowAlpha(r int) []float64 {
	n := len(lp.cols)
	for _, v := range lp.anz {
		lp.alpha[v], lp.ain[v] = 0, false
	}
	anz := lp.anz[:0]
	touch := func(v int32) {
		if !lp.ain[v] {
			lp.ain[v] = true
			anz = append(anz, v)
		}
	}
	for i, rho := range lp.binv[r] {
		if math.Abs(rho) < 1e-13 {
			continue
		}
		touch(int32(n + i))
		lp.alpha[n+i] = rho
		if res := lp.rowRes[i]; res < 0 {
			for _, c := range lp.jobCols[i] {
				touch(c)
				lp.alpha[c] += rho
			}
		} else {
			for _, ca := range lp.resCols[res] {
				touch(ca.col)
				lp.alpha[ca.col] += rho * ca.amt
			}
		}
	}
	lp.anz = anz
	return lp.alpha
}

// entering is the Harris ratio test: the nonbasic variable whose reduced
// cost reaches zero first as the leaving row's dual moves (dir = +1 when
// the basic value must fall to its upper bound, -1 when it must rise), the
// largest pivot among near-ties; -1 when none can move (no solution).
func (lp *lpRelax) entering(alpha []float64, dir float64) int32 {
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

// movable reports whether nonbasic v can move the way a (the pivot row's
// entry, signed) asks: up from its lower bound (at = 1) or down from its
// upper bound (at = -1).
func (lp *lpRelax) movable(v int32, a float64) (float64, bool) {
	if lp.pos[v] >= 0 || math.Abs(a) <= lpPivotTol {
		return 0, false
	}
	if lp.isSlack(v) {
		return 1, a > 0
	}
	if lp.lo[v] == lp.up[v] {
		return 0, false
	}
	if lp.xN[v] == lp.lo[v] {
		return 1, a > 0
	}
	return -1, a < 0
}

// ftran fills acol with B^-1 times variable q's column.
func (lp *lpRelax) ftran(q int32) []float64 {
	if lp.isSlack(q) {
		i := int(q) - len(lp.cols)
		for p, row := range lp.binv {
			lp.acol[p] = row[i]
		}
		return lp.acol
	}
	rows, amts := lp.entries[:0], lp.amts[:0]
	lp.colEntries(q, func(i int32, a float64) {
		rows, amts = append(rows, i), append(amts, a)
	})
	lp.entries, lp.amts = rows, amts
	amts = amts[:len(rows)]
	for p, row := range lp.binv {
		v := 0.0
		for k, i := range rows {
			v += row[i] * amts[k]
		}
		lp.acol[p] = v
	}
	return lp.acol
}

// pivot moves the basic variable at position r (delta outside the bound
// it leaves at) out of the basis; false when no variable can enter.
func (lp *lpRelax) pivot(r int, delta float64) bool {
	dir := 1.0
	if delta < 0 {
		dir = -1
	}
	alpha := lp.rowAlpha(r)
	q := lp.entering(alpha, dir)
	if q < 0 {
		return false
	}
	acol := lp.ftran(q)
	piv := acol[r]
	if math.Abs(piv-alpha[q]) > 1e-7*max(1, math.Abs(piv)) {
		// The row and the column disagree: rebuild and retry, unless
		// the inverse is fresh already.
		lp.trouble = lp.trouble || lp.since == 0
		lp.pivots++
		lp.refactor()
		return true // solve stops on trouble
	}
	t := lp.d[q] / alpha[q]
	for _, v := range lp.anz {
		if a := alpha[v]; lp.pos[v] < 0 && a != 0 {
			lp.d[v] -= t * a
		}
	}
	leave := lp.head[r]
	lp.d[leave], lp.d[q] = -t, 0
	xq := 0.0
	if !lp.isSlack(q) {
		xq = lp.xN[q]
	}
	theta := delta / piv
	for p, a := range acol {
		lp.beta[p] -= theta * a
	}
	lp.beta[r] = xq + theta
	if !lp.isSlack(leave) {
		lp.xN[leave] = lp.up[leave]
		if delta < 0 {
			lp.xN[leave] = lp.lo[leave]
		}
	}
	lp.updateInverse(r, acol)
	lp.head[r], lp.pos[q], lp.pos[leave] = q, int32(r), -1
	lp.pivots++
	if lp.since++; lp.since >= lpRefactor {
		lp.refactor()
	}
	return true
}

// updateInverse pivots the inverse on acol[r], touching only the pivot
// row's nonzeros (the inverse is mostly unit columns of basic slacks) and
// marking the rows it changes for leaving's norms. Each row's arithmetic
// is the plain loop's, in the same order, so every value is the same to
// the bit; what changed is the schedule: a row whose norm is stale skips
// the dot product its norm update needs, and the other rows go in pairs,
// so that the two dot products' sums (each a chain of dependent adds,
// which bounds the loop's speed) run side by side.
func (lp *lpRelax) updateInverse(r int, acol []float64) {
	pr := lp.binv[r]
	inv := 1 / acol[r]
	nz, vals := lp.nz[:0], lp.nzv[:0]
	vv := 0.0
	for k, w := range pr {
		if w != 0 {
			w *= inv
			pr[k] = w
			vv += w * w
			nz, vals = append(nz, int32(k)), append(vals, w)
		}
	}
	lp.nz, lp.nzv = nz, vals
	lp.norm[r], lp.dirty[r] = vv, false
	normed := lp.normed[:0] // rows whose norm is kept up to date
	for p, a := range acol {
		if p == r || a == 0 {
			continue
		}
		if lp.dirty[p] {
			axpyRow(lp.binv[p], nz, vals, a)
			continue
		}
		normed = append(normed, int32(p))
	}
	lp.normed = normed
	k := 0
	for ; k+1 < len(normed); k += 2 {
		p, q := normed[k], normed[k+1]
		dp, dq := axpyRowsDot(lp.binv[p], lp.binv[q], nz, vals, acol[p], acol[q])
		lp.updateNorm(p, acol[p], dp, vv)
		lp.updateNorm(q, acol[q], dq, vv)
	}
	if k < len(normed) {
		p := normed[k]
		lp.updateNorm(p, acol[p], axpyRowDot(lp.binv[p], nz, vals, acol[p]), vv)
	}
}

// updateNorm updates position p's squared inverse-row norm after the
// pivot, a being its entry in the entering column, dot its old row's
// product with the scaled pivot row and vv that row's squared norm; a norm
// that has lost most of itself to cancellation is marked to be recomputed.
func (lp *lpRelax) updateNorm(p int32, a, dot, vv float64) {
	old := lp.norm[p]
	nn := old - 2*a*dot + a*a*vv
	lp.norm[p] = nn
	lp.dirty[p] = nn <= 1e-3*old || nn <= 1e-12
}

// axpyRow subtracts a times the pivot row (vals at nz) from row.
func axpyRow(row []float64, nz []int32, vals []float64, a float64) {
	vals = vals[:len(nz)]
	for j, k := range nz {
		w := row[k]
		row[k] = w - a*vals[j]
	}
}

// axpyRowDot is axpyRow returning the old row's dot product with the
// pivot row, summed in nz's order.
func axpyRowDot(row []float64, nz []int32, vals []float64, a float64) float64 {
	vals = vals[:len(nz)]
	dot := 0.0
	for j, k := range nz {
		w := row[k]
		dot += w * vals[j]
		row[k] = w - a*vals[j]
	}
	return dot
}

// axpyRowsDot is axpyRowDot on two distinct rows at once: the same
// operations for each, interleaved.
func axpyRowsDot(row1, row2 []float64, nz []int32, vals []float64, a1, a2 float64) (float64, float64) {
	vals = vals[:len(nz)]
	dot1, dot2 := 0.0, 0.0
	for j, k := range nz {
		v := vals[j]
		w1, w2 := row1[k], row2[k]
		dot1 += w1 * v
		dot2 += w2 * v
		row1[k] = w1 - a1*v
		row2[k] = w2 - a2*v
	}
	return dot1, dot2
}

// separate adds the rows of the resources the current solution overfills
// most (at most lpRowsAdded) and reports how many.
func (lp *lpRelax) separate() int {
	m := lp.m
	var touched []int32
	for c := range lp.cols {
		x := lp.colValue(int32(c))
		if x <= 1e-12 {
			continue
		}
		b := lp.cols[c]
		as := m.amtF(b)
		for k, r := range m.res(b) {
			if lp.rowOf[r] >= 0 {
				continue
			}
			if lp.act[r] == 0 {
				touched = append(touched, r)
			}
			lp.act[r] += as[k] * x
		}
	}
	type over struct {
		r  int32
		by float64
	}
	var viol []over
	for _, r := range touched {
		if c := float64(m.capacity[r]); lp.act[r] > c+lpRowTol {
			viol = append(viol, over{r, (lp.act[r] - c) / c})
		}
		lp.act[r] = 0
	}
	slices.SortFunc(viol, func(a, b over) int { return cmp.Or(cmp.Compare(b.by, a.by), cmp.Compare(a.r, b.r)) })
	for _, o := range viol[:min(len(viol), lpRowsAdded)] {
		lp.addRow(o.r)
	}
	return min(len(viol), lpRowsAdded)
}

// colValue is column c's value in the current solution.
func (lp *lpRelax) colValue(c int32) float64 {
	if p := lp.pos[c]; p >= 0 {
		return lp.beta[p]
	}
	return lp.xN[c]
}
