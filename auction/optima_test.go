package auction

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestBoundsAgainstProvenOptima holds every 100 x 15 window with a proven
// optimum (testdata/optima.tsv, proven by HiGHS outside the repo) to the
// two promises a caller relies on: no answer is worth more than the
// optimum (it would be infeasible or mis-valued), and the bound is never
// below it (Bound is a proof). Work budgets, not time, so it decides the
// same on any machine.
func TestBoundsAgainstProvenOptima(t *testing.T) {
	rounds := 3_000
	if testing.Short() {
		rounds = 100
	}
	checked := 0
	for _, w := range tuneWindows(t) {
		if w.opt == 0 {
			continue
		}
		t.Run(w.name, func(t *testing.T) {
			sol, err := Solve(context.Background(), w.p, Options{Rounds: rounds, MaxNodes: 20_000, Seed: 1})
			require.NoError(t, err)
			require.True(t, w.p.Feasible(sol.Selection))
			tol := 1e-9 * w.opt
			require.LessOrEqual(t, sol.Objective, w.opt+tol, "an answer above the proven optimum")
			require.GreaterOrEqual(t, sol.Bound, w.opt-tol, "a bound below the proven optimum")
			if sol.Optimal {
				require.InDelta(t, w.opt, sol.Objective, tuneEqual, "proven optimal, but not HiGHS's optimum")
			}
		})
		checked++
	}
	require.GreaterOrEqual(t, checked, 6, "testdata/optima.tsv lost its generated windows")
}
