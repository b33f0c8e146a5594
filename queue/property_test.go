package queue

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/hpcsched/hpcsched/selectnodes"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Every job state transition (and hold/release) produces exactly one job
// event, whatever the sequence of operations.
func TestEveryTransitionIsOneEvent(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	for iter := 0; iter < 50; iter++ {
		s := simple(t)
		var rec recorder
		s.Subscribe(rec.on)
		type snap struct {
			st   State
			held bool
		}
		before := map[JobID]snap{}
		for step := 0; step < 80; step++ {
			now := at(step)
			ids := s.Jobs()
			pick := func() JobID {
				if len(ids) == 0 {
					return 1
				}
				return ids[r.IntN(len(ids))].ID
			}
			mark := len(rec.events)
			switch r.IntN(13) {
			case 0, 1:
				spec := nodes(1+r.IntN(4), time.Duration(1+r.IntN(5))*time.Minute)
				spec.Requeue = r.IntN(2) == 0
				_, _ = s.Submit(spec, now)
			case 2:
				s.Schedule(now)
			case 3:
				_ = s.Cancel(pick(), now)
			case 4:
				_ = s.Finish(pick(), Outcome{Kind: OutcomeKind(r.IntN(3))}, now)
			case 5:
				_ = s.Hold(pick(), now)
			case 6:
				_ = s.Release(pick(), now)
			case 7:
				_ = s.Suspend(pick(), now)
			case 8:
				_ = s.Resume(pick(), now)
			case 9:
				_ = s.SetNodeState(fmt.Sprintf("n%d", r.IntN(8)), selectnodes.NodeState(r.IntN(3)), now)
			case 10:
				s.Tick(now)
			case 11:
				_, _ = s.Backfill(now)
			case 12:
				_ = s.Requeue(pick(), now)
			}
			transitions := 0
			for _, j := range s.Jobs() {
				b, seen := before[j.ID]
				cur := snap{j.State, j.Held}
				if !seen || b != cur {
					transitions++
				}
				before[j.ID] = cur
			}
			jobEvents := 0
			for _, e := range rec.events[mark:] {
				if e.Job != 0 && e.Kind != EventUpdate && e.Kind != EventPriority {
					jobEvents++
				}
			}
			require.Equal(t, transitions, jobEvents, "iter %d step %d: events %v", iter, step, rec.events[mark:])
		}
		require.NoError(t, s.Cluster().CheckInvariants())
	}
}

// Backfill in virtual time, with jobs running exactly their time limits:
// no job starts later than its first reservation, no node is
// oversubscribed, and reservations of higher-priority jobs are never
// pushed back by a lower-priority start.
func TestBackfillProperties(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 22))
	for iter := 0; iter < 40; iter++ {
		s := simple(t)
		firstResv := map[JobID]time.Time{}
		lastResv := map[JobID]time.Time{}
		startedAt := map[JobID]time.Time{}
		ends := map[JobID]time.Time{}
		now := t0
		var pending int
		for step := 0; step < 80; step++ {
			if r.IntN(3) > 0 && step < 50 {
				_, err := s.Submit(nodes(1+r.IntN(8), time.Duration(1+r.IntN(30))*time.Minute), now)
				require.NoError(t, err)
				pending++
			}
			for _, id := range sortedKeys(ends) {
				if !now.Before(ends[id]) {
					require.NoError(t, s.Finish(id, Outcome{}, now))
					delete(ends, id)
				}
			}
			for _, st := range s.Schedule(now) {
				startedAt[st.Job] = now
				j, _ := s.Job(st.Job)
				ends[st.Job] = j.End
			}
			started, resv := s.Backfill(now)
			for _, st := range started {
				startedAt[st.Job] = now
				j, _ := s.Job(st.Job)
				ends[st.Job] = j.End
			}
			for _, rv := range resv {
				if last, ok := lastResv[rv.Job]; ok {
					require.False(t, rv.Start.After(last), "iter %d: job %d's reservation moved from %s to %s", iter, rv.Job, last, rv.Start)
				}
				lastResv[rv.Job] = rv.Start
				if _, ok := firstResv[rv.Job]; !ok {
					firstResv[rv.Job] = rv.Start
				}
			}
			require.NoError(t, s.Cluster().CheckInvariants())
			now = now.Add(time.Minute)
		}
		for id, when := range firstResv {
			got, ok := startedAt[id]
			if !ok {
				continue // the run ended first
			}
			assert.False(t, got.After(when), "iter %d: job %d reserved for %s started %s", iter, id, when, got)
		}
	}
}

func sortedKeys(m map[JobID]time.Time) []JobID {
	var out []JobID
	for id := range m {
		out = append(out, id)
	}
	for i := range out {
		for k := i + 1; k < len(out); k++ {
			if out[k] < out[i] {
				out[i], out[k] = out[k], out[i]
			}
		}
	}
	return out
}

