package auction_test

import (
	"context"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/hpcsched/hpcsched/auction"
	"github.com/hpcsched/hpcsched/queue"
	"github.com/hpcsched/hpcsched/selectnodes"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var reserveT0 = time.Date(2026, 11, 27, 6, 0, 0, 0, time.UTC)

// busySnapshot is the AUCSCHED3 paper's machine with running jobs of the given
// cores (on any nodes), each ending after its duration.
func busySnapshot(t *testing.T, cores []int, ends []time.Duration) *selectnodes.Snapshot {
	t.Helper()
	c, err := selectnodes.Seed001()
	require.NoError(t, err)
	snap := c.Snapshot()
	for k := range cores {
		p, err := snap.SelectNodes(&selectnodes.Request{CPUs: cores[k]}, selectnodes.RunNow)
		require.NoError(t, err)
		require.NoError(t, snap.Allocate(selectnodes.JobID(1000+k), p, reserveT0.Add(-time.Minute), reserveT0.Add(ends[k])))
	}
	return snap
}

// applied is snap with the decisions started at reserveT0, as the queue
// would start them.
func applied(t *testing.T, snap *selectnodes.Snapshot, window []queue.Job, ds []queue.Decision) *selectnodes.Snapshot {
	t.Helper()
	out := snap.Clone()
	byID := map[queue.JobID]*queue.Job{}
	for k := range window {
		byID[window[k].ID] = &window[k]
	}
	for _, d := range ds {
		j := byID[d.Job]
		p, err := out.PlaceExact(&j.Request, d.Layout)
		require.NoError(t, err, "job %d", d.Job)
		require.NoError(t, out.Allocate(selectnodes.JobID(j.ID), p, reserveT0, reserveT0.Add(j.TimeLimit)))
	}
	return out
}

// willStart is when the job could start on snap.
func willStart(t *testing.T, snap *selectnodes.Snapshot, j *queue.Job) time.Time {
	t.Helper()
	req := j.Request
	p, err := snap.SelectNodes(&req, selectnodes.WillRun)
	require.NoError(t, err)
	if p.Immediate {
		return reserveT0
	}
	return p.Start
}

func started(ds []queue.Decision, id queue.JobID) bool {
	for _, d := range ds {
		if d.Job == id {
			return true
		}
	}
	return false
}

// Half the machine runs for an hour. The head asks for 12,000 cores: no
// bid now, the whole machine's 16,384 in an hour. Thirty jobs of 16 nodes
// for two hours and one of a node for half an hour wait behind it.
// Without a reservation the two-hour jobs take the free half and the head
// waits two hours; with one, they keep off the head's nodes, it still
// starts in an hour, and the short job starts beside it all the same.
func TestPlannerReserveHeadKeepsItsStart(t *testing.T) {
	snap := busySnapshot(t, []int{8192}, []time.Duration{time.Hour})
	window := []queue.Job{{ID: 1, TimeLimit: time.Hour, Request: selectnodes.Request{CPUs: 12000}}}
	for k := range 30 {
		window = append(window, queue.Job{ID: queue.JobID(2 + k), TimeLimit: 2 * time.Hour,
			Request: selectnodes.Request{CPUs: 256, MinNodes: 16, MaxNodes: 16}})
	}
	short := queue.Job{ID: 99, TimeLimit: 30 * time.Minute, Request: selectnodes.Request{CPUs: 16, MinNodes: 1, MaxNodes: 1}}
	window = append(window, short)
	head := &window[0]
	require.Equal(t, reserveT0.Add(time.Hour), willStart(t, snap, head))
	longs := func(ds []queue.Decision) int {
		n := 0
		for _, d := range ds {
			if d.Job >= 2 && d.Job < 32 {
				n++
			}
		}
		return n
	}
	var longsWithout int
	for _, reserve := range []bool{false, true} {
		pl := &auction.Planner{Budget: -1, Solve: auction.ReplayOptions(), Auctions: 50, ReserveHead: reserve, KeepBidless: true}
		ds, err := pl.Plan(context.Background(), snap.Clone(), window, reserveT0)
		require.NoError(t, err)
		assert.False(t, started(ds, head.ID), "reserve %v: the head fits no free resources", reserve)
		assert.True(t, started(ds, short.ID), "reserve %v: the short job starts", reserve)
		after := willStart(t, applied(t, snap, window, ds), head)
		if !reserve {
			longsWithout = longs(ds)
			assert.Equal(t, reserveT0.Add(2*time.Hour), after, "passed over: the two-hour jobs hold the head back")
			continue
		}
		assert.Equal(t, reserveT0.Add(time.Hour), after, "reserved: the head starts when the running job ends")
		assert.Less(t, longs(ds), longsWithout, "the two-hour jobs that would sit on the head's nodes wait")
	}
}

// The head has a bid, on 64 idle nodes, but three one-node jobs behind it
// are worth more together and take three of them. With ReserveHead it
// starts on its bid first, whether the pass holds one auction or several.
func TestPlannerReserveHeadWinsWhenItHasABid(t *testing.T) {
	snap := busySnapshot(t, []int{960 * 16}, []time.Duration{time.Hour})
	window := []queue.Job{{ID: 1, TimeLimit: time.Hour, Request: selectnodes.Request{CPUs: 64 * 16, MinNodes: 64, MaxNodes: 64}}}
	for k := range 3 {
		window = append(window, queue.Job{ID: queue.JobID(2 + k), TimeLimit: time.Hour,
			Request: selectnodes.Request{CPUs: 16, MinNodes: 1, MaxNodes: 1}})
	}
	for _, rounds := range []int{1, 10} {
		for _, reserve := range []bool{false, true} {
			pl := &auction.Planner{Budget: -1, Solve: auction.ReplayOptions(), Auctions: rounds, ReserveHead: reserve, KeepBidless: true}
			ds, err := pl.Plan(context.Background(), snap.Clone(), window, reserveT0)
			require.NoError(t, err)
			assert.Equal(t, reserve, started(ds, 1), "auctions %d, reserve %v: the head", rounds, reserve)
			assert.Equal(t, !reserve, started(ds, 2), "auctions %d, reserve %v: the job behind it", rounds, reserve)
			applied(t, snap, window, ds) // the decisions fit together
		}
	}
}

// Property: on random loads and windows, with one auction a pass, the
// head (the window's first job) either starts or can start, once the
// pass's decisions run, no later than before the pass: nothing the pass
// started delays it. Every pass's decisions fit together.
func TestPlannerReserveHeadNeverDelaysTheHead(t *testing.T) {
	rng := rand.New(rand.NewPCG(14, 4))
	reserved := 0
	trials := 12
	if testing.Short() { // make test; make test-long runs all
		trials = 6
	}
	for trial := range trials {
		var cores []int
		var ends []time.Duration
		for range 2 + rng.IntN(5) {
			cores = append(cores, 200+rng.IntN(3000))
			ends = append(ends, time.Duration(10+rng.IntN(170))*time.Minute)
		}
		snap := busySnapshot(t, cores, ends)
		var window []queue.Job
		for k := range 20 {
			j := queue.Job{ID: queue.JobID(k + 1), TimeLimit: time.Duration(5+rng.IntN(240)) * time.Minute}
			if rng.IntN(2) == 0 {
				j.Request = selectnodes.Request{CPUs: 1 + rng.IntN(16000)}
			} else {
				n := 1 + rng.IntN(600)
				j.Request = selectnodes.Request{CPUs: n * (1 + rng.IntN(16)), MinNodes: n, MaxNodes: n}
			}
			window = append(window, j)
		}
		head := &window[0]
		before := willStart(t, snap, head)
		pl := &auction.Planner{Budget: -1, Solve: auction.ReplayOptions(), ReserveHead: true}
		ds, err := pl.Plan(context.Background(), snap.Clone(), window, reserveT0)
		require.NoError(t, err)
		after := applied(t, snap, window, ds)
		if started(ds, head.ID) {
			continue
		}
		reserved++
		assert.False(t, willStart(t, after, head).After(before), "trial %d: the head's start moved from %v", trial, before)
	}
	assert.Positive(t, reserved, "some trials leave the head to its reservation")
}
