package auction

import (
	"cmp"
	"slices"
)

// Strong branching: the candidates' two children are solved for a few
// pivots each (the dual simplex's bound is valid at every pivot, so a
// partial solve still bounds the child), and the bid whose weaker child
// falls most is branched on. A child whose bound reaches the cut is
// pruned at once: the bid is fixed the other way for the node's subtree
// and the node re-solved.

// sbCands is the candidates tried per node, sbPivots the pivots per
// child: on J50_B10_s101, 8 and 25 took 903 nodes to the proof, 8 and 10
// took 3,601 and 2 and 10 did not finish in 20,000; without strong
// branching (most fractional bid by value) 20,000 nodes were not enough.
const (
	sbCands  = 8
	sbPivots = 25
)

// strongBranch picks the column to branch on at a node of bound U, -1 when
// the solution is whole, and returns the node's bound after any fixing
// and re-solve; pruned when the node needs no branching (both
// children of a candidate pruned, or the re-solve after fixing is).
func (t *lpTree) strongBranch(U float64, undo *[]boundChange) (int32, float64, bool) {
	lp := t.lp
	for {
		cands := t.candidates()
		if len(cands) == 0 {
			return -1, U, false
		}
		pick, best, fixed := int32(-1), -1.0, false
		for _, c := range cands {
			down := t.childBound(c, lp.lo[c], 0)
			up := t.childBound(c, 1, lp.up[c])
			dCut, uCut := down <= t.cut(down), up <= t.cut(up)
			switch {
			case dCut && uCut:
				return -1, U, true
			case dCut || uCut:
				*undo = append(*undo, boundChange{c, lp.lo[c], lp.up[c]})
				if dCut {
					lp.lo[c] = 1
				} else {
					lp.up[c] = 0
				}
				fixed = true
			}
			if fixed {
				break
			}
			if sc := max(U-down, 1e-6) * max(U-up, 1e-6); sc > best {
				pick, best = c, sc
			}
		}
		if !fixed {
			return pick, U, false
		}
		st := lp.solve(lp.pivots + t.pivots)
		if st == lpInfeasible {
			return -1, U, t.rayPrunes() || t.giveUp()
		}
		U = lp.bound(lp.prices(), t.rc)
		if U <= t.cut(U) {
			return -1, U, true
		}
		if st != lpOptimal {
			return -1, U, t.giveUp()
		}
	}
}

// giveUp marks the search incomplete and stops the node.
func (t *lpTree) giveUp() bool {
	t.complete = false
	return true
}

// candidates are the sbCands fractional free columns of largest
// fractionality times value.
func (t *lpTree) candidates() []int32 {
	lp := t.lp
	type cand struct {
		c     int32
		score float64
	}
	var cs []cand
	for c := range lp.cols {
		x := lp.colValue(int32(c))
		f := min(x, 1-x)
		if f <= lpIntTol || lp.lo[c] == lp.up[c] {
			continue
		}
		cs = append(cs, cand{int32(c), f * lp.value[c]})
	}
	slices.SortFunc(cs, func(a, b cand) int { return cmp.Or(cmp.Compare(b.score, a.score), cmp.Compare(a.c, b.c)) })
	out := make([]int32, 0, sbCands)
	for _, c := range cs[:min(len(cs), sbCands)] {
		out = append(out, c.c)
	}
	return out
}

// childBound solves the node with column c's bounds set to lo, up for at
// most sbPivots pivots and returns the child's (valid) bound.
func (t *lpTree) childBound(c int32, lo, up float64) float64 {
	lp := t.lp
	oldLo, oldUp := lp.lo[c], lp.up[c]
	lp.lo[c], lp.up[c] = lo, up
	defer func() { lp.lo[c], lp.up[c] = oldLo, oldUp }()
	st := lp.solve(lp.pivots + sbPivots)
	if st == lpInfeasible {
		for _, s := range []float64{1e2, 1e4, 1e6, 1e8} {
			if U := lp.bound(lp.ray(lp.deadRow, lp.deadDelta, s), t.rc); U <= t.cut(U) {
				return U
			}
		}
	}
	return lp.bound(lp.prices(), t.rc)
}
