package auction

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// randomProblem is a small random window: 3-7 jobs of 1-3 bids over 5
// nodes, crowded enough that capacities bind.
func randomProblem(rng *rand.Rand) *Problem {
	p := &Problem{Nodes: make([]Node, 5)}
	for n := range p.Nodes {
		p.Nodes[n] = Node{CPUs: 1 + rng.IntN(8), GPUs: rng.IntN(3)}
	}
	jobs := 3 + rng.IntN(5)
	prios := make([]int64, jobs)
	for j := range jobs {
		prios[j] = int64(1 + rng.IntN(20))
		job := Job{ID: int64(j + 1), Priority: prios[j]}
		for range 1 + rng.IntN(3) {
			var b Bid
			for _, n := range rng.Perm(5)[:1+rng.IntN(3)] {
				u := Use{Node: n, Cores: 1 + rng.IntN(p.Nodes[n].CPUs)}
				if p.Nodes[n].GPUs > 0 {
					u.GPUs = rng.IntN(p.Nodes[n].GPUs + 1)
				}
				b.Uses = append(b.Uses, u)
			}
			b.Level = rng.IntN(3)
			b.Cost = Cost(System{Nodes: 5, MaxLevel: 2, MaxGPUs: 2}, len(b.Uses), b.Level, b.Uses[0].GPUs)
			job.Bids = append(job.Bids, b)
		}
		p.Jobs = append(p.Jobs, job)
	}
	p.Alpha = Alpha(prios)
	return p
}

// bruteForce enumerates every selection.
func bruteForce(p *Problem) (float64, Selection) {
	sel := make(Selection, len(p.Jobs))
	best, bestSel := math.Inf(-1), Selection(nil)
	var rec func(j int)
	rec = func(j int) {
		if j == len(p.Jobs) {
			if v, err := p.Evaluate(sel); err == nil && v > best {
				best, bestSel = v, append(Selection(nil), sel...)
			}
			return
		}
		for i := -1; i < len(p.Jobs[j].Bids); i++ {
			sel[j] = i
			rec(j + 1)
		}
	}
	rec(0)
	return best, bestSel
}

// The exact search equals brute force; every solution is feasible; the
// bound is never below the optimum, nor below the greedy pick's value.
func TestSolveMatchesBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	cases := 300
	if testing.Short() {
		cases = 60
	}
	for c := range cases {
		p := randomProblem(rng)
		want, _ := bruteForce(p)
		sol, err := Solve(t.Context(), p, Options{Seed: uint64(c)})
		require.NoError(t, err)
		got, err := p.Evaluate(sol.Selection)
		require.NoError(t, err, "case %d: infeasible", c)
		assert.InDelta(t, sol.Objective, got, 1e-9)
		assert.InDelta(t, want, sol.Objective, 1e-6, "case %d", c)
		assert.True(t, sol.Optimal, "case %d: small windows are proven", c)
		assert.GreaterOrEqual(t, sol.Bound, want-1e-6, "case %d", c)
	}
}

// The bound of a search cut short is still at least the optimum, and the
// solution is still feasible.
func TestBoundValidWhenStoppedEarly(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 3))
	for c := range 40 {
		p := randomProblem(rng)
		want, _ := bruteForce(p)
		sol, err := Solve(t.Context(), p, Options{MaxNodes: 1, Rounds: 1, ExactJobs: 1})
		require.NoError(t, err)
		assert.True(t, p.Feasible(sol.Selection), "case %d", c)
		assert.GreaterOrEqual(t, sol.Bound+1e-6, want, "case %d", c)
		assert.GreaterOrEqual(t, sol.Bound+1e-9, sol.Objective)
	}
}

// Seed 001's proof as a test: with alpha = P_min_diff/3 and costs in
// (0, 3], a job of higher priority is worth more than one of lower
// priority whatever their bids.
func TestAlphaKeepsPriorityOrder(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	sys := System{Nodes: 1024, MaxLevel: 2, MaxGPUs: 3}
	for range testLength(300, 2000) {
		prios := make([]int64, 2+rng.IntN(30))
		for k := range prios {
			prios[k] = rng.Int64N(1 << 20)
		}
		alpha := Alpha(prios)
		cost := func() float64 { // anywhere in (0, 3], extremes included
			switch rng.IntN(4) {
			case 0:
				return Cost(sys, 1024, 2, 0) // 3, the worst
			case 1:
				return Cost(sys, 1, 0, 3) // the best, just above 0
			}
			return Cost(sys, 1+rng.IntN(1024), rng.IntN(3), rng.IntN(4))
		}
		for a := range prios {
			for b := range prios {
				if prios[a] > prios[b] {
					ca, cb := cost(), cost()
					require.Greater(t, float64(prios[a])-alpha*ca, float64(prios[b])-alpha*cb,
						"P %d > %d, costs %v %v, alpha %v", prios[a], prios[b], ca, cb, alpha)
				}
			}
		}
	}
}

// Same input and options, same answer (runs ended by budgets, not time).
func TestSolveDeterministic(t *testing.T) {
	p, err := GenerateWindow(WindowSpec{Jobs: 40, Bids: 8, Seed: 5})
	require.NoError(t, err)
	opts := Options{MaxNodes: 200_000, Rounds: 2000, Seed: 3}
	a, err := Solve(t.Context(), p, opts)
	require.NoError(t, err)
	b, err := Solve(t.Context(), p, opts)
	require.NoError(t, err)
	assert.Equal(t, a, b)
	assert.True(t, p.Feasible(a.Selection))
	assert.GreaterOrEqual(t, a.Bound+1e-6, a.Objective)
}

// Few pricing steps (what a cheap scheduler pass asks for) may loosen the
// bound but never invalidate it: each run's bound is at least the other
// run's solution, and both are feasible.
func TestFewPricingStepsBoundStaysValid(t *testing.T) {
	for seed := range uint64(2) {
		p, err := GenerateWindow(WindowSpec{Jobs: 40, Bids: 8, Seed: 20 + seed})
		require.NoError(t, err)
		few, err := Solve(t.Context(), p, Options{PricingSteps: 3, Rounds: 200, MaxNodes: 20_000, Seed: seed})
		require.NoError(t, err)
		full, err := Solve(t.Context(), p, Options{Rounds: 800, MaxNodes: 50_000, Seed: seed})
		require.NoError(t, err)
		for _, s := range []*Solution{few, full} {
			assert.True(t, p.Feasible(s.Selection), "seed %d", seed)
		}
		assert.GreaterOrEqual(t, few.Bound+1e-6, full.Objective, "seed %d", seed)
		assert.GreaterOrEqual(t, full.Bound+1e-6, few.Objective, "seed %d", seed)
	}
}
