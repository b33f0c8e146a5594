package auction_test

import (
	"context"
	"testing"
	"time"

	"github.com/hpcsched/hpcsched/auction"
	"github.com/hpcsched/hpcsched/queue"
	"github.com/hpcsched/hpcsched/selectnodes"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// passWindow is a window of the AUCSCHED3 paper's kinds: cores anywhere,
// cores on a node count, and GPUs on a node count.
func passWindow() []queue.Job {
	return []queue.Job{
		{ID: 1, Request: selectnodes.Request{CPUs: 64}, TimeLimit: time.Hour},
		{ID: 2, Request: selectnodes.Request{CPUs: 32, MinNodes: 4, MaxNodes: 4}, TimeLimit: time.Hour},
		{ID: 3, Request: selectnodes.Request{CPUs: 8, MinNodes: 2, MaxNodes: 2, GRES: []selectnodes.GRESRequest{{Name: "gpu", Min: 1, Max: 1}}}, TimeLimit: time.Hour},
	}
}

// On a full machine no job has a node to bid on: by default each is
// given back to the queue, with KeepBidless each waits, and no pass
// fails.
func TestPlannerFullMachine(t *testing.T) {
	snap := busySnapshot(t, []int{1024 * 16}, []time.Duration{time.Hour})
	ds, err := (&auction.Planner{Budget: -1, Solve: auction.ReplayOptions()}).Plan(context.Background(), snap, passWindow(), reserveT0)
	require.NoError(t, err)
	require.Len(t, ds, 3)
	for k, d := range ds {
		assert.Equal(t, queue.JobID(k+1), d.Job)
		assert.True(t, d.Decline, "job %d", d.Job)
	}
	ds, err = (&auction.Planner{Budget: -1, Solve: auction.ReplayOptions(), KeepBidless: true}).Plan(context.Background(), snap, passWindow(), reserveT0)
	require.NoError(t, err)
	assert.Empty(t, ds)
}

// A job no node can ever hold is declined (so the queue gives the reason)
// whether or not the load leaves room for its cores, the jobs that fit
// the free part of the machine start on it, and a job too big for it
// waits (KeepBidless).
func TestPlannerDeclinesWhatNoNodeHolds(t *testing.T) {
	for _, busy := range []int{0, 1000 * 16} {
		var snap *selectnodes.Snapshot
		if busy > 0 {
			snap = busySnapshot(t, []int{busy}, []time.Duration{time.Hour})
		} else {
			c, err := selectnodes.Seed001()
			require.NoError(t, err)
			snap = c.Snapshot()
		}
		window := append(passWindow(),
			queue.Job{ID: 4, Request: selectnodes.Request{CPUs: 4, MinMemoryPerNode: 1 << 40}, TimeLimit: time.Hour},
			queue.Job{ID: 5, Request: selectnodes.Request{CPUs: 12_000}, TimeLimit: time.Hour})
		pl := &auction.Planner{Budget: -1, Solve: auction.ReplayOptions(), KeepBidless: true, Auctions: 10}
		ds, err := pl.Plan(context.Background(), snap, window, reserveT0)
		require.NoError(t, err)
		got := map[queue.JobID]queue.Decision{}
		for _, d := range ds {
			got[d.Job] = d
		}
		assert.True(t, got[4].Decline, "busy %d: no node has the memory", busy)
		for _, id := range []queue.JobID{1, 2, 3} {
			assert.NotEmpty(t, got[id].Layout, "busy %d: job %d fits the free nodes", busy, id)
		}
		if busy > 0 {
			_, decided := got[5]
			assert.False(t, decided, "12,000 cores do not fit the free 384: the job waits")
		}
	}
}
