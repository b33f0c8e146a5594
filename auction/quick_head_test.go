package auction

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// A solve stopped by the head's cut leaves the head out, and so does the
// whole solve: the cut never changes what the reservation decides (the
// head loses). A solve the cut does not stop is the whole solve, bid for
// bid. On windows of big jobs (ranks as priorities, so the head is worth
// most) whose quick search was given too few nodes to answer, as in the
// planner when the full solve runs; enumeration checks the cut itself.
func TestHeadCutKeepsTheDecision(t *testing.T) {
	rng := rand.New(rand.NewPCG(59, 1))
	t.Logf("seed 59")
	stopped := 0
	cases := testLength(40, 400)
	for c := range cases {
		p := bigHeadProblem(rng)
		require.NoError(t, p.Validate())
		q := newQuickSearch(p, 1e-6, 1+rng.IntN(40))
		q.dfs(0, 0, totalCores(p), totalGPUs(p))
		cut := q.headCut()
		require.LessOrEqual(t, bestWithFirst(p), cut, "case %d: a selection with the head above the cut", c)
		opts := ReplayOptions()
		opts.Seed = uint64(c)
		whole := solveModel(t.Context(), p, opts, nil, math.Inf(1), nil)
		cutShort := solveModel(t.Context(), p, opts, nil, cut, nil)
		if cutShort.Stopped != "cancelled" {
			require.Equal(t, whole, cutShort, "case %d: the cut changed a solve it did not stop", c)
			continue
		}
		stopped++
		require.Less(t, cutShort.Selection[0], 0, "case %d", c)
		require.Less(t, whole.Selection[0], 0, "case %d: the whole solve keeps the head", c)
		require.Greater(t, cutShort.Objective, cut, "case %d", c)
	}
	t.Logf("%d of %d solves stopped by the cut", stopped, cases)
	require.Positive(t, stopped)
}

// bigHeadProblem is bigJobsProblem with a head that wants most of the
// nodes, so that it often loses to the jobs behind it.
func bigHeadProblem(rng *rand.Rand) *Problem {
	p := bigJobsProblem(rng)
	n := len(p.Nodes)
	head := &p.Jobs[0]
	head.Bids = nil
	k, c := n/2+rng.IntN(n/2+1), 4+rng.IntN(8)
	for range 1 + rng.IntN(2) {
		start := rng.IntN(n - k + 1)
		b := Bid{Level: 2}
		for x := start; x < start+k; x++ {
			b.Uses = append(b.Uses, Use{Node: x, Cores: min(c, p.Nodes[x].CPUs)})
		}
		b.Cost = Cost(System{Nodes: n, MaxLevel: 2, MaxGPUs: 3}, k, b.Level, 0)
		head.Bids = append(head.Bids, b)
	}
	return p
}

// bestWithFirst is the best value of a selection with job 0, by
// enumeration (-Inf when it has no bid).
func bestWithFirst(p *Problem) float64 {
	sel := make(Selection, len(p.Jobs))
	best := math.Inf(-1)
	var rec func(j int)
	rec = func(j int) {
		if j == len(p.Jobs) {
			if v, err := p.Evaluate(sel); err == nil {
				best = max(best, v)
			}
			return
		}
		from := -1
		if j == 0 {
			from = 0
		}
		for i := from; i < len(p.Jobs[j].Bids); i++ {
			sel[j] = i
			rec(j + 1)
		}
	}
	rec(0)
	return best
}
