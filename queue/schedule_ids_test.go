package queue

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/hpcsched/hpcsched/internal/testseed"
	"github.com/stretchr/testify/require"
)

// startIDs is what a pass returned, as IDs.
func startIDs(started []Started) []JobID {
	var ids []JobID
	for _, st := range started {
		ids = append(ids, st.Job)
	}
	return ids
}

// ScheduleIDs and BackfillIDs start the same jobs as Schedule and
// BackfillStarts, pass after pass of a random workload, append to dst, and
// leave the same placements; a subscriber still receives each start's
// hostlist.
func TestScheduleAndBackfillIDsStartAsTheirFullForms(t *testing.T) {
	seed := testseed.Draw(t)
	rng := rand.New(rand.NewPCG(seed, 1))
	full, ids, heard := simple(t), simple(t), simple(t)
	var rec recorder
	heard.Subscribe(rec.on)
	var hosts []string
	for step := range 60 {
		now := at(step)
		sp := nodes(1+rng.IntN(5), time.Duration(10+rng.IntN(50))*time.Minute)
		for _, s := range []*Scheduler{full, ids, heard} {
			submit(t, s, sp, now)
		}
		want := startIDs(full.Schedule(now))
		bf := full.BackfillStarts(now)
		want = append(want, startIDs(bf)...)
		for _, st := range bf {
			hosts = append(hosts, st.Nodes)
		}
		got := ids.BackfillIDs(now, ids.ScheduleIDs(now, []JobID{99}))
		require.Equal(t, append([]JobID{99}, want...), got, "step %d", step)
		require.Equal(t, want, heard.BackfillIDs(now, heard.ScheduleIDs(now, nil)), "step %d", step)
		for _, id := range want {
			a, _ := full.Job(id)
			b, _ := ids.Job(id)
			require.Equal(t, a.Placement.Names, b.Placement.Names)
		}
		// jobs end at random, the same in all three
		for _, j := range full.Jobs() {
			if j.State == Running && rng.IntN(4) == 0 {
				for _, s := range []*Scheduler{full, ids, heard} {
					require.NoError(t, s.Finish(j.ID, Outcome{}, now))
				}
			}
		}
	}
	require.NotEmpty(t, hosts, "backfill started jobs")
	var details []string
	for _, e := range rec.events {
		if e.Kind == EventStart {
			require.NotEmpty(t, e.Detail, "a subscriber gets each start's hostlist")
			details = append(details, e.Detail)
		}
	}
	require.NotEmpty(t, details)
	require.False(t, ids.quietStarts || heard.quietStarts, "the passes leave the schedulers as they were")
	require.Equal(t, startIDs(full.Schedule(at(60))), ids.ScheduleIDs(at(60), nil))
	require.Empty(t, ids.ScheduleIDs(at(60), nil), "a second pass with nothing changed starts nothing")
}

func TestZeroSchedulerIDsPanicsSayingSo(t *testing.T) {
	var s Scheduler
	const msg = "queue: a Scheduler must be made by New or Restore, not used as a zero value"
	require.PanicsWithValue(t, msg, func() { s.ScheduleIDs(at(0), nil) })
	require.PanicsWithValue(t, msg, func() { s.BackfillIDs(at(0), nil) })
}
