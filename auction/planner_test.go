package auction_test

import (
	"context"
	"testing"
	"time"

	"github.com/hpcsched/hpcsched/auction"
	"github.com/hpcsched/hpcsched/queue"
	"github.com/hpcsched/hpcsched/selectnodes"
	"github.com/hpcsched/hpcsched/topology"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Through queue: the auction starts jobs on exactly their winning bids,
// on leaf switches when a leaf suffices, with their GPUs; a job of a kind
// it does not bid for is declined and started by the queue's own
// selection in the same pass.
func TestPlannerThroughQueue(t *testing.T) {
	c, err := selectnodes.Seed001()
	require.NoError(t, err)
	pl := &auction.Planner{Solve: auction.Options{MaxNodes: 200_000, Rounds: 500}}
	s := queue.New(c, queue.WithPlanner(pl, 50))
	t0 := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	gres, err := selectnodes.ParseGRES("gpu:1-3")
	require.NoError(t, err)
	specs := []queue.Spec{
		{Request: selectnodes.Request{CPUs: 64, MinNodes: 8, MaxNodes: 8}, Priority: 300, TimeLimit: time.Hour},
		{Request: selectnodes.Request{CPUs: 40, MinNodes: 4, MaxNodes: 4, GRES: gres}, Priority: 200, TimeLimit: time.Hour},
		{Request: selectnodes.Request{CPUs: 100}, Priority: 100, TimeLimit: time.Hour},
		{Request: selectnodes.Request{CPUs: 4, MinNodes: 2, MaxNodes: 3}, Priority: 50, TimeLimit: time.Hour},
	}
	var ids []queue.JobID
	for _, sp := range specs {
		id, err := s.Submit(sp, t0)
		require.NoError(t, err)
		ids = append(ids, id)
	}
	started := s.Schedule(t0.Add(time.Second))
	require.Len(t, started, 4, "the node range 2-3 is not an auction kind: the queue places it")
	assert.Equal(t, ids[3], started[3].Job, "after the auction's winners")
	_, tree := topology.Seed001()
	for k, id := range ids[:3] {
		j, ok := s.Job(id)
		require.True(t, ok)
		require.Equal(t, queue.Running, j.State, "job %d", k)
		nodes := j.Placement.NodeSet()
		lvl, ok := tree.LowestCommonLevel(nodes)
		require.True(t, ok)
		assert.Equal(t, 0, lvl, "job %d fits one leaf", k)
		if k < 2 {
			assert.Equal(t, uint(specs[k].Request.MinNodes), nodes.Count())
		}
	}
	j, _ := s.Job(ids[3])
	assert.Equal(t, queue.Running, j.State)
	gpuNodes, cpus := 0, 0
	for i := range 1024 { // the range job got 1-3 GPUs on each of its nodes, the others none
		used := 3 - c.FreeGRES(i, "gpu", "")
		assert.True(t, used == 0 || used >= 1 && used <= 3)
		if used > 0 {
			gpuNodes++
		}
		cpus += 16 - c.FreeCPUs(i)
	}
	assert.Equal(t, 4, gpuNodes)
	assert.Equal(t, 64+40+100+4, cpus, "exactly the bids' cores, and the range job's")
}

// Under FCFS every queue priority is 1. The planner bids with the jobs'
// ranks in the window, so the head of the queue — here a job that needs
// the whole machine — wins over the small job behind it; with the queue's
// own (equal) priorities its bid, costing 3 at alpha 1/3, is worth
// nothing and the small job would take the machine first.
func TestPlannerRanksKeepQueueOrder(t *testing.T) {
	for _, queuePrio := range []bool{false, true} {
		c, err := selectnodes.Seed001()
		require.NoError(t, err)
		pl := &auction.Planner{Budget: -1, Solve: auction.ReplayOptions(), QueuePriorities: queuePrio}
		s := queue.New(c, queue.WithPlanner(pl, 10))
		t0 := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
		whole, err := s.Submit(queue.Spec{Request: selectnodes.Request{CPUs: 16384}, TimeLimit: time.Hour}, t0)
		require.NoError(t, err)
		small, err := s.Submit(queue.Spec{Request: selectnodes.Request{CPUs: 16, MinNodes: 1, MaxNodes: 1}, TimeLimit: time.Hour}, t0)
		require.NoError(t, err)
		s.Schedule(t0.Add(time.Second))
		w, _ := s.Job(whole)
		sm, _ := s.Job(small)
		if queuePrio {
			assert.Equal(t, queue.Pending, w.State, "equal priorities: the whole-machine bid is worth nothing")
			assert.Equal(t, queue.Running, sm.State)
			continue
		}
		assert.Equal(t, queue.Running, w.State, "ranks: the head of the queue wins")
		assert.Equal(t, queue.Pending, sm.State)
	}
}

// With one bid a job, two jobs of a whole node each bid for the same
// node (the best fit on an idle machine): one auction starts one of them
// and leaves the other's node idle until the next pass; a second round
// bids again on what the winner left and starts the other too.
func TestPlannerAuctionsBidAgainOnWhatIsLeft(t *testing.T) {
	for _, rounds := range []int{0, 1, 2, 5} {
		c, err := selectnodes.Seed001()
		require.NoError(t, err)
		pl := &auction.Planner{Budget: -1, Solve: auction.ReplayOptions(), Bids: auction.BidOptions{MaxBids: 1}, Auctions: rounds}
		s := queue.New(c, queue.WithPlanner(pl, 10))
		t0 := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
		var ids []queue.JobID
		for range 3 {
			id, err := s.Submit(queue.Spec{Request: selectnodes.Request{CPUs: 16, MinNodes: 1, MaxNodes: 1}, TimeLimit: time.Hour}, t0)
			require.NoError(t, err)
			ids = append(ids, id)
		}
		started := s.Schedule(t0.Add(time.Second))
		want := min(max(1, rounds), 3)
		require.Len(t, started, want, "auctions %d", rounds)
		for k, id := range ids {
			j, _ := s.Job(id)
			assert.Equal(t, k < want, j.State == queue.Running, "auctions %d: job %d, in queue order", rounds, k)
		}
		busy := 0
		for i := range 1024 {
			if c.FreeCPUs(i) == 0 {
				busy++
			}
		}
		assert.Equal(t, want, busy, "auctions %d: each job on a node of its own", rounds)
	}
}

// Plan puts every round's winners on the snapshot (its own copy of the
// load), checking each there before it returns it; with two rounds, the
// second round's bids avoid the first round's winners, so the decisions
// of the pass never share a core.
func TestPlannerAuctionsAndTheSnapshot(t *testing.T) {
	c, err := selectnodes.Seed001()
	require.NoError(t, err)
	t0 := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	var window []queue.Job
	for k := range 3 {
		window = append(window, queue.Job{ID: queue.JobID(k + 1), TimeLimit: time.Hour,
			Request: selectnodes.Request{CPUs: 16, MinNodes: 1, MaxNodes: 1}})
	}
	for _, rounds := range []int{1, 2} {
		snap := c.Snapshot()
		pl := &auction.Planner{Budget: -1, Solve: auction.ReplayOptions(), Bids: auction.BidOptions{MaxBids: 1}, Auctions: rounds}
		d, err := pl.Plan(context.Background(), snap, window, t0)
		require.NoError(t, err)
		require.Len(t, d, rounds)
		used := map[int]int{}
		for _, x := range d {
			for _, u := range x.Layout {
				used[u.Node] += u.CPUs
			}
		}
		for n, cpus := range used {
			assert.LessOrEqual(t, cpus, 16, "auctions %d: node %d", rounds, n)
		}
		busy := 0
		for i := range snap.NodeCount() {
			if snap.FreeCPUs(i) < 16 {
				busy++
			}
		}
		assert.Equal(t, rounds, busy, "auctions %d: every winner is put on the snapshot", rounds)
	}
}
