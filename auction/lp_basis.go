package auction

// Saved bases. A branch's children and strong branching's trial solves
// each move the basis; restarting every child from its parent's optimal
// basis (one bound away from its own optimum) costs a copy of the inverse
// in place of the pivots that would walk back from wherever the last
// solve left it.

// lpBasis is a copy of the basis and its inverse, values and reduced
// costs, taken when the LP had rows rows.
type lpBasis struct {
	rows  int
	head  []int32
	xN    []float64
	binv  []float64 // rows x rows, row-major
	beta  []float64
	d     []float64 // columns' and the rows' slacks' reduced costs
	norm  []float64
	dirty []bool
	since int
}

// save copies the current basis into b (reusing its storage).
func (lp *lpRelax) save(b *lpBasis) {
	rows := len(lp.rhs)
	b.rows, b.since = rows, lp.since
	b.head = append(b.head[:0], lp.head...)
	b.xN = append(b.xN[:0], lp.xN...)
	b.beta = append(b.beta[:0], lp.beta...)
	b.d = append(b.d[:0], lp.d...)
	b.norm = append(b.norm[:0], lp.norm...)
	b.dirty = append(b.dirty[:0], lp.dirty...)
	if cap(b.binv) < rows*rows {
		b.binv = make([]float64, rows*rows, rows*rows*5/4)
	}
	b.binv = b.binv[:rows*rows]
	for p, row := range lp.binv {
		copy(b.binv[p*rows:(p+1)*rows], row)
	}
}

// restore makes the basis b again. Rows added since b was saved keep
// their slacks basic, so the basis stays square and dual feasible: their
// inverse rows are -a_B B^-1 + e_i and their values the rows' slacks.
func (lp *lpRelax) restore(b *lpBasis) {
	rows, n := len(lp.rhs), len(lp.cols)
	r0 := b.rows
	copy(lp.xN, b.xN)
	copy(lp.head, b.head)
	for p := r0; p < rows; p++ {
		lp.head[p] = int32(n + p)
	}
	lp.reindex()
	for p := range r0 {
		row := lp.binv[p]
		copy(row, b.binv[p*r0:(p+1)*r0])
		clear(row[r0:])
	}
	copy(lp.beta, b.beta)
	copy(lp.d, b.d[:n+r0])
	clear(lp.d[n+r0:])
	copy(lp.norm, b.norm)
	copy(lp.dirty, b.dirty)
	for p := r0; p < rows; p++ {
		lp.newRowInverse(p)
	}
	lp.since = b.since
}

// newRowInverse sets the inverse row and value of row i's basic slack at
// position i, for a row added after the rest of the basis was fixed.
func (lp *lpRelax) newRowInverse(i int) {
	last := lp.binv[i]
	clear(last)
	last[i] = 1
	slack := lp.rhs[i]
	for _, ca := range lp.resCols[lp.rowRes[i]] {
		slack -= ca.amt * lp.colValue(ca.col)
		if p := lp.pos[ca.col]; p >= 0 {
			for k, v := range lp.binv[p] {
				last[k] -= ca.amt * v
			}
		}
	}
	lp.beta[i] = slack
	lp.dirty[i] = true
}

// dropLooseRows removes the resource rows whose slack is basic (rows the
// basis does not hold tight, though a degenerate one may sit at zero):
// their inverse rows are the dense part of the inverse, and every pivot
// pays for them. With the slack of row i basic at position p, column i of
// the inverse is e_p, so the smaller basis's inverse is the old one less
// row p and column i, and the solution stays optimal. A dropped row comes
// back through separate when a solution overfills it. It returns the rows
// dropped. Measured on J50_B10_s101 from the optimum over twelve orders
// of the jobs: dropping only the rows with room left kept 180-250 rows
// (17-20 us a pivot), mean 0.51 s; dropping the degenerate ones too keeps
// 125-160 (12-13 us), the trees a little larger, mean 0.47 s.
func (lp *lpRelax) dropLooseRows() int {
	n, rows := len(lp.cols), len(lp.rhs)
	newIdx := make([]int32, rows)
	kept := 0
	for i := range rows {
		newIdx[i] = -1
		if i < len(lp.jobCols) || lp.pos[n+i] < 0 {
			newIdx[i] = int32(kept)
			kept++
		}
	}
	if kept == rows {
		return 0
	}
	var head []int32
	var beta, norm []float64
	var binv [][]float64
	for p, v := range lp.head {
		if lp.isSlack(v) && newIdx[int(v)-n] < 0 {
			continue
		}
		if lp.isSlack(v) {
			v = int32(n) + newIdx[int(v)-n]
		}
		row := lp.binv[p]
		k := 0
		for i, w := range row {
			if newIdx[i] >= 0 {
				row[k] = w
				k++
			}
		}
		head, beta, binv = append(head, v), append(beta, lp.beta[p]), append(binv, row[:k])
		norm = append(norm, 0)
	}
	d := lp.d[:n]
	for i := range rows {
		if newIdx[i] >= 0 {
			lp.rowRes[newIdx[i]], lp.rhs[newIdx[i]] = lp.rowRes[i], lp.rhs[i]
			d = append(d, lp.d[n+i])
		} else {
			lp.rowOf[lp.rowRes[i]] = -1
		}
	}
	lp.rowRes, lp.rhs, lp.d = lp.rowRes[:kept], lp.rhs[:kept], d
	for i, r := range lp.rowRes {
		if r >= 0 {
			lp.rowOf[r] = int32(i)
		}
	}
	lp.head, lp.beta, lp.binv, lp.norm = head, beta, binv, norm
	lp.pos = make([]int32, n+kept)
	lp.reindex()
	lp.dirty = make([]bool, kept)
	for p := range lp.dirty {
		lp.dirty[p] = true
	}
	lp.alpha, lp.acol = make([]float64, n+kept), make([]float64, kept)
	lp.ain, lp.anz = make([]bool, n+kept), lp.anz[:0]
	return rows - kept
}

// reindex makes pos (variable -> basis position, -1 when nonbasic) again
// from head.
func (lp *lpRelax) reindex() {
	for v := range lp.pos {
		lp.pos[v] = -1
	}
	for p, v := range lp.head {
		lp.pos[v] = int32(p)
	}
}
