package auction

// The pivot's update of the dense basis inverse, the dual simplex's
// costliest step: about half its CPU on the planted 30-job windows, where
// the entering column is nonzero on almost every one of 200-odd rows and
// the pivot row on about half (the columns of the rows whose slack is not
// basic; a basic slack's column is a unit column, and stays one).

// updateInverse pivots the inverse on acol[r], touching only the pivot
// row's nonzeros and the rows with a nonzero in acol, and keeps the rows'
// squared norms for leaving (or marks them stale). Each row's arithmetic
// is the plain loop's (old row less a times the scaled pivot row, column
// by column in increasing order, with the dot product its norm update
// needs summed in that order), so every value is the same to the bit;
// lp_exact_test.go checks it against that loop. What changed is the
// schedule: a row whose norm is stale (leaving recomputes it when it needs
// it) skips the dot product, and the other rows go in pairs, so that their
// two sums, each a chain of dependent adds that bounds the loop's speed,
// run side by side. (Four rows at a time were no faster; walking the pivot
// row's nonzeros as runs of consecutive columns was slower, the runs
// being short.)
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
