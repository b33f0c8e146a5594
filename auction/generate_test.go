package auction

import (
	"testing"

	"github.com/hpcsched/hpcsched/topology"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func idleLoad(n int) Load {
	l := Load{CPUs: make([]int, n), GPUs: make([]int, n), MaxGPUs: 3}
	for i := range l.CPUs {
		l.CPUs[i], l.GPUs[i] = 16, 3
	}
	return l
}

// Every generated bid asks exactly what its job asked: x cores, exactly y
// nodes when y is set, GPUs per node in the job's range, within the free
// resources; at most MaxBids a job; costs by formula (5).
func TestGenerateBidsHonourRequests(t *testing.T) {
	_, tree := topology.Seed001()
	for seed := uint64(1); seed <= 4; seed++ {
		p, err := GenerateWindow(WindowSpec{Jobs: 60, Bids: 8, Seed: seed, Ranges: seed%2 == 0})
		require.NoError(t, err)
		require.NoError(t, p.Validate())
		sys := System{Nodes: 1024, MaxLevel: 2, MaxGPUs: 3}
		for _, job := range p.Jobs {
			assert.LessOrEqual(t, len(job.Bids), 8)
			lo, hi := gpuRange(job.Type, seed%2 == 0)
			for _, b := range job.Bids {
				assert.Equal(t, job.Req.Cores, b.Cores(), "job %d", job.ID)
				if job.Req.Nodes > 0 {
					assert.Len(t, b.Uses, job.Req.Nodes, "job %d", job.ID)
				}
				g := b.Uses[0].GPUs
				for _, u := range b.Uses {
					assert.Equal(t, g, u.GPUs, "same GPUs on every node")
					assert.Positive(t, u.Cores)
				}
				assert.True(t, g >= lo && g <= hi, "job %d type %s: %d GPUs", job.ID, job.Type, g)
				lvl := commonLevel(tree, b.Uses)
				assert.Equal(t, lvl, b.Level)
				assert.InDelta(t, Cost(sys, len(b.Uses), lvl, g), b.Cost, 1e-12)
			}
		}
	}
}

func gpuRange(typ string, ranges bool) (int, int) {
	switch typ {
	case "C":
		if ranges {
			return 1, 3
		}
		return 1, 1
	case "D":
		if ranges {
			return 2, 3
		}
		return 2, 2
	case "E":
		return 3, 3
	}
	return 0, 0
}

// On an idle machine a job that fits in one leaf gets leaf bids (level 0)
// first; a GPU range bids every count; the plug-in options shift
// priorities, weight value by cores and cap bids and window.
func TestGenerateBidsLeavesFirstAndOptions(t *testing.T) {
	_, tree := topology.Seed001()
	window := []WindowJob{
		{ID: 7, Priority: 50, Type: "B", Cores: 64, Nodes: 8},
		{ID: 8, Priority: 40, Type: "C'", Cores: 16, Nodes: 4, GPUsMin: 1, GPUsMax: 3},
		{ID: 9, Priority: 30, Type: "A", Cores: 600},
	}
	p, err := GenerateBids(window, idleLoad(1024), tree, BidOptions{MaxBids: 6})
	require.NoError(t, err)
	require.Len(t, p.Jobs, 3)
	assert.Equal(t, 0, p.Jobs[0].Bids[0].Level)
	gpus := map[int]bool{}
	for _, b := range p.Jobs[1].Bids {
		gpus[b.Uses[0].GPUs] = true
	}
	assert.Len(t, gpus, 3, "GPU range 1-3 bids 1, 2 and 3 GPUs")
	assert.Equal(t, 1, p.Jobs[2].Bids[0].Level, "600 cores need more than one leaf's 512")
	assert.InDelta(t, 10.0/3, p.Alpha, 1e-12)

	opts := PluginOptions()
	opts.Window = 2
	q, err := GenerateBids(window, idleLoad(1024), tree, opts)
	require.NoError(t, err)
	require.Len(t, q.Jobs, 2)
	assert.Equal(t, int64(11), q.Jobs[0].Priority, "shifted so the lowest is 1")
	assert.Equal(t, int64(1), q.Jobs[1].Priority)
	assert.True(t, q.ValueByCores)
	assert.InDelta(t, (11-q.Alpha*q.Jobs[0].Bids[0].Cost)*64, q.Value(0, 0), 1e-9)

	_, err = GenerateBids([]WindowJob{{ID: 1, Cores: 2, Nodes: 3}}, idleLoad(1024), tree, BidOptions{})
	assert.ErrorIs(t, err, ErrInvalid)
	_, err = GenerateBids(window, Load{}, tree, BidOptions{})
	assert.ErrorIs(t, err, ErrInvalid)
}

// A busy machine gives no bids, and the problem is still valid.
func TestGenerateBidsBusy(t *testing.T) {
	_, tree := topology.Seed001()
	busy := Load{CPUs: make([]int, 1024), GPUs: make([]int, 1024)}
	p, err := GenerateBids([]WindowJob{{ID: 1, Priority: 3, Cores: 4}}, busy, tree, BidOptions{})
	require.NoError(t, err)
	assert.Empty(t, p.Jobs[0].Bids)
	sol, err := Solve(t.Context(), p, Options{})
	require.NoError(t, err)
	assert.Equal(t, Selection{-1}, sol.Selection)
	assert.True(t, sol.Optimal)
}