// Backfill starts a short job on nodes a blocked wide job does not need
// yet, and refuses one that would delay it.
func TestBackfillRespectsReservation(t *testing.T) {
	s := simple(t)
	long := submit(t, s, nodes(4, 60*time.Minute), at(0))
	s.Schedule(at(0))
	require.Equal(t, Running, state(t, s, long))
	wide := submit(t, s, nodes(8, 30*time.Minute), at(1))    // must wait for long
	short := submit(t, s, nodes(2, 30*time.Minute), at(2))   // ends before 60: fits
	tooLong := submit(t, s, nodes(2, 90*time.Minute), at(3)) // would delay wide
	assert.Empty(t, s.Schedule(at(4)), "FCFS: wide blocks the partition")
	started, resv := s.Backfill(at(4))
	require.Len(t, started, 1)
	assert.Equal(t, short, started[0].Job)
	require.NotEmpty(t, resv)
	assert.Equal(t, wide, resv[0].Job)
	assert.Equal(t, at(60), resv[0].Start)
	assert.Equal(t, Pending, state(t, s, tooLong))
	// the reservation holds: wide starts at 60 when long ends
	require.NoError(t, s.Finish(long, Outcome{}, at(60)))
	require.NoError(t, s.Finish(short, Outcome{}, at(34)))
	st := s.Schedule(at(60))
	require.NotEmpty(t, st)
	assert.Equal(t, wide, st[0].Job)
}

// After Restore the scheduler decides exactly as the one it was saved from.
func TestSnapshotRestoreIsTransparent(t *testing.T) {
	conf := "NodeName=n[0-7] CPUs=4 Feature=ib\nPartitionName=batch Nodes=ALL Default=YES\nPartitionName=small Nodes=n[0-3] Priority=5\n"
	run := func(s *Scheduler, r *rand.Rand, from, to int) []string {
		var log []string
		for step := from; step < to; step++ {
			now := at(step)
			if r.IntN(2) == 0 {
				spec := nodes(1+r.IntN(5), time.Duration(1+r.IntN(20))*time.Minute)
				if r.IntN(3) == 0 {
					spec.Request.Partition = "small"
					spec.Request.MinNodes = 1 + r.IntN(3)
					spec.Request.Features = expr(t, "ib")
				}
				if r.IntN(4) == 0 && step > 0 {
					spec.Dependency = fmt.Sprintf("afterany:%d", 1+r.IntN(step))
				}
				if id, err := s.Submit(spec, now); err == nil {
					log = append(log, fmt.Sprintf("submit %d", id))
				}
			}
			for _, id := range s.Tick(now) {
				log = append(log, fmt.Sprintf("timeout %d", id))
			}
			for _, st := range s.Schedule(now) {
				log = append(log, fmt.Sprintf("start %d %s", st.Job, st.Nodes))
			}
			started, resv := s.Backfill(now)
			for _, st := range started {
				log = append(log, fmt.Sprintf("backfill %d %s", st.Job, st.Nodes))
			}
			for _, rv := range resv {
				log = append(log, fmt.Sprintf("resv %d %s", rv.Job, rv.Start.Format("15:04")))
			}
		}
		return log
	}
	policy := WithPolicy(Multifactor{Age: 100, JobSize: 50, MaxAge: time.Hour})
	first := New(cluster(t, conf), policy)
	r2 := rand.New(rand.NewPCG(1, 1))
	got := run(first, r2, 0, 60)
	require.NoError(t, first.SetNodeState("n5", selectnodes.NodeDrain, at(60)))
	var buf bytes.Buffer
	require.NoError(t, first.Snapshot(&buf))
	restored, err := Restore(&buf, cluster(t, conf), policy)
	require.NoError(t, err)
	got = append(got, run(restored, r2, 60, 120)...)

	straight2 := New(cluster(t, conf), policy)
	r3 := rand.New(rand.NewPCG(1, 1))
	want := run(straight2, r3, 0, 60)
	require.NoError(t, straight2.SetNodeState("n5", selectnodes.NodeDrain, at(60)))
	want = append(want, run(straight2, r3, 60, 120)...)
	assert.Equal(t, want, got)
	require.NoError(t, restored.Cluster().CheckInvariants())

	var again bytes.Buffer
	require.NoError(t, restored.Snapshot(&again))
	_, err = Restore(bytes.NewReader([]byte(`{"version": 99}`)), cluster(t, conf))
	assert.ErrorContains(t, err, "version 99")
	_, err = Restore(bytes.NewReader([]byte(`{`)), cluster(t, conf))
	assert.Error(t, err)
}
