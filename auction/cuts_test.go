package auction

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// No cover or odd-cycle cut removes an integer-feasible selection: on
// small random windows, cuts separated from random fractional points (and
// from the root LP) hold for every selection that fits the capacities,
// found by enumeration.
func TestCutsKeepEveryFeasibleSelection(t *testing.T) {
	rng := rand.New(rand.NewPCG(14, 1))
	cuts := 0
	for c := range 400 {
		p := randomProblem(rng)
		m := buildModel(p)
		if len(m.jobs) == 0 {
			continue
		}
		capacity := append([]int32(nil), m.capacity...)
		adj := m.conflictGraph()
		var all []coverCut
		x := make([]float64, len(m.value))
		for range 20 {
			for b := range x {
				x[b] = []float64{0, 0, 0.2, 0.34, 0.5, 0.67, 0.9, 1}[rng.IntN(8)]
			}
			all = append(all, m.coverCuts(x)...)
			all = append(all, m.oddCycleCuts(adj, x)...)
		}
		cuts += len(all)
		sel := make([]int32, len(m.jobs))
		var rec func(k int, resid []int32)
		rec = func(k int, resid []int32) {
			if k == len(m.jobs) {
				for _, cut := range all {
					in := int32(0)
					for _, b := range cut.bids {
						if sel[m.jobOf[b]] == b {
							in++
						}
					}
					require.LessOrEqual(t, in, cut.rhs, "case %d: cut %v removes selection %v", c, cut, sel)
				}
				return
			}
			sel[k] = -1
			rec(k+1, resid)
			for b := m.jobs[k].first; b < m.jobs[k].end; b++ {
				if m.fits(b, resid) {
					m.take(b, resid)
					sel[k] = b
					rec(k+1, resid)
					m.give(b, resid)
				}
			}
		}
		rec(0, capacity)
	}
	require.Greater(t, cuts, 1000, "the random points separated too few cuts to test anything")
}
