package auction

import (
	"math/rand/v2"
	"testing"

	"github.com/hpcsched/hpcsched/internal/testseed"
	"github.com/hpcsched/hpcsched/topology"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A recycling arena hands its blocks out again after a reset, each slice
// capped at its own length, so that an append to one never runs into the
// next; a plain one allocates every slice.
func TestUseArenaRecycles(t *testing.T) {
	a := &useArena{recycle: true}
	x, y := a.take(3), a.take(useBlock) // y does not fit what x left: a block of its own
	require.Len(t, x, 3)
	require.Equal(t, 3, cap(x))
	require.Len(t, y, useBlock)
	x = append(x, Use{Node: 9})
	assert.Zero(t, y[0].Node, "an append past a slice's end moves it, never into the next")
	a.reset()
	z := a.take(2)
	assert.Same(t, &a.blocks[0][0], &z[0], "the first block again")
	assert.Len(t, a.blocks, 2)
	plain := &useArena{}
	assert.Len(t, plain.take(5), 5)
	assert.Empty(t, plain.blocks)
}

// The planner's problems (made from a recycling arena, one after another
// on it) are the problems GenerateBids makes, and their totals are their
// bids' uses summed: random windows of every request kind, some taking
// whole nodes, on random loads of the AUCSCHED3 paper's system.
func TestPlannerProblemsAndTotals(t *testing.T) {
	seed := testseed.Draw(t)
	rng := rand.New(rand.NewPCG(seed, 41))
	_, tree := topology.Seed001()
	arena := &useArena{recycle: true}
	bids := 0
	for range 12 {
		load := seed001Load(rng, tree.NodeCount())
		var window []WindowJob
		for j := range 30 {
			w := randomWindowJob(rng, int64(j+1))
			w.Priority, w.Cores = int64(100-j), 1+w.Cores%256 // small enough to get bids
			if w.Nodes > 0 {
				w.Nodes = 1 + w.Nodes%16
				w.Cores = min(max(w.Cores, w.Nodes), 16*w.Nodes)
			}
			if rng.IntN(4) == 0 {
				w.Whole, w.Room = true, func(int) int { return 16 }
			}
			window = append(window, w)
		}
		got, err := generateBids(window, load, tree, BidOptions{}, arena)
		require.NoError(t, err)
		want, err := GenerateBids(window, load, tree, BidOptions{})
		require.NoError(t, err)
		require.Len(t, got.totals, len(got.Jobs))
		for j, job := range got.Jobs {
			require.Len(t, got.totals[j], len(job.Bids))
			for i, b := range job.Bids {
				var sum item
				for _, u := range b.Uses {
					sum.cores += u.Cores
					sum.gpus += u.GPUs
				}
				require.Equal(t, sum, got.totals[j][i], "job %d bid %d", job.ID, i)
			}
			bids += len(job.Bids)
		}
		assert.Nil(t, want.totals, "GenerateBids' problems may be changed: no totals")
		got.totals = nil
		require.Equal(t, want, got)
	}
	assert.Greater(t, bids, 500, "bids made")
}
