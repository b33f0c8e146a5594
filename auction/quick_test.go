package auction

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// bigJobsProblem is a window like the replay's: a few nodes of 16 cores
// and 3 GPUs partly busy, and 4-8 jobs that each want a large part of
// them (k nodes, c cores and g GPUs on each), with 1-3 bids on runs of
// k nodes that fit alone, priorities by rank as the planner gives them.
func bigJobsProblem(rng *rand.Rand) *Problem {
	n := 6 + rng.IntN(10)
	return bigJobsWindow(rng, n, 4+rng.IntN(5))
}

// bigJobsWindow is bigJobsProblem's window of n nodes and the given jobs.
func bigJobsWindow(rng *rand.Rand, n, jobs int) *Problem {
	p := &Problem{Nodes: make([]Node, n)}
	for k := range p.Nodes {
		p.Nodes[k] = Node{CPUs: 16 - rng.IntN(12), GPUs: rng.IntN(4)}
	}
	prios := make([]int64, jobs)
	for j := range jobs {
		prios[j] = int64(jobs - j + 1)
		job := Job{ID: int64(j + 1), Priority: prios[j]}
		k, c, g := 1+rng.IntN(n/2+1), 1+rng.IntN(8), rng.IntN(2)
		for range 1 + rng.IntN(3) {
			start := rng.IntN(n - k + 1)
			b := Bid{Level: rng.IntN(3)}
			for x := start; x < start+k; x++ {
				b.Uses = append(b.Uses, Use{Node: x, Cores: min(c, p.Nodes[x].CPUs), GPUs: min(g, p.Nodes[x].GPUs)})
			}
			b.Cost = Cost(System{Nodes: n, MaxLevel: 2, MaxGPUs: 3}, k, b.Level, g)
			job.Bids = append(job.Bids, b)
		}
		p.Jobs = append(p.Jobs, job)
	}
	p.Alpha = Alpha(prios)
	return p
}

// What the quick path proves is the optimum: on random small windows of
// both kinds, whenever it answers, its selection is feasible and worth
// what enumerating every selection finds, and the full solve (which
// proves these windows optimal) finds that value too.
func TestQuickSolveIsOptimal(t *testing.T) {
	for _, tc := range []struct {
		name string
		seed uint64
		gen  func(*rand.Rand) *Problem
	}{{"random", 41, randomProblem}, {"big jobs", 43, bigJobsProblem}} {
		t.Run(tc.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(tc.seed, 1))
			t.Logf("seed %d", tc.seed)
			answered := 0
			cases := testLength(25, 1500)
			for c := range cases {
				p := tc.gen(rng)
				require.NoError(t, p.Validate())
				q := quickSolve(p, 1e-6)
				if q == nil {
					continue
				}
				answered++
				want, _ := bruteForce(p)
				got, err := p.Evaluate(q.Selection)
				require.NoError(t, err, "case %d", c)
				require.InDelta(t, want, got, 1e-9, "case %d", c)
				require.InDelta(t, got, q.Objective, 1e-9, "case %d", c)
				require.True(t, q.Optimal, "case %d", c)
				full := solveModel(t.Context(), p, Options{Seed: uint64(c)}, nil, math.Inf(1), nil)
				require.True(t, full.Optimal, "case %d", c)
				require.InDelta(t, full.Objective, q.Objective, 1e-6, "case %d", c)
			}
			t.Logf("%d of %d answered by the quick path", answered, cases)
			require.Greater(t, answered, cases/4, "the quick path should answer most small windows")
		})
	}
}

// The quick path's first incumbent is the solver's own first greedy: the
// same bids for the same jobs, so that where the full solve keeps its
// greedy the quick path answers the same selection.
func TestQuickGreedyIsSolversGreedy(t *testing.T) {
	rng := rand.New(rand.NewPCG(47, 1))
	t.Logf("seed 47")
	for c := range testLength(200, 2000) {
		p := randomProblem(rng)
		if c%2 == 1 {
			p = bigJobsProblem(rng)
		}
		q := newQuickSearch(p, 1e-6, 0)
		m := buildModel(p)
		s := newSolver(t.Context(), m, Options{}.withDefaults(len(p.Jobs), false))
		want := 0.0
		for _, jobs := range m.components() {
			want += s.greedy(jobs, false)
		}
		sel := make(Selection, len(p.Jobs))
		for k := range sel {
			sel[k] = -1
		}
		for j, b := range s.sel {
			if b >= 0 {
				sel[m.jobs[j].orig] = int(m.origBid[b])
			}
		}
		require.Equal(t, sel, q.sel, "case %d", c)
		require.InDelta(t, want, q.best, 1e-9, "case %d", c)
	}
}

// Solve takes the quick path: with budgets too small for the full solve
// to prove anything (one pricing step bounds by the jobs' best bids), a
// window of big jobs that the greedy cannot all fit is still answered
// optimal, at the value enumeration finds.
func TestSolveTakesQuickPath(t *testing.T) {
	rng := rand.New(rand.NewPCG(53, 1))
	t.Logf("seed 53")
	tiny := Options{PricingSteps: 1, Rounds: 1, MaxNodes: 1, ExactJobs: 1}
	crowded := 0
	for c := range testLength(30, 500) {
		p := bigJobsProblem(rng)
		want, _ := bruteForce(p)
		if _, greedy := newQuickSearch(p, 1e-6, 0).greedy(); greedy >= sumOfBest(p)-1e-9 {
			continue // every job fits: the full solve proves it too
		}
		crowded++
		sol, err := Solve(t.Context(), p, tiny)
		require.NoError(t, err)
		require.True(t, sol.Optimal, "case %d", c)
		require.Zero(t, sol.Rounds, "case %d", c)
		require.InDelta(t, want, sol.Objective, 1e-9, "case %d", c)
	}
	require.Greater(t, crowded, 3)
}

// sumOfBest is the sum over jobs of their best bid's value (0 for none).
func sumOfBest(p *Problem) float64 {
	sum := 0.0
	for j := range p.Jobs {
		best := 0.0
		for i := range p.Jobs[j].Bids {
			best = max(best, p.Value(j, i))
		}
		sum += best
	}
	return sum
}
