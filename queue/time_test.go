package queue

import (
	"bytes"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/hpcsched/hpcsched/selectnodes"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A call whose now precedes the job's own submit, start or suspension is
// refused with ErrTime and changes nothing.
func TestCallsBeforeTheJobsOwnTimesAreRefused(t *testing.T) {
	for name, tc := range map[string]struct {
		setup func(s *Scheduler, id JobID) // from submit at minute 100
		call  func(s *Scheduler, id JobID) error
		state State
	}{
		"finish before start": {func(s *Scheduler, id JobID) { s.Schedule(at(110)) },
			func(s *Scheduler, id JobID) error { return s.Finish(id, Outcome{}, at(105)) }, Running},
		"requeue before start": {func(s *Scheduler, id JobID) { s.Schedule(at(110)) },
			func(s *Scheduler, id JobID) error { return s.Requeue(id, at(105)) }, Running},
		"suspend before start": {func(s *Scheduler, id JobID) { s.Schedule(at(110)) },
			func(s *Scheduler, id JobID) error { return s.Suspend(id, at(105)) }, Running},
		"resume before suspend": {func(s *Scheduler, id JobID) {
			s.Schedule(at(110))
			_ = s.Suspend(id, at(200))
		}, func(s *Scheduler, id JobID) error { return s.Resume(id, at(150)) }, Suspended},
		"finish before suspend": {func(s *Scheduler, id JobID) {
			s.Schedule(at(110))
			_ = s.Suspend(id, at(200))
		}, func(s *Scheduler, id JobID) error { return s.Finish(id, Outcome{}, at(150)) }, Suspended},
		"cancel before submit": {func(*Scheduler, JobID) {},
			func(s *Scheduler, id JobID) error { return s.Cancel(id, at(50)) }, Pending},
		"hold before submit": {func(*Scheduler, JobID) {},
			func(s *Scheduler, id JobID) error { return s.Hold(id, at(50)) }, Pending},
		"update before submit": {func(*Scheduler, JobID) {},
			func(s *Scheduler, id JobID) error { return s.Update(id, Update{TimeLimit: time.Minute}, at(50)) }, Pending},
		"start before submit": {func(*Scheduler, JobID) {},
			func(s *Scheduler, id JobID) error { return s.Start(id, nil, at(50)) }, Pending},
		"node down before start": {func(s *Scheduler, id JobID) { s.Schedule(at(110)) },
			func(s *Scheduler, id JobID) error { return s.SetNodeState("n0", selectnodes.NodeDown, at(105)) }, Running},
		"zero time": {func(*Scheduler, JobID) {},
			func(s *Scheduler, id JobID) error { return s.Cancel(id, time.Time{}) }, Pending},
	} {
		t.Run(name, func(t *testing.T) {
			s := simple(t)
			id := submit(t, s, nodes(8, time.Hour), at(100))
			tc.setup(s, id)
			before, _ := s.Job(id)
			err := tc.call(s, id)
			require.ErrorIs(t, err, ErrTime)
			for _, other := range []error{ErrInvalidSpec, ErrJobState, ErrUnknownJob, ErrLimit} {
				assert.NotErrorIs(t, err, other, "one sentinel")
			}
			after, _ := s.Job(id)
			assert.Equal(t, tc.state, after.State)
			assert.Equal(t, before, after)
			require.NoError(t, s.Cluster().CheckInvariants())
		})
	}
}

// A pass given a now earlier than the latest the scheduler has seen acts
// at the latest: no job starts before it was submitted.
func TestPassesNeverActBeforeTheLatestTime(t *testing.T) {
	s := simple(t)
	id := submit(t, s, nodes(1, time.Hour), at(100))
	started := s.Schedule(at(40))
	require.Len(t, started, 1)
	j, _ := s.Job(id)
	assert.Equal(t, at(100), j.Start, "started at the latest time seen, not before its submission")

	b := submit(t, s, nodes(8, time.Hour), at(120))
	_, res := s.Backfill(at(60))
	require.Len(t, res, 1)
	assert.Equal(t, b, res[0].Job)
	assert.False(t, res[0].Start.Before(at(120)), "a reservation is never in the past")
	assert.Empty(t, s.Tick(at(10)), "the running job's hour has not passed at the latest time")
	assert.Equal(t, []JobID{id}, s.Tick(at(160)))
}

// Times outside the years an int64 of nanoseconds holds are refused: by
// Submit with ErrTime, by the passes (which return no error) by doing
// nothing. Inside them, long time limits near the end saturate rather
// than wrap.
func TestTimesOutsideTheRepresentableYears(t *testing.T) {
	s := simple(t)
	for _, now := range []time.Time{{}, time.Date(1677, 1, 1, 0, 0, 0, 0, time.UTC),
		time.Date(2262, 6, 1, 0, 0, 0, 0, time.UTC), time.Date(10001, 1, 1, 0, 0, 0, 0, time.UTC)} {
		_, err := s.Submit(nodes(1, time.Hour), now)
		assert.ErrorIs(t, err, ErrTime, now)
		assert.ErrorIs(t, CheckTime(now), ErrTime)
	}
	late := time.Date(2262, 3, 1, 0, 0, 0, 0, time.UTC)
	id := submit(t, s, nodes(8, time.Hour), at(0))
	submit(t, s, nodes(8, time.Hour), at(0))
	assert.Empty(t, s.Schedule(late))
	started, _ := s.Backfill(late) // used to panic in the profile
	assert.Empty(t, started)
	assert.Empty(t, s.Tick(late))
	assert.Equal(t, Pending, state(t, s, id))
	_, _, err := s.WillRun(id, late)
	assert.ErrorIs(t, err, ErrTime)
	assert.ErrorIs(t, s.UpdatePartition(selectnodes.Partition{Name: "x"}, late), ErrTime)
}

// In 2200 a job without a time limit is planned to end a century later,
// past what an int64 of nanoseconds holds: the end saturates, so Backfill
// does not plan another job onto its nodes a minute later.
func TestBackfillNearTheEndOfRepresentableTime(t *testing.T) {
	for _, year := range []int{2200, MaxYear} {
		now := time.Date(year, 12, 30, 0, 0, 0, 0, time.UTC)
		s := simple(t)
		a := submit(t, s, nodes(8, 0), now) // no limit: runs for ever
		s.Schedule(now)
		require.Equal(t, Running, state(t, s, a))
		b := submit(t, s, nodes(1, time.Hour), now)
		started, res := s.Backfill(now.Add(time.Minute))
		assert.Empty(t, started)
		assert.Empty(t, res, "year %d: no node is free within the window", year)
		j, _ := s.Job(b)
		assert.Equal(t, ReasonResources, j.Reason)
		var buf bytes.Buffer
		require.NoError(t, s.Snapshot(&buf))
		_, err := Restore(bytes.NewReader(buf.Bytes()), cluster(t, "NodeName=n[0-7] CPUs=4\nPartitionName=batch Nodes=ALL Default=YES\n"))
		require.NoError(t, err, "year %d: a snapshot Restore refuses", year)
	}
}

// A saved state holds its times to the same years: a reservation in year
// 9999 or a job submitted in year 1 is a *RestoreError, not a panic in a
// later Backfill.
func TestRestoreRefusesTimesOutsideTheYears(t *testing.T) {
	conf := "NodeName=n[0-3] CPUs=4\nPartitionName=batch Nodes=ALL Default=YES\n"
	part := `"partitions":[{"name":"batch","nodes":["n0","n1","n2","n3"],"default":true,"max_time":"0s","state":"UP","oversubscribe":"NO"}]`
	job := func(submit string) string {
		return `{"id":1,"partition":"batch","priority":1,"time_limit":"1h0m0s","submit":"` + submit +
			`","request":{"partition":"batch","min_nodes":1,"time_limit":"1h0m0s"},"state":"PENDING","seq":1}`
	}
	for name, tc := range map[string]struct{ doc, path string }{
		"reservation in 9999": {`{"version":2,"next_id":2,"seq":1,"event_seq":0,` + part + `,"jobs":[` + job("2026-01-01T00:00:00Z") +
			`],"reservations":[{"job":1,"start":"9999-01-01T00:00:00Z","end":"9999-01-01T01:00:00Z","nodes":["n0"]}]}`, "reservations[0].start"},
		"submit in year 1": {`{"version":2,"next_id":2,"seq":1,"event_seq":0,` + part + `,"jobs":[` + job("0001-01-01T00:00:00Z") + `]}`, "jobs[0].submit"},
		"clock in 2300":    {`{"version":2,"next_id":2,"seq":1,"event_seq":0,"clock":"2300-01-01T00:00:00Z",` + part + `,"jobs":[]}`, "clock"},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := Restore(strings.NewReader(tc.doc), cluster(t, conf))
			var re *RestoreError
			require.True(t, errors.As(err, &re), "%v", err)
			assert.Equal(t, tc.path, re.Path)
		})
	}
}
