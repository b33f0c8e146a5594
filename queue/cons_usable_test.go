package queue

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/bits-and-blooms/bitset"
	"github.com/stretchr/testify/require"
)

// A node free for the job's length only from after the last start a plan
// tried joins no window the plan would try: usable does not count it,
// while one free that long from a start the plan tried does.
func TestUsableCountsNoRunStartingAfterTheLastStartTried(t *testing.T) {
	// node 0: free [100, 110) and from 125 on; node 1: free [60, 100)
	p := &profile{}
	free := map[int][]uint{60: {1}, 100: {0}, 110: nil, 125: {0}}
	for _, m := range []int{0, 60, 100, 110, 125} {
		s := bitset.New(2)
		for _, n := range free[m] {
			s.Set(n)
		}
		p.times, p.at, p.free = append(p.times, at(m)), append(p.at, at(m).UnixNano()), append(p.free, s)
	}
	b := &bfRun{pr: p, nowAt: at(0).UnixNano()}
	r := &reservation{Reservation: Reservation{Start: at(200), End: at(230)}, nodes: bitset.New(2)}
	gained := func() *bitset.BitSet { return bitset.New(2).Set(0).Set(1) }
	d := 30 * time.Minute
	// the last start tried at minute 119: node 0's long run starts at 125
	require.Equal(t, 1, b.usable(gained(), nil, r, d, at(119).UnixNano(), 0+1))
	// tried up to 125: it counts
	require.Equal(t, 2, b.usable(gained(), nil, r, d, at(125).UnixNano(), 1+1))
	// outside the job's partition, neither counts
	require.Equal(t, 0, b.usable(gained(), bitset.New(2), r, d, at(125).UnixNano(), 1+1))
}

// Room freed in another partition keeps a job's reservation without a
// plan: no window of the job's partition gained a node, so a full plan
// would rule out every start again by count.
func TestRoomFreedInAnotherPartitionKeepsTheReservation(t *testing.T) {
	conf := "NodeName=n[0-15] CPUs=1\nPartitionName=batch Nodes=n[0-7] Default=YES\nPartitionName=other Nodes=n[8-15]\n"
	fast, full := New(cluster(t, conf)), New(cluster(t, conf), fullPlans)
	both := []*Scheduler{fast, full}
	var o, x JobID
	for _, s := range both {
		submit(t, s, nodes(2, 60*time.Minute), at(0))
		submit(t, s, nodes(6, 120*time.Minute), at(0))
		other := nodes(8, 300*time.Minute)
		other.Request.Partition = "other"
		o = submit(t, s, other, at(0))
		require.Len(t, s.Schedule(at(0)), 3)
		x = submit(t, s, nodes(8, 30*time.Minute), at(0))
		s.BackfillStarts(at(0))
	}
	requireSameDecisions(t, fast, full, "planned")
	resv := fast.Reservations()
	require.Len(t, resv, 1)
	require.Equal(t, x, resv[0].Job)
	require.True(t, resv[0].Start.Equal(at(120)))
	k0 := fast.kept.skip.kept
	for _, s := range both {
		require.NoError(t, s.Finish(o, Outcome{Kind: Completed}, at(10)))
		s.BackfillStarts(at(10))
	}
	requireSameDecisions(t, fast, full, "minute 10")
	require.Equal(t, 1, fast.kept.skip.kept-k0, "kept without a plan")
	require.Equal(t, Pending, state(t, fast, x))
}

// Keeping reservations while room is freed only in other partitions, or
// only later than the starts a plan tried, or after counting again (see
// cons_recount.go), decides exactly as planning
// every job in full: random replays on one-CPU nodes in two partitions
// (nested or apart), jobs ending early, a pass after every event.
func TestNarrowedKeepsAcrossPartitionsDecideAsFullPlans(t *testing.T) {
	iters, jobs := twinReplaySizes([2]int{6, 300}, [2]int{2, 120}, [2]int{1, 80})
	narrowed, recounted := 0, 0
	for iter := range iters {
		seed := uint64(iter) + 5100
		t.Logf("seed %d", seed)
		n := []int{16, 40, 12}[iter%3]
		lower := fmt.Sprintf("n[0-%d]", n/2-1)
		if iter%2 == 1 {
			lower = "ALL" // nested: batch holds other
		}
		conf := fmt.Sprintf("NodeName=n[0-%d] CPUs=1\nPartitionName=batch Nodes=%s Default=YES\nPartitionName=other Nodes=n[%d-%d]\n",
			n-1, lower, n/2, n-1)
		res := WithBackfillResolution([]time.Duration{time.Minute, 15 * time.Minute}[iter%2])
		fast, full := New(cluster(t, conf), res), New(cluster(t, conf), res, fullPlans)
		replayTwinsIn(t, fast, full, rand.New(rand.NewPCG(seed, 11)), n/2, jobs, fmt.Sprintf("seed %d", seed), []string{"batch", "other"})
		narrowed += fast.kept.skip.narrowed
		recounted += fast.kept.skip.recounted
		t.Logf("seed %d: %d kept without a plan, %d with room gained, %d after counting again",
			seed, fast.kept.skip.kept, fast.kept.skip.narrowed, fast.kept.skip.recounted)
	}
	require.Positive(t, narrowed, "some reservations were kept with room gained")
	require.Positive(t, recounted, "some reservations were kept after counting again")
}

// runsFrom counts the nodes hasRun, asked node by node, finds: random
// profiles of up to three words of nodes, with and without an own
// reservation.
func TestRunsFromMatchesHasRun(t *testing.T) {
	seed := uint64(5200)
	t.Logf("seed %d", seed)
	r := rand.New(rand.NewPCG(seed, 1))
	for iter := 0; iter < 400; iter++ {
		n := uint(1 + r.IntN(150))
		p := randomSlots(r, n)
		g, own := bitset.New(n), bitset.New(n)
		for k := uint(0); k < n; k++ {
			if r.IntN(2) == 0 {
				g.Set(k)
			}
			if r.IntN(4) == 0 {
				own.Set(k)
			}
		}
		start := at(r.IntN(200))
		res := &reservation{Reservation: Reservation{Start: start, End: start.Add(time.Duration(1+r.IntN(90)) * time.Minute)}, nodes: own}
		if r.IntN(3) == 0 {
			res = nil
		}
		from := p.at[0] + int64(r.IntN(60))*int64(time.Minute)
		to := from + int64(r.IntN(240))*int64(time.Minute)
		d := time.Duration(1+r.IntN(120)) * time.Minute
		want := 0
		for k, ok := g.NextSet(0); ok; k, ok = g.NextSet(k + 1) {
			var o *reservation
			if res != nil && res.nodes.Test(k) {
				o = res
			}
			if p.hasRun(k, from, to, d, o) {
				want++
			}
		}
		require.Equal(t, want, p.runsFrom(g, from, to, d, res, math.MaxInt), "iter %d", iter)
		require.Equal(t, want, p.runsFrom(g, from, to, d, res, math.MaxInt), "iter %d, buffers reused", iter)
		if limit := r.IntN(want + 1); want > limit {
			require.Greater(t, p.runsFrom(g, from, to, d, res, limit), limit, "iter %d, limit %d", iter, limit)
		}
	}
}
