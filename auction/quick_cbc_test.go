package auction

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// Against CBC (skipped without it, and in -short): windows of big jobs
// too many for enumeration (12-30 jobs on 20-40 nodes); wherever the quick
// path answers, CBC proves the same optimum value.
func TestQuickSolveAgainstCBC(t *testing.T) {
	if testing.Short() {
		t.Skip("CBC cross-check is long")
	}
	rng := rand.New(rand.NewPCG(61, 1))
	t.Logf("seed 61")
	answered := 0
	for c := range 40 {
		p := bigJobsWindow(rng, 20+rng.IntN(21), 12+rng.IntN(19))
		require.NoError(t, p.Validate())
		q := quickSolve(p, 1e-6)
		if q == nil {
			continue
		}
		answered++
		want, optimal := runCBC(t, p, 20)
		require.True(t, optimal, "case %d: CBC proved nothing in 20 s", c)
		require.InDelta(t, want, q.Objective, 5e-5, "case %d", c)
	}
	t.Logf("%d of 40 answered by the quick path", answered)
	require.Positive(t, answered)
}
