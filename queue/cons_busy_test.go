package queue

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/hpcsched/hpcsched/internal/testseed"
	"github.com/stretchr/testify/require"
)

// Jobs left without a reservation because no start lies within the
// backfill window are kept so without a plan exactly when a full plan
// finds no start again: twins, one planning every job in full at every
// pass, decide alike (reasons and explanations too) on replays with a
// window short against the jobs' limits, so that the queue behind the
// head is mostly such jobs; and the shortcut is taken.
func TestBusyJobsKeptDecideAsFullPlans(t *testing.T) {
	iters, jobs := twinReplaySizes([2]int{6, 300}, [2]int{3, 200}, [2]int{2, 100})
	base := testseed.Draw(t)
	kept := 0
	for iter := range iters {
		seed := base + uint64(iter)
		n := []int{16, 100, 40}[iter%3]
		conf := fmt.Sprintf("NodeName=n[0-%d] CPUs=%d\nPartitionName=batch Nodes=ALL Default=YES\n", n-1, []int{1, 1, 4}[iter%3])
		opts := []Option{WithBackfillWindow([]time.Duration{2 * time.Hour, 5 * time.Hour, 47 * time.Minute}[iter%3]),
			WithBackfillResolution([]time.Duration{time.Minute, 7 * time.Minute, time.Second}[iter%3])}
		fast := New(cluster(t, conf), opts...)
		full := New(cluster(t, conf), append(opts, fullPlans)...)
		msg := fmt.Sprintf("seed %d", seed)
		replayTwins(t, fast, full, rand.New(rand.NewPCG(seed, 11)), n, jobs, msg)
		requireSameExplanations(t, fast, full, msg)
		if fast.kept != nil {
			kept += fast.kept.skip.keptBusy
		}
	}
	t.Logf("%d jobs kept busy without a plan", kept)
	require.Positive(t, kept, "no job was kept busy without a plan")
}

// requireSameExplanations checks that every job of two schedulers has
// the same explanation (or none in both).
func requireSameExplanations(t *testing.T, fast, full *Scheduler, msg string) {
	t.Helper()
	a, b := fast.Jobs(), full.Jobs()
	for i := range b {
		require.Equal(t, b[i].Explanation == nil, a[i].Explanation == nil, "%s: job %d", msg, b[i].ID)
	}
}

// The same under random calls of every kind (keptEvent's: node states,
// holds, updates, requeues, allocations behind the scheduler's back),
// with a window shorter than many jobs' limits.
func TestBusyJobsKeptDecideAsFullPlansUnderEvents(t *testing.T) {
	iters, steps := twinIterations(8, 4, 2), 200
	base := testseed.Draw(t)
	kept := 0
	for iter := range iters {
		seed := base + uint64(iter)
		n := []int{8, 40}[iter%2]
		conf := fmt.Sprintf("NodeName=n[0-%d] CPUs=%d\nPartitionName=batch Nodes=ALL Default=YES\n", n-1, []int{1, 4}[iter%2])
		opts := []Option{WithBackfillWindow([]time.Duration{30 * time.Minute, 45 * time.Minute}[iter%2])}
		fast := New(cluster(t, conf), opts...)
		full := New(cluster(t, conf), append(opts, fullPlans)...)
		rf, rb := rand.New(rand.NewPCG(seed, 5)), rand.New(rand.NewPCG(seed, 5))
		now := t0
		for step := range steps {
			now = now.Add(time.Duration(rf.IntN(400)-10) * time.Second)
			rb.IntN(400)
			keptEvent(t, fast, rf, n, now)
			keptEvent(t, full, rb, n, now)
			msg := fmt.Sprintf("seed %d step %d", seed, step)
			requireSameDecisions(t, fast, full, msg)
			requireSameExplanations(t, fast, full, msg)
		}
		if fast.kept != nil {
			kept += fast.kept.skip.keptBusy
		}
	}
	t.Logf("%d jobs kept busy without a plan", kept)
	require.Positive(t, kept, "no job was kept busy without a plan")
}
