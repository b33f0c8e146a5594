package auction

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
)

// A deep escape whose first search its budget stops goes on in the same
// escape, down the aims with more budget, instead of waiting for the next
// escape at the same aim: from greedy packings of crowded windows, with a
// first budget of one node (so that the first search stops wherever the
// root is not the answer), it gains on many such windows, never gives up
// the packing (every aim done) while the optimum gains at least
// deepAimFloor of the root bound's lead, never passes the optimum, keeps
// the selection feasible, and the root bound stays at or above the
// optimum.
func TestDeepEscapeGoesOnAfterABudgetStop(t *testing.T) {
	rng := rand.New(rand.NewPCG(29, 11))
	stopped, gainedAfter, capped := 0, 0, 0
	for trial := range testLength(50, 500) {
		p, m, s := crowdedSolver(rng)
		s.best = make([]float64, len(m.capacity))
		randomStart(rng, s)
		all := everyJob(len(m.jobs))
		s.greedy(all, false)
		before, opt := s.valueOf(all), windowOptimum(s, all)
		_, root := s.lpSearch(all, math.MaxInt32, math.MaxInt32, nil, 2) // the root bound only
		require.GreaterOrEqual(t, root, opt-1e-6, "trial %d: the root bound is below the optimum", trial)
		first := deepBudget{nodes: 1, pivots: math.MaxInt32}
		held := slices.Clone(s.sel)
		probeGain, complete, _ := s.subLP(all, first.nodes, first.pivots, deepAim)
		s.restore(held)
		if complete || probeGain {
			continue // the first search is not stopped by its budget here
		}
		stopped++
		x := &escapes{deepFirst: first}
		x.newPacking(before)
		gained := s.deepEscape(x, all)
		require.Equal(t, s.valueOf(all) > before+s.tol, gained, "trial %d", trial)
		require.LessOrEqual(t, s.valueOf(all), opt+1e-9, "trial %d", trial)
		sol := s.solution(p, make([]float64, 1), false, 0) // panics if infeasible
		require.True(t, p.Feasible(sol.Selection), "trial %d", trial)
		if gained {
			gainedAfter++
		} else if lead := root - before; opt > before+deepAimFloor*lead+s.proofGap+1e-6 {
			// Searches were left for the next escape: the packing is not
			// given up while a gain of deepAimFloor of the lead exists.
			require.GreaterOrEqual(t, x.deep.aim, deepAimFloor, "trial %d: the optimum gains %.3f of the lead", trial, (opt-before)/lead)
			capped++
		}
	}
	require.Positive(t, gainedAfter, "no escape gained after its first search stopped")
	t.Logf("first searches stopped by their budget: %d; escapes that gained after that: %d; that ended on their allowance short of a gain: %d", stopped, gainedAfter, capped)
}
