package auction

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/bits-and-blooms/bitset"
	"github.com/hpcsched/hpcsched/internal/testseed"
	"github.com/hpcsched/hpcsched/queue"
	"github.com/hpcsched/hpcsched/selectnodes"
	"github.com/hpcsched/hpcsched/topology"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A reservation keeps the jobs that run past its start off its nodes;
// jobs that shared an eligible bitmap share the kept one, so bid
// generation still reads their runs once, and the window's problem is
// the one each job with a bitmap of its own makes. Random reserved nodes
// and job sizes on the AUCSCHED3 paper's machine; jobs of two kinds (no
// GPU, one GPU a node), the head, long and short jobs.
func TestWithReservationSharesKeptBitmaps(t *testing.T) {
	seed := testseed.Draw(t)
	rng := rand.New(rand.NewPCG(seed, 29))
	c, err := selectnodes.Seed001()
	require.NoError(t, err)
	snap := c.Snapshot()
	_, tree := topology.Seed001()
	now := time.Date(2026, 11, 29, 6, 0, 0, 0, time.UTC)
	bids := 0
	for range 5 {
		var window []queue.Job
		for k := range 24 {
			nodes := 1 + rng.IntN(8)
			req := selectnodes.Request{CPUs: nodes * (1 + rng.IntN(16)), MinNodes: nodes, MaxNodes: nodes}
			if k%2 == 1 {
				req.GRES = []selectnodes.GRESRequest{{Name: "gpu", Min: 1, Max: 1}}
			}
			limit := time.Duration(1+rng.IntN(4)) * time.Hour // ends by the start (2 h) or not
			window = append(window, queue.Job{ID: queue.JobID(k + 1), TimeLimit: limit, Request: req})
		}
		pl := &Planner{}
		nodes, err := readNodes(snap, "gpu")
		require.NoError(t, err)
		load := nodes.load(snap, "gpu")
		wjobs, byID, _, declined := pl.windowJobs(snap, window, "gpu", newPassOffers(false, &useArena{}), newRunLimits(load))
		require.Empty(t, declined)
		reserved := bitset.New(uint(snap.NodeCount()))
		for i := range snap.NodeCount() {
			if rng.IntN(3) == 0 {
				reserved.Set(uint(i))
			}
		}
		res := &reservation{job: 1, now: now, start: now.Add(2 * time.Hour), nodes: reserved}
		kept := withReservation(wjobs, byID, res)
		alone := make([]WindowJob, len(kept))
		held := 0
		for k, w := range kept {
			src := wjobs[k].Eligible
			alone[k] = w
			alone[k].alike, alone[k].Eligible = 0, w.Eligible.Clone()
			if w.ID == 1 || endsBy(byID[w.ID], now, res.start) {
				assert.Same(t, src, w.Eligible, "job %d bids as before", w.ID)
				continue
			}
			held++
			assert.True(t, src.Difference(reserved).Equal(w.Eligible), "job %d: its nodes less the reserved", w.ID)
			for j, v := range kept[:k] {
				if wjobs[j].Eligible == src && v.Eligible != wjobs[j].Eligible {
					assert.Same(t, v.Eligible, w.Eligible, "jobs %d and %d share their bitmap", v.ID, w.ID)
				}
			}
		}
		require.Greater(t, held, 2)
		a, err := GenerateBids(kept, load, tree, BidOptions{})
		require.NoError(t, err)
		b, err := GenerateBids(alone, load, tree, BidOptions{})
		require.NoError(t, err)
		require.Equal(t, b, a)
		for _, j := range a.Jobs {
			bids += len(j.Bids)
		}
	}
	assert.Greater(t, bids, 100, "bids made")
}
