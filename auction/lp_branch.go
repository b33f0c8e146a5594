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
// and the node re-solved. Each trial starts from the node's own optimal
// basis (saved once, restored after each child): a trial that started
// where the last one stopped, as the first version did, scored its
// candidates by how far that basis happened to be from the child's, and
// the tree's size swung from 369 to over 3,000 nodes with the order of
// the jobs alone on J50_B10_s101. The up child of the pick keeps its
// trial's basis, where the tree's first visit to it starts.

// sbCands is the unreliable candidates strong-branched per node,
// sbPivots the pivots per child, sbReliable the strong-branching tries
// after which a column is scored by its pseudo-costs. Measured on
// J50_B10_s101 from the optimum with five orders of the jobs (LP nodes;
// BENCHMARKS.md "Auction: proofs (fifth round)"): 60 pivots a child
// gave 33-291 nodes where 30 gave 385 to over 2,000 and the old 10
// without restoring the basis 369 to over 2,000; 120 pivots 89-167 nodes
// but more pivots in all; 4 or 12 candidates, or two tries before the
// pseudo-costs count, were within the noise of 8 and one.
const (
	sbCands    = 8
	sbPivots   = 60
	sbReliable = 1
)

// strongBranch picks the column to branch on at a node of bound U, -1 when
// the solution is whole, and returns the node's bound after any fixing
// and re-solve; pruned when the node needs no branching (both
// children of a candidate pruned, or the re-solve after fixing is).
// t.pickValid tells whether t.pickBasis holds the pick's up child.
func (t *lpTree) strongBranch(U float64, undo *[]boundChange) (int32, float64, bool) {
	lp := t.lp
	for {
		cands := t.candidates()
		if len(cands) == 0 {
			return -1, U, false
		}
		pick, best, fixed, tried := int32(-1), -1.0, false, 0
		if lp.since > lpRefactor/2 {
			// Each trial restarts from the saved inverse and its pivot
			// count: a fresh one keeps 16 trials from rebuilding it anew.
			lp.refactor()
		}
		lp.save(&t.sbBasis)
		t.pickValid = false
		for _, cd := range cands {
			c := cd.c
			if t.reliable(c) {
				if sc := t.estimate(c, cd.x); sc > best {
					pick, best, t.pickValid = c, sc, false
				}
				continue
			}
			if tried >= sbCands {
				continue
			}
			tried++
			down := t.childBound(c, lp.lo[c], 0)
			lp.restore(&t.sbBasis)
			up := t.childBound(c, 1, lp.up[c])
			lp.save(&t.upBasis)
			lp.restore(&t.sbBasis)
			t.learn(c, 0, U-down, cd.x)
			t.learn(c, 1, U-up, 1-cd.x)
			dCut, uCut := down <= t.cut(down), up <= t.cut(up)
			if dCut && uCut {
				t.traced(pruneStrong)
				return -1, U, true
			}
			if dCut || uCut {
				held := t.witnessHeld()
				*undo = append(*undo, boundChange{c, lp.lo[c], lp.up[c]})
				if dCut {
					lp.lo[c] = 1
				} else {
					lp.up[c] = 0
				}
				t.tracedFix("strong branching's fixing", held)
				fixed = true
				break
			}
			if sc := max(U-down, 1e-6) * max(U-up, 1e-6); sc > best {
				pick, best, t.pickValid = c, sc, true
				t.upBasis, t.pickBasis = t.pickBasis, t.upBasis
			}
		}
		if !fixed {
			return pick, U, false
		}
		st := lp.solve(lp.pivots + t.pivots)
		if st == lpInfeasible {
			if t.rayPrunes() {
				t.traced(pruneRay)
				return -1, U, true
			}
			return -1, U, t.giveUp()
		}
		U = lp.bound(lp.prices(), t.rc)
		if U <= t.cut(U) {
			t.traced(pruneBound)
			return -1, U, true
		}
		if st != lpOptimal {
			return -1, U, t.giveUp()
		}
	}
}

// Pseudo-costs: the bound's fall per unit of a column's move down (0) or
// up (1), learnt from strong branching; a column tried sbReliable times is
// scored by them and no longer solved (reliability branching).
type pseudoCosts struct {
	sum [2][]float64
	cnt [2][]int32
}

func (t *lpTree) learn(c int32, dir int, gain, move float64) {
	if move > lpIntTol {
		t.pc.sum[dir][c] += max(0, gain) / move
		t.pc.cnt[dir][c]++
	}
}

func (t *lpTree) reliable(c int32) bool {
	return t.pc.cnt[0][c] >= sbReliable && t.pc.cnt[1][c] >= sbReliable
}

// estimate is the product score from the pseudo-costs.
func (t *lpTree) estimate(c int32, x float64) float64 {
	down := t.pc.sum[0][c] / float64(t.pc.cnt[0][c]) * x
	up := t.pc.sum[1][c] / float64(t.pc.cnt[1][c]) * (1 - x)
	return max(down, 1e-6) * max(up, 1e-6)
}

// giveUp marks the search incomplete and stops the node.
func (t *lpTree) giveUp() bool {
	t.complete = false
	return true
}

type branchCand struct {
	c        int32
	x, score float64
}

// candidates are the fractional free columns, the unreliable ones (to be
// strong-branched) first, each kind by fractionality times value.
func (t *lpTree) candidates() []branchCand {
	lp := t.lp
	var cs []branchCand
	for c := range lp.cols {
		x := lp.colValue(int32(c))
		f := min(x, 1-x)
		if f <= lpIntTol || lp.lo[c] == lp.up[c] {
			continue
		}
		cs = append(cs, branchCand{int32(c), x, f * lp.value[c]})
	}
	slices.SortFunc(cs, func(a, b branchCand) int {
		ra, rb := t.reliable(a.c), t.reliable(b.c)
		if ra != rb {
			if ra {
				return 1
			}
			return -1
		}
		return cmp.Or(cmp.Compare(b.score, a.score), cmp.Compare(a.c, b.c))
	})
	return cs
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
		if U, ok := t.rayBound(); ok {
			return U
		}
	}
	return lp.bound(lp.prices(), t.rc)
}
