package auction

import (
	"math/rand/v2"
	"testing"

	"github.com/hpcsched/hpcsched/internal/testseed"
	"github.com/hpcsched/hpcsched/topology"
	"github.com/stretchr/testify/require"
)

// Skipping the bids that take more cores or GPUs in all than are free
// changes nothing the quick search finds: the same selection and value,
// the same nodes visited, the same proof or stop, the same first job's
// bound, on random problems, the paper's generated windows and the
// planner's problems on random loads, within budgets that stop some
// searches.
func TestQuickSkipByTotalsAsTryingAll(t *testing.T) {
	seed := testseed.Draw(t)
	rng := rand.New(rand.NewPCG(seed, 33))
	_, tree := topology.Seed001()
	arena := &useArena{recycle: true}
	check := func(p *Problem) {
		t.Helper()
		for _, limit := range []int{40, 400, quickNodes} {
			fast, slow := newQuickSearch(p, 1e-6, limit), newQuickSearch(p, 1e-6, limit)
			slow.noTotals = true
			fast.dfs(0, 0, totalCores(p), totalGPUs(p))
			slow.dfs(0, 0, totalCores(p), totalGPUs(p))
			require.Equal(t, slow.sel, fast.sel)
			require.Equal(t, slow.best, fast.best)
			require.Equal(t, slow.nodes, fast.nodes)
			require.Equal(t, slow.stopped, fast.stopped)
			require.Equal(t, slow.firstDone, fast.firstDone)
			require.Equal(t, slow.firstBest, fast.firstBest)
		}
	}
	rounds := 30
	if testing.Short() {
		rounds = 8
	}
	for k := range rounds {
		check(randomProblem(rng))
		if k%4 == 0 {
			p, err := GenerateWindow(WindowSpec{Jobs: 10 + rng.IntN(30), Bids: 1 + rng.IntN(8), Seed: rng.Uint64()})
			require.NoError(t, err)
			check(p)
		}
		load := seed001Load(rng, tree.NodeCount())
		var window []WindowJob
		for j := range 40 {
			w := randomWindowJob(rng, int64(j+1))
			w.Priority = int64(41 - j)
			window = append(window, w)
		}
		p, err := generateBids(window, load, tree, BidOptions{MaxBids: 10}, arena)
		require.NoError(t, err)
		check(p)
	}
}
