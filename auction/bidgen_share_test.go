package auction

import (
	"context"
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

// Bid generation reading rooms and runs once for the jobs of a group
// makes the same problem as reading them job by job, on random loads of
// the AUCSCHED3 paper's system with jobs of a few room tables and
// eligible sets.
func TestBidShareSameProblem(t *testing.T) {
	seed := testseed.Draw(t)
	rng := rand.New(rand.NewPCG(seed, 23))
	_, tree := topology.Seed001()
	n := tree.NodeCount()
	bids := 0
	for range 20 {
		load := seed001Load(rng, n)
		// room tables and eligible sets drawn apart, so that jobs of one
		// table (one alike) may have other nodes, or take whole nodes or
		// not, and jobs without a table may have other nodes
		rooms := []func(int) int{nil}
		for range 1 + rng.IntN(3) {
			tab := make([]int, n)
			for i := range n {
				tab[i] = rng.IntN(17)
			}
			rooms = append(rooms, func(i int) int { return tab[i] })
		}
		eligible := []*bitset.BitSet{nil}
		for range 1 + rng.IntN(3) {
			el := bitset.New(uint(n))
			for i := range n {
				if rng.IntN(8) > 0 {
					el.Set(uint(i))
				}
			}
			eligible = append(eligible, el)
		}
		var shared, alone []WindowJob
		for j := range 40 {
			w := randomWindowJob(rng, int64(j+1))
			w.Priority, w.Cores = int64(100-j), 1+w.Cores%128 // small enough to get bids
			if w.Nodes > 0 {
				w.Nodes = 1 + w.Nodes%16
				w.Cores = min(max(w.Cores, w.Nodes), 16*w.Nodes)
			}
			r := rng.IntN(len(rooms))
			w.Eligible, w.Room, w.Whole = eligible[rng.IntN(len(eligible))], rooms[r], rng.IntN(4) == 0
			if w.Room != nil && rng.IntN(6) > 0 {
				w.alike = int32(r)
			}
			shared = append(shared, w)
			w.alike = 0
			if w.Eligible != nil {
				w.Eligible = w.Eligible.Clone()
			}
			alone = append(alone, w)
		}
		a, err := GenerateBids(shared, load, tree, BidOptions{})
		require.NoError(t, err)
		b, err := GenerateBids(alone, load, tree, BidOptions{})
		require.NoError(t, err)
		require.Equal(t, b, a)
		for _, j := range a.Jobs {
			bids += len(j.Bids)
		}
	}
	assert.Greater(t, bids, 1000, "bids made")
}

// A window of jobs of two kinds of request (no GPU, and one GPU a node)
// and many sizes asks two offers, and the jobs of a kind share their
// nodes and room table in an auction.
func TestWindowJobsShareAlikeOffers(t *testing.T) {
	c, err := selectnodes.Seed001()
	require.NoError(t, err)
	snap := c.Snapshot()
	var window []queue.Job
	for k := range 20 {
		req := selectnodes.Request{CPUs: (1 + k%3) * (1 + k%8), MinNodes: 1 + k%3, MaxNodes: 1 + k%3, TimeLimit: time.Duration(k+1) * time.Minute}
		if k%2 == 1 {
			req.GRES = []selectnodes.GRESRequest{{Name: "gpu", Min: 1, Max: 1}}
		}
		window = append(window, queue.Job{ID: queue.JobID(k + 1), Request: req})
	}
	for _, unshared := range []bool{false, true} {
		pl := &Planner{unshared: unshared}
		nodes, err := readNodes(snap, "gpu")
		require.NoError(t, err)
		cache := newPassOffers(unshared, &useArena{})
		load := nodes.load(snap, "gpu")
		wjobs, _, offers, declined := pl.windowJobs(snap, window, "gpu", cache, newRunLimits(load))
		require.Empty(t, declined)
		require.Len(t, wjobs, 20)
		distinct := map[*selectnodes.Offer]bool{}
		for _, o := range offers {
			distinct[o] = true
		}
		if unshared {
			assert.Len(t, distinct, 20, "every job its own offer")
			assert.Zero(t, wjobs[0].alike)
			continue
		}
		assert.Len(t, distinct, 2, "one offer a kind")
		for k, w := range wjobs {
			assert.Same(t, wjobs[k%2].Eligible, w.Eligible, "job %d", w.ID)
			assert.Equal(t, wjobs[k%2].alike, w.alike)
			assert.NotZero(t, w.alike)
		}
		assert.NotEqual(t, wjobs[0].alike, wjobs[1].alike)
		_, err = pl.Plan(context.Background(), snap, window, time.Time{})
		require.NoError(t, err)
	}
}
