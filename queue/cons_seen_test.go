package queue

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/hpcsched/hpcsched/selectnodes"
	"github.com/stretchr/testify/require"
)

// A job a pass started that ends early, its node taken again before the
// next pass by a shorter job, leaves room between the two ends: a job
// whose reservation lies after it moves up into it, as a full plan
// moves it.
func TestRoomLeftByAPassStartReachesTheLog(t *testing.T) {
	for _, s := range []*Scheduler{New(cluster(t, onesConf(2))), New(cluster(t, onesConf(2)), fullPlans)} {
		run := submit(t, s, nodes(1, time.Hour), t0)
		s.Schedule(t0) // on n0 until 60
		later := nodes(1, 20*time.Minute)
		later.Begin = at(10) // ahead of the others in the queue, eligible at 10
		b := submit(t, s, later, t0)
		head, c := headBehindOneAndEarlyEnd(t, s)
		s.Schedule(at(10)) // b on n1 until 30
		require.Equal(t, Running, state(t, s, b))
		s.BackfillStarts(at(10))
		rc := reservationOf(t, s, c)
		require.True(t, rc.Start.Equal(at(30)), "c moves up to n1's [30, 60): %v", rc.Start)
		require.Equal(t, Pending, state(t, s, head))
		_ = run
	}
}

func reservationOf(t *testing.T, s *Scheduler, id JobID) Reservation {
	t.Helper()
	for _, r := range s.Reservations() {
		if r.Job == id {
			return r
		}
	}
	require.Failf(t, "no reservation", "job %d", id)
	return Reservation{}
}

// Passes with a kept profile and certificates decide exactly as passes
// that plan every job in full on a profile rebuilt from scratch, on
// lightly loaded replays where the queue is now empty, now filled by a
// burst: submissions, ends at the limits and early ones, cancels, holds
// and releases, nodes going down and up, a Schedule and a Backfill pass
// after every event (as a simulator drives them), so that jobs a pass
// started end early and the next Schedule starts others on their nodes.
func TestLightReplaysDecideAsRebuiltPlans(t *testing.T) {
	iters, steps, tiny := 6, 400, 400
	if testing.Short() {
		iters, steps, tiny = 2, 100, 70
	}
	if raceEnabled {
		iters, steps, tiny = 1, 100, 20
	}
	var empty, queued int
	for iter := range iters {
		seed := uint64(iter) + 4000
		n := []int{3, 16, 4, 64}[iter%4]
		conf := onesConf(n)
		if iter%3 == 2 {
			conf = fmt.Sprintf("NodeName=n[0-%d] CPUs=4\nPartitionName=batch Nodes=ALL Default=YES\n", n-1)
		}
		res := WithBackfillResolution([]time.Duration{time.Minute, 15 * time.Minute, time.Nanosecond}[iter%3])
		e, q := lightReplay(t, seed, n, conf, res, steps)
		empty, queued = empty+e, queued+q
	}
	// and many short replays on a few nodes of one CPU, where a job a pass
	// started is often the one to end early
	for seed := range uint64(tiny) {
		n := 2 + int(seed%3)
		e, q := lightReplay(t, seed+5000, n, onesConf(n), WithBackfillResolution(time.Minute), 40)
		empty, queued = empty+e, queued+q
	}
	t.Logf("%d passes on an empty queue, %d on a queue", empty, queued)
	require.Positive(t, empty)
	require.Positive(t, queued)
}

// lightReplay drives twin schedulers through steps random events of
// lightEvent's, each followed by a Schedule and a Backfill pass, the twin
// planning every job in full on a profile rebuilt every pass, and
// compares their decisions after each; it returns how many passes found
// the queue empty and how many did not.
func lightReplay(t *testing.T, seed uint64, n int, conf string, res Option, steps int) (empty, queued int) {
	t.Helper()
	fast, ref := New(cluster(t, conf), res), New(cluster(t, conf), res)
	r := rand.New(rand.NewPCG(seed, 13))
	now := t0
	for step := range steps {
		now = now.Add(time.Duration(r.IntN(1200)) * time.Second)
		ev := lightEvent(r, n)
		for _, s := range []*Scheduler{fast, ref} {
			endDue(t, s, now)
			ev(t, s, now)
		}
		if fast.queue.Len() == 0 {
			empty++
		} else {
			queued++
		}
		fast.Schedule(now)
		fast.BackfillStarts(now)
		ref.Schedule(now)
		ref.kept = nil // every pass from scratch, every job in full
		ref.BackfillStarts(now)
		msg := fmt.Sprintf("seed %d (%d nodes) step %d", seed, n, step)
		if !sameDecisions(fast, ref) { // (the cheap check first: the long one names the difference)
			requireSameDecisions(t, fast, ref, msg)
		}
		if step%10 == 9 {
			// the kept profile, after passes that may have left it behind
			requireKeptEqualsRebuilt(t, fast, now, msg)
		}
	}
	return empty, queued
}

