package auction

import (
	"context"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A proof within a large Options.Tolerance reported the incumbent itself
// as the Bound, a "proven upper bound" below a better selection: here the
// greedy takes job 1's first bid (20) and a tolerance of 1e11 proves it,
// while jobs 1 and 2 together are worth 31.
func TestBoundStaysAboveTheOptimumUnderLargeTolerance(t *testing.T) {
	p := &Problem{
		Nodes: []Node{{CPUs: 2, GPUs: 2}, {CPUs: 3, GPUs: 1}},
		Jobs: []Job{
			{ID: 1, Priority: 20, Bids: []Bid{
				{Uses: []Use{{Node: 1, Cores: 3}}, Cost: 1.5},
				{Uses: []Use{{Node: 0, Cores: 1, GPUs: 2}}},
			}},
			{ID: 2, Priority: 11, Bids: []Bid{
				{Uses: []Use{{Node: 1, Cores: 3, GPUs: 1}}, Cost: 1.75},
				{Uses: []Use{{Node: 1, Cores: 2}}, Cost: 0.25},
			}},
		},
	}
	const optimum = 31
	for _, tol := range []float64{1e11, 100, 0.5, 0} {
		full := solveModel(context.Background(), p, Options{Tolerance: tol}, nil, math.Inf(1), nil)
		sol, err := Solve(context.Background(), p, Options{Tolerance: tol})
		require.NoError(t, err)
		for name, s := range map[string]*Solution{"Solve": sol, "full solve": full} {
			assert.GreaterOrEqual(t, s.Bound, float64(optimum), "%s, tolerance %v: %+v", name, tol, s)
			if s.Optimal {
				assert.GreaterOrEqual(t, s.Objective, optimum-Options{Tolerance: tol}.tolerance(), "%s, tolerance %v", name, tol)
			}
		}
		if tol == 0 { // the values are whole: the proof is exact, the bound the optimum
			assert.Equal(t, float64(optimum), sol.Bound)
			assert.True(t, sol.Optimal)
		}
	}
}
