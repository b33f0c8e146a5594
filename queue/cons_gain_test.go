package queue

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/bits-and-blooms/bitset"
	"github.com/stretchr/testify/require"
)

// onesConf is n nodes of one CPU in one partition.
func onesConf(n int) string {
	return fmt.Sprintf("NodeName=n[0-%d] CPUs=1\nPartitionName=batch Nodes=ALL Default=YES\n", n-1)
}

// A job that needs the whole cluster keeps its reservation without a
// plan while the jobs ending early free too few nodes to start it any
// earlier, and is planned again (and starts) once they free enough.
func TestReservationKeptWhileTooFewNodesAreFreed(t *testing.T) {
	fast, full, a, b, c, x := wholeClusterBehindThree(t)
	both := []*Scheduler{fast, full}
	requireSameDecisions(t, fast, full, "planned")
	resv := fast.Reservations()
	require.Len(t, resv, 1)
	require.True(t, resv[0].Start.Equal(at(120)))
	step := func(id JobID, min int) (kept, narrowed int) {
		k0, n0 := fast.kept.skip.kept, fast.kept.skip.narrowed
		for _, s := range both {
			require.NoError(t, s.Finish(id, Outcome{Kind: Completed}, at(min)))
			s.BackfillStarts(at(min))
		}
		requireSameDecisions(t, fast, full, fmt.Sprintf("minute %d", min))
		return fast.kept.skip.kept - k0, fast.kept.skip.narrowed - n0
	}
	// 2 nodes free from minute 10: 4 at most in any window before 120
	kept, narrowed := step(a, 10)
	require.Equal(t, 1, kept, "kept without a plan")
	require.Equal(t, 1, narrowed, "with room gained")
	// 3 more: 7 at most, still short of 8
	kept, narrowed = step(b, 20)
	require.Equal(t, 1, kept)
	require.Equal(t, 1, narrowed)
	// 3 more: enough, so it is planned and starts now
	kept, _ = step(c, 30)
	require.Equal(t, 0, kept, "planned in full")
	require.Equal(t, Running, state(t, fast, x))
}

// Keeping reservations while too few nodes are freed decides exactly as
// planning every job in full: random replays on clusters of one-CPU
// nodes (where most plans are ruled out by count), jobs of all sizes
// ending early, a pass after every event.
func TestNarrowedKeepsDecideAsFullPlans(t *testing.T) {
	iters, jobs := twinReplaySizes([2]int{8, 300}, [2]int{3, 100}, [2]int{1, 80})
	narrowed := 0
	for iter := range iters {
		seed := uint64(iter) + 3000
		t.Logf("seed %d", seed)
		n := []int{12, 32, 100, 5}[iter%4]
		conf := onesConf(n)
		if iter%3 == 2 { // shared nodes: CPU-count jobs may share them
			conf = fmt.Sprintf("NodeName=n[0-%d] CPUs=4\nPartitionName=batch Nodes=ALL Default=YES\n", n-1)
		}
		// coarse steps too: a pass then often falls within a step before a
		// reservation, where no start was tried
		res := WithBackfillResolution([]time.Duration{time.Minute, 15 * time.Minute, 7 * time.Minute}[iter%3])
		fast, full := New(cluster(t, conf), res), New(cluster(t, conf), res, fullPlans)
		replayTwins(t, fast, full, rand.New(rand.NewPCG(seed, 11)), n, jobs, fmt.Sprintf("seed %d", seed))
		narrowed += fast.kept.skip.narrowed
		t.Logf("seed %d: %d kept without a plan, %d with room gained", seed, fast.kept.skip.kept, fast.kept.skip.narrowed)
	}
	require.Positive(t, narrowed, "some reservations were kept with room gained")
}

// hasRun agrees with a minute-by-minute search on random profiles.
func TestHasRunMatchesSearch(t *testing.T) {
	seed := uint64(77)
	t.Logf("seed %d", seed)
	r := rand.New(rand.NewPCG(seed, 1))
	for iter := 0; iter < 300; iter++ {
		p := &profile{}
		slots := 1 + r.IntN(8)
		for i := 0; i < slots; i++ {
			at := t0.Add(time.Duration(i*10+r.IntN(5)) * time.Minute)
			p.times, p.at = append(p.times, at), append(p.at, at.UnixNano())
			p.free = append(p.free, bitset.New(2))
			if r.IntN(2) == 0 {
				p.free[i].Set(0)
			}
		}
		from := p.at[0] + int64(r.IntN(40))*int64(time.Minute)
		to := from + int64(1+r.IntN(60))*int64(time.Minute)
		d := time.Duration(1+r.IntN(40)) * time.Minute
		var own *reservation
		if r.IntN(2) == 0 {
			s := at(r.IntN(60))
			own = &reservation{Reservation: Reservation{Start: s, End: s.Add(time.Duration(1+r.IntN(30)) * time.Minute)}}
		}
		// brute force on a one-minute grid: a start in [from, to) at or
		// after the holding slot's start, free for d (the last slot has no end)
		free := func(m int64) bool {
			k := len(p.at) - 1
			for k > 0 && p.at[k] > m {
				k--
			}
			if own != nil && p.at[k] >= own.Start.UnixNano() && p.at[k] < own.End.UnixNano() {
				return true
			}
			return p.free[k].Test(0)
		}
		want := false
		step := int64(time.Minute)
		for s := from; s < to && !want; s += step {
			ok := true
			for m := s; m < s+int64(d); m += step {
				if !free(m) {
					ok = false
					break
				}
			}
			want = ok
		}
		require.Equal(t, want, p.hasRun(0, from, to, d, own), "iter %d", iter)
	}
}

// A reservation whose start is less than a resolution step away is
// planned in full: its plan tried no start that late, so a start now may
// use nodes that a reservation time has since overtaken kept it off
// (found by this replay at 15-minute steps).
func TestKeptReservationPlannedPastItsLastTriedStart(t *testing.T) {
	if raceEnabled {
		t.Skip("one fixed replay, slow under the race detector; it checks decisions, not sharing")
	}
	res := WithBackfillResolution(15 * time.Minute)
	fast, full := New(cluster(t, onesConf(32)), res), New(cluster(t, onesConf(32)), res, fullPlans)
	replayTwins(t, fast, full, rand.New(rand.NewPCG(3001, 11)), 32, 150, "seed 3001")
}

// wholeClusterBehindThree makes twin schedulers on eight one-CPU nodes,
// one planning in full at every pass, each running a (2 nodes, 1 h), b
// and c (3 nodes, 2 h each), with x (all 8 nodes, 30 min) reserved
// behind them by one conservative pass.
func wholeClusterBehindThree(t *testing.T) (fast, full *Scheduler, a, b, c, x JobID) {
	t.Helper()
	fast, full = New(cluster(t, onesConf(8))), New(cluster(t, onesConf(8)), fullPlans)
	for _, s := range []*Scheduler{fast, full} {
		a = submit(t, s, nodes(2, 60*time.Minute), at(0))
		b = submit(t, s, nodes(3, 120*time.Minute), at(0))
		c = submit(t, s, nodes(3, 120*time.Minute), at(0))
		require.Len(t, s.Schedule(at(0)), 3)
		x = submit(t, s, nodes(8, 30*time.Minute), at(0))
		s.BackfillStarts(at(0))
	}
	return fast, full, a, b, c, x
}
