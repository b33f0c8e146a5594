package queue

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/hpcsched/hpcsched/selectnodes"
	"github.com/stretchr/testify/require"
)

// fullPlans is an option that makes every Backfill plan every job in
// full: a selection budget no pass reaches turns the certificates off
// and changes nothing else.
var fullPlans = WithBackfillSelections(1 << 40)

// requireSameDecisions checks that two schedulers fed the same events
// decided alike: every job's state, reason, start and nodes, and every
// standing reservation.
func requireSameDecisions(t *testing.T, fast, full *Scheduler, msg string) {
	t.Helper()
	a, b := fast.Jobs(), full.Jobs()
	require.Equal(t, len(b), len(a), msg)
	for i := range b {
		x, y := a[i], b[i]
		require.Equal(t, y.ID, x.ID, msg)
		require.Equal(t, y.State, x.State, "%s: job %d", msg, y.ID)
		require.Equal(t, y.Reason, x.Reason, "%s: job %d", msg, y.ID)
		require.True(t, y.Start.Equal(x.Start), "%s: job %d starts %v, in full %v", msg, y.ID, x.Start, y.Start)
		if y.Placement != nil || x.Placement != nil {
			require.Equal(t, y.Placement.Names, x.Placement.Names, "%s: job %d", msg, y.ID)
		}
	}
	ra, rb := fast.Reservations(), full.Reservations()
	require.Equal(t, len(rb), len(ra), "%s: reservations", msg)
	for i := range rb {
		require.Equal(t, rb[i].Job, ra[i].Job, "%s: reservation %d", msg, i)
		require.True(t, rb[i].Start.Equal(ra[i].Start), "%s: job %d reserved from %v, in full %v", msg, rb[i].Job, ra[i].Start, rb[i].Start)
		require.Equal(t, rb[i].Nodes, ra[i].Nodes, "%s: job %d", msg, rb[i].Job)
	}
}

// Keeping reservations without a plan decides exactly as planning every
// job in full, under random event sequences (keptEvent's: submissions,
// passes, early ends, cancels, holds, requeues, suspends, updates, node
// states, allocations behind the scheduler's back) on clusters of
// whole nodes and of shared ones.
func TestKeptReservationsDecideAsFullPlans(t *testing.T) {
	iters, steps := twinIterations(16, 6, 3), 160
	for iter := range iters {
		seed := uint64(iter) + 1000
		n := []int{8, 40, 100}[iter%3]
		conf := fmt.Sprintf("NodeName=n[0-%d] CPUs=%d\nPartitionName=batch Nodes=ALL Default=YES\n", n-1, []int{1, 4}[iter%2])
		res := WithBackfillResolution([]time.Duration{time.Minute, 7 * time.Minute, time.Nanosecond}[iter%3])
		fast := New(cluster(t, conf), res)
		full := New(cluster(t, conf), res, fullPlans)
		rf, rb := rand.New(rand.NewPCG(seed, 5)), rand.New(rand.NewPCG(seed, 5))
		now := t0
		for step := range steps {
			now = now.Add(time.Duration(rf.IntN(400)-10) * time.Second)
			rb.IntN(400)
			keptEvent(t, fast, rf, n, now)
			keptEvent(t, full, rb, n, now)
			requireSameDecisions(t, fast, full, fmt.Sprintf("seed %d step %d", seed, step))
		}
	}
}

// The same, on replays: a queue kept long by jobs that mostly end before
// their limits, submitted in bursts and passes after every event, as a
// simulator drives the scheduler.
func TestKeptReservationsDecideAsFullPlansInReplays(t *testing.T) {
	iters, jobs := twinReplaySizes([2]int{6, 400}, [2]int{3, 250}, [2]int{2, 120})
	for iter := range iters {
		seed := uint64(iter) + 2000
		n := []int{16, 100, 64}[iter%3]
		conf := fmt.Sprintf("NodeName=n[0-%d] CPUs=%d\nPartitionName=batch Nodes=ALL Default=YES\n", n-1, []int{1, 1, 8}[iter%3])
		fast := New(cluster(t, conf))
		full := New(cluster(t, conf), fullPlans)
		replayTwins(t, fast, full, rand.New(rand.NewPCG(seed, 9)), n, jobs, fmt.Sprintf("seed %d", seed))
	}
}

// replayTwins submits jobs to both schedulers and ends them early, with
// a Schedule and a Backfill pass after every event, comparing decisions
// (full nil: fast alone, nothing compared).
func replayTwins(t *testing.T, fast, full *Scheduler, r *rand.Rand, n, jobs int, msg string) {
	replayTwinsIn(t, fast, full, r, n, jobs, msg, nil)
}

// replayTwinsIn is replayTwins with each job in one of parts, at random
// (none: the default partition).
func replayTwinsIn(t *testing.T, fast, full *Scheduler, r *rand.Rand, n, jobs int, msg string, parts []string) {
	type end struct {
		at time.Time
		id JobID
	}
	var ends []end
	now := t0
	both := []*Scheduler{fast, full}
	if full == nil {
		both = both[:1]
	}
	pass := func() {
		for _, s := range both {
			for _, st := range append(s.Schedule(now), s.BackfillStarts(now)...) {
				j, _ := s.Job(st.Job)
				if s == fast {
					ends = append(ends, end{now.Add(time.Duration(float64(j.TimeLimit) * r.Float64())), st.Job})
				}
			}
		}
		if full != nil {
			requireSameDecisions(t, fast, full, fmt.Sprintf("%s at %v", msg, now))
		}
	}
	for submitted := 0; submitted < jobs || len(ends) > 0; {
		next := now.Add(time.Duration(r.IntN(900)) * time.Second)
		if submitted == jobs {
			next = ends[0].at
		}
		// the earliest end before next, if any
		k := -1
		for i, e := range ends {
			if !e.at.After(next) && (k < 0 || e.at.Before(ends[k].at)) {
				k = i
			}
		}
		if k >= 0 {
			now = maxTime(now, ends[k].at)
			for _, s := range both {
				require.NoError(t, s.Finish(ends[k].id, Outcome{Kind: Completed}, now))
			}
			ends = append(ends[:k], ends[k+1:]...)
			pass()
			continue
		}
		now = next
		for burst := 1 + r.IntN(3); burst > 0 && submitted < jobs; burst-- {
			spec := nodes(1+r.IntN(max(n/4, 1)), time.Duration(1+r.IntN(600))*time.Minute)
			if r.IntN(8) == 0 {
				spec.Request = selectnodes.Request{CPUs: 1 + r.IntN(n)}
			}
			if len(parts) > 0 {
				spec.Request.Partition = parts[r.IntN(len(parts))]
			}
			for _, s := range both {
				submit(t, s, spec, now)
			}
			submitted++
		}
		pass()
	}
}

// twinReplaySizes is how many twin replays a property test runs and of how
// many jobs: full, under -short, or under the race detector (which wins).
func twinReplaySizes(full, short, race [2]int) (iters, jobs int) {
	size := full
	if testing.Short() {
		size = short
	}
	if raceEnabled {
		size = race
	}
	return size[0], size[1]
}
