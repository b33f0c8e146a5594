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
// largest pivot among near-ties; -1 when none can move (no solution). The
// second pass walks only the variables the first found movable.
func (lp *lpRelax) entering(alpha []float64, dir float64) int32 {
	limit := math.Inf(1)
	cands := lp.cands[:0]
	for _, v := range lp.anz {
		a := alpha[v]
		if at, ok := lp.movable(v, a*dir); ok {
			limit = min(limit, (lp.d[v]+at*lpDualTol)/(a*dir))
			cands = append(cands, v)
		}
	}
	lp.cands = cands
	pick, big := int32(-1), 0.0
	for _, v := range cands {
		a := alpha[v]
		if lp.d[v]/(a*dir) <= limit && math.Abs(a) > big {
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
