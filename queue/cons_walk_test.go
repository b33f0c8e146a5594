package queue

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// requireResvBound checks that s's kept bound on the reservations' starts
// (see walkResv) bounds them, and that every reservation's job is pending
// and not held: a pass that skips the walk would find nothing to drop.
func requireResvBound(t *testing.T, s *Scheduler, msg string) (bounded bool) {
	t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.kept == nil || !s.kept.resvFrom.ok {
		return false
	}
	for id, r := range s.resv {
		require.GreaterOrEqual(t, r.Start.UnixNano(), s.kept.resvFrom.at, "%s: reservation %d starts before the bound", msg, id)
		j, ok := s.jobs[id]
		require.True(t, ok && j.State == Pending && !j.Held, "%s: reservation %d of a job not pending", msg, id)
	}
	return true
}

// A pass that skips the walk of the reservations while they all start
// after now decides as one that walks them at every pass, under random
// events of every kind (keptEvent's), and the bound it reads holds after
// every event.
func TestResvWalkSkipDecidesAsAWalk(t *testing.T) {
	iters, steps := twinIterations(12, 5, 2), 160
	skipped := 0
	for iter := range iters {
		seed := uint64(iter) + 3100
		t.Logf("seed %d", seed)
		n := []int{8, 40, 100}[iter%3]
		conf := fmt.Sprintf("NodeName=n[0-%d] CPUs=%d\nPartitionName=batch Nodes=ALL Default=YES\n", n-1, []int{1, 4}[iter%2])
		res := WithBackfillResolution([]time.Duration{time.Minute, 7 * time.Minute, time.Nanosecond}[iter%3])
		fast, walk := New(cluster(t, conf), res), New(cluster(t, conf), res)
		rf, rw := rand.New(rand.NewPCG(seed, 5)), rand.New(rand.NewPCG(seed, 5))
		now := t0
		for step := range steps {
			now = now.Add(time.Duration(rf.IntN(400)-10) * time.Second)
			rw.IntN(400)
			msg := fmt.Sprintf("seed %d step %d", seed, step)
			if requireResvBound(t, fast, msg) && fast.kept.resvAfter(now.UnixNano()) {
				skipped++
			}
			if walk.kept != nil {
				walk.kept.walkEvery = true // (a profile rebuilt drops it)
			}
			keptEvent(t, fast, rf, n, now)
			keptEvent(t, walk, rw, n, now)
			requireSameDecisions(t, fast, walk, msg)
		}
	}
	require.Positive(t, skipped, "no pass could skip the walk")
}

// The same on replays (a long queue, passes after every submission and
// end), where nearly every pass skips the walk.
func TestResvWalkSkipDecidesAsAWalkInReplays(t *testing.T) {
	iters, jobs := twinReplaySizes([2]int{4, 300}, [2]int{1, 200}, [2]int{1, 100})
	for iter := range iters {
		seed := uint64(iter) + 3200
		t.Logf("seed %d", seed)
		n := []int{16, 64}[iter%2]
		conf := fmt.Sprintf("NodeName=n[0-%d] CPUs=1\nPartitionName=batch Nodes=ALL Default=YES\n", n-1)
		fast, walk := New(cluster(t, conf)), New(cluster(t, conf))
		walk.Backfill(t0) // makes the kept profile, which keeps walkEvery
		walk.kept.walkEvery = true
		replayTwins(t, fast, walk, rand.New(rand.NewPCG(seed, 9)), n, jobs, fmt.Sprintf("seed %d", seed))
		requireResvBound(t, fast, fmt.Sprintf("seed %d", seed))
	}
}
