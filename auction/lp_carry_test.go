package auction

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The LP search cut into many short attempts, each resuming the last
// one's open nodes with its pseudo-costs (pivot budgets 10, 20, 40, ...),
// ends with the optimum (brute force over the whole window), as one
// search from scratch does, and the attempts do resume.
func TestLPCarryKeepsOptimum(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 3))
	cases, resumed := bruteCases(), 0
	for c := range cases {
		p, m, s := crowdedSolver(rng)
		want, _ := bruteForce(p)
		carry := s.carried()
		total := 0.0
		for _, jobs := range m.components() {
			complete := false
			for pivots := int64(10); !complete; pivots *= 2 {
				if o := carry.open[jobs[0]]; o != nil && len(o.nodes) > 0 && o.nodes[0] != nil {
					resumed++ // an open node below the root
				}
				complete, _ = s.lpSearch(jobs, math.MaxInt64, pivots, carry, 0)
				require.Less(t, pivots, int64(1<<30), "case %d: never completes", c)
			}
			assert.Nil(t, carry.open[jobs[0]], "case %d: open nodes left after a complete search", c)
			total += s.valueOf(jobs)
		}
		got, err := p.Evaluate(modelSelection(p, m, s))
		require.NoError(t, err, "case %d: infeasible", c)
		assert.InDelta(t, total, got, 1e-6, "case %d", c)
		assert.InDelta(t, want, got, 1e-6, "case %d", c)
	}
	assert.Greater(t, resumed, cases/10, "too few searches resume below the root: the test does not exercise the carry")
}
