package queue

import (
	"fmt"
	"github.com/bits-and-blooms/bitset"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// A pass after submissions alone keeps the free times the last pass read
// without reading them again, unless time has reached an allocation's
// end: the node's free time is then now, not the end rounded up to the
// resolution, which may still lie ahead. Here a job runs past its limit
// (nothing ends it), and a job submitted before the rounded end must be
// planned from now, as on a rebuilt profile.
func TestAPassSeesAnEndTimeReachedWithoutAChange(t *testing.T) {
	res := WithBackfillResolution(15 * time.Minute)
	for _, opts := range [][]Option{{res}, {res, fullPlans}} {
		s := New(cluster(t, onesConf(2)), opts...)
		submit(t, s, nodes(1, time.Hour), t0)
		submit(t, s, nodes(1, 10*time.Minute), t0)
		s.Schedule(t0) // n0 until 60, n1 until 10 (rounded up: 15)
		head := submit(t, s, nodes(2, 30*time.Minute), t0)
		s.Schedule(t0)
		s.BackfillStarts(t0)
		require.True(t, reservationOf(t, s, head).Start.Equal(at(60)))
		// at 12 the short job still holds n1 past its limit: n1 is free
		// from now on in a rebuilt profile, [12, 60) before head's
		// reservation, room for 40 minutes from now and no later
		late := submit(t, s, nodes(1, 40*time.Minute), at(12))
		s.Schedule(at(12))
		s.BackfillStarts(at(12))
		require.Equal(t, Pending, state(t, s, late), "n1 is still allocated")
		r := reservationOf(t, s, late)
		require.True(t, r.Start.Equal(at(12)), "late reserved from %v, not now", r.Start)
	}
}

// Passes that keep what the last pass read decide exactly as passes on a
// profile rebuilt from scratch, planning every job in full: replays of
// mostly submissions a few seconds apart (so that most passes qualify),
// with ends, cancels, holds, node changes, and jobs running past their
// limits, which only time reaches (so that some passes must read again
// though the cluster did not change).
func TestPassesAfterSubmissionsDecideAsRebuiltPlans(t *testing.T) {
	iters, steps := 24, 150
	if testing.Short() {
		iters, steps = 8, 100
	}
	if raceEnabled {
		iters, steps = 2, 50
	}
	var kept, reached int
	for iter := range iters {
		seed := uint64(iter) + 7000
		n := []int{2, 5, 16, 3}[iter%4]
		res := WithBackfillResolution([]time.Duration{time.Minute, 15 * time.Minute, time.Nanosecond}[iter%3])
		k, r := stillReplay(t, seed, n, res, steps)
		kept, reached = kept+k, reached+r
	}
	t.Logf("%d passes kept what the last read, %d read again only because time reached an end", kept, reached)
	require.Positive(t, kept)
	require.Positive(t, reached)
}

// stillReplay drives twin schedulers, the second rebuilding its profile
// and planning every job in full at every pass, and compares their
// decisions after each pass. It returns how many passes of the first
// kept the free times read before, and how many read them again only
// because time reached an allocation's end.
func stillReplay(t *testing.T, seed uint64, n int, res Option, steps int) (kept, reached int) {
	t.Helper()
	t.Logf("seed %d, %d nodes", seed, n)
	conf := onesConf(n)
	fast, ref := New(cluster(t, conf), res), New(cluster(t, conf), res)
	r := rand.New(rand.NewPCG(seed, 29))
	now := t0
	for step := range steps {
		now = now.Add(time.Duration(r.IntN(90)) * time.Second)
		if r.IntN(8) == 0 {
			now = now.Add(time.Duration(r.IntN(40)) * time.Minute)
		}
		ev := lightEvent(r, n) // submissions five times in fourteen
		if r.IntN(2) == 0 {
			ev = submitOne(r, n)
		}
		due := r.IntN(4) == 0 // else jobs may run past their limits
		for _, s := range []*Scheduler{fast, ref} {
			if due {
				endDue(t, s, now)
			}
			ev(t, s, now)
			s.Schedule(now)
		}
		if k := fast.kept; k != nil && fast.queue.Len() > 0 {
			switch nowAt := now.UnixNano(); {
			case k.nodesStill(fast.c, nowAt):
				kept++
			case k.read.ok && k.read.changes == fast.c.Changes() && len(k.started) == 0:
				reached++
			}
		}
		fast.BackfillStarts(now)
		ref.kept = nil
		ref.BackfillStarts(now)
		msg := fmt.Sprintf("seed %d (%d nodes) step %d", seed, n, step)
		if !sameDecisions(fast, ref) {
			requireSameDecisions(t, fast, ref, msg)
		}
		if step%10 == 9 {
			requireKeptEqualsRebuilt(t, fast, now, msg)
		}
	}
	return kept, reached
}

// submitOne draws the submission of one job of up to a quarter of n nodes.
func submitOne(r *rand.Rand, n int) func(*testing.T, *Scheduler, time.Time) {
	spec := nodes(1+r.IntN(max(n/4, 1)), time.Duration(1+r.IntN(90))*time.Minute)
	return func(t *testing.T, s *Scheduler, now time.Time) { submit(t, s, spec, now) }
}

func TestWordHas(t *testing.T) {
	w := bitset.New(130).Set(0).Set(64).Set(129).Words()
	for _, c := range []struct {
		i    int
		want bool
	}{{0, true}, {1, false}, {64, true}, {63, false}, {129, true}, {128, false}, {192, false}, {1000, false}} {
		require.Equal(t, c.want, wordHas(w, c.i), "node %d", c.i)
	}
}