// lightEvent draws one event of a lightly loaded cluster, to be applied
// alike to twin schedulers (the draws are made once, here).
func lightEvent(r *rand.Rand, n int) func(*testing.T, *Scheduler, time.Time) {
	pickFrom := func(s *Scheduler, st State, k int) (JobID, bool) {
		var ids []JobID
		for _, j := range s.Jobs() {
			if j.State == st {
				ids = append(ids, j.ID)
			}
		}
		if len(ids) == 0 {
			return 0, false
		}
		return ids[k%len(ids)], true
	}
	k := r.IntN(1 << 20)
	switch r.IntN(14) {
	case 0, 1, 2, 3, 4:
		var specs []Spec
		for range 1 + r.IntN(1+r.IntN(8)) { // now and then a burst
			spec := nodes(1+r.IntN(max(n/4, 1)), time.Duration(1+r.IntN(120))*time.Minute)
			if r.IntN(6) == 0 {
				spec.Request = selectnodes.Request{CPUs: 1 + r.IntN(n)}
			}
			specs = append(specs, spec)
		}
		return func(t *testing.T, s *Scheduler, now time.Time) {
			for _, spec := range specs {
				submit(t, s, spec, now)
			}
		}
	case 5, 6, 7, 8, 9, 10:
		return func(t *testing.T, s *Scheduler, now time.Time) {
			if id, ok := pickFrom(s, Running, k); ok {
				require.NoError(t, s.Finish(id, Outcome{Kind: Completed}, now))
			}
		}
	case 11:
		return func(t *testing.T, s *Scheduler, now time.Time) {
			if id, ok := pickFrom(s, Pending, k); ok {
				require.NoError(t, s.Cancel(id, now))
			}
		}
	case 12:
		return func(t *testing.T, s *Scheduler, now time.Time) {
			if id, ok := pickFrom(s, Pending, k); ok {
				_ = s.Hold(id, now)
			}
			if id, ok := pickFrom(s, Pending, k/2); ok {
				_ = s.Release(id, now)
			}
		}
	default:
		node, st := fmt.Sprintf("n%d", k%n), selectnodes.NodeState(r.IntN(3))
		if r.IntN(2) == 0 {
			st = selectnodes.NodeState(0)
		}
		return func(t *testing.T, s *Scheduler, now time.Time) {
			_ = s.SetNodeState(node, st, now)
		}
	}
}

// endDue finishes every running job of s whose time limit has passed by
// now (a job's end is its limit unless an event ends it earlier).
func endDue(t *testing.T, s *Scheduler, now time.Time) {
	for _, j := range s.Jobs() {
		if j.State == Running && !j.Start.Add(j.TimeLimit).After(now) {
			require.NoError(t, s.Finish(j.ID, Outcome{Kind: Completed}, now))
		}
	}
}

// sameDecisions is requireSameDecisions as a bool, without its messages.
func sameDecisions(a, b *Scheduler) bool {
	x, y := a.Jobs(), b.Jobs()
	if len(x) != len(y) {
		return false
	}
	for i := range x {
		p, q := x[i], y[i]
		if p.ID != q.ID || p.State != q.State || p.Reason != q.Reason || !p.Start.Equal(q.Start) ||
			(p.Placement == nil) != (q.Placement == nil) || (p.Placement != nil && !slices.Equal(p.Placement.Names, q.Placement.Names)) {
			return false
		}
	}
	ra, rb := a.Reservations(), b.Reservations()
	if len(ra) != len(rb) {
		return false
	}
	for i := range ra {
		if ra[i].Job != rb[i].Job || !ra[i].Start.Equal(rb[i].Start) || !slices.Equal(ra[i].Nodes, rb[i].Nodes) {
			return false
		}
	}
	return true
}

// A job a pass starts on a node no allocation held before, which ends
// early with nothing started there since, leaves the node's free time as
// the last read had it; the room it leaves still reaches the log (the
// node is compared with the start's end, not only with the last read),
// so a job whose certificate could use it is planned and starts.
func TestRoomLeftOnANodeNeverHeldReachesTheLog(t *testing.T) {
	for _, s := range []*Scheduler{New(cluster(t, onesConf(2))), New(cluster(t, onesConf(2)), fullPlans)} {
		submit(t, s, nodes(1, time.Hour), t0)
		s.Schedule(t0) // on n0 until 60
		head, c := headBehindOneAndEarlyEnd(t, s)
		s.Schedule(at(10))
		s.BackfillStarts(at(10))
		require.Equal(t, Running, state(t, s, c), "c starts on n1's [10, 60)")
		require.Equal(t, Pending, state(t, s, head))
	}
}

// headBehindOneAndEarlyEnd submits, on two one-CPU nodes with n0 busy
// until 60, a two-node head and two one-node jobs a (50 min) and c
// (25 min); one pass starts a on n1 and reserves c after the head's [60,
// 90); then a ends early, at 10. It returns the head and c.
func headBehindOneAndEarlyEnd(t *testing.T, s *Scheduler) (head, c JobID) {
	t.Helper()
	head = submit(t, s, nodes(2, 30*time.Minute), t0)
	a := submit(t, s, nodes(1, 50*time.Minute), t0)
	c = submit(t, s, nodes(1, 25*time.Minute), t0)
	s.Schedule(t0) // head is blocked: the partition is locked
	s.BackfillStarts(t0)
	require.Equal(t, Running, state(t, s, a), "a starts in the pass, on n1 until 50")
	rc := reservationOf(t, s, c)
	require.True(t, rc.Start.Equal(at(90)), "c after head's [60, 90): %v", rc.Start)
	require.NoError(t, s.Finish(a, Outcome{Kind: Completed}, at(10)))
	return head, c
}
