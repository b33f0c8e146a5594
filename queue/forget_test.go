package queue

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestForgetOnlyFinishedJobs(t *testing.T) {
	s := simple(t)
	run := submit(t, s, nodes(1, time.Hour), at(0))
	wait := submit(t, s, nodes(8, time.Hour), at(0))
	s.Schedule(at(1))
	require.Equal(t, Running, state(t, s, run))
	require.Equal(t, Pending, state(t, s, wait))
	assert.ErrorIs(t, s.Forget(run), ErrJobState)
	assert.ErrorIs(t, s.Forget(wait), ErrJobState)
	assert.ErrorIs(t, s.Forget(99), ErrUnknownJob)

	require.NoError(t, s.Finish(run, Outcome{}, at(10)))
	require.NoError(t, s.Forget(run))
	assert.ErrorIs(t, s.Forget(run), ErrUnknownJob, "forgotten twice")
	_, ok := s.Job(run)
	assert.False(t, ok)
	for _, j := range s.Jobs() {
		assert.NotEqual(t, run, j.ID)
	}
	var buf bytes.Buffer
	require.NoError(t, s.Snapshot(&buf))
	assert.NotContains(t, buf.String(), fmt.Sprintf(`{"id":%d,"name"`, run))
	assert.Contains(t, buf.String(), fmt.Sprintf(`"forgotten":[{"id":%d,"state":"COMPLETE"`, run))
}

// A dependency on a forgotten job resolves as it did on the finished job,
// whether the dependent job was submitted before or after the forgetting.
func TestDependencyOnForgottenJobResolvesAsFinished(t *testing.T) {
	s := simple(t)
	ok := submit(t, s, nodes(1, time.Hour), at(0))
	bad := submit(t, s, nodes(1, time.Hour), at(0))
	early := submit(t, s, Spec{Request: nodes(1, time.Hour).Request, TimeLimit: time.Hour, Dependency: fmt.Sprintf("afterok:%d", ok)}, at(0))
	s.Schedule(at(1))
	require.NoError(t, s.Finish(ok, Outcome{}, at(5)))
	require.NoError(t, s.Finish(bad, Outcome{Kind: Failure, ExitCode: 3}, at(5)))
	require.NoError(t, s.Forget(ok))
	require.NoError(t, s.Forget(bad))

	afterOK := submit(t, s, Spec{Request: nodes(1, time.Hour).Request, TimeLimit: time.Hour, Dependency: fmt.Sprintf("afterok:%d", ok)}, at(6))
	afterBadOK := submit(t, s, Spec{Request: nodes(1, time.Hour).Request, TimeLimit: time.Hour, Dependency: fmt.Sprintf("afterok:%d", bad)}, at(6))
	afterNotOK := submit(t, s, Spec{Request: nodes(1, time.Hour).Request, TimeLimit: time.Hour, Dependency: fmt.Sprintf("afternotok:%d", bad)}, at(6))
	// job ok started at minute 1: after:ok+30 waits until minute 31
	delayed := submit(t, s, Spec{Request: nodes(1, time.Hour).Request, TimeLimit: time.Hour, Dependency: fmt.Sprintf("after:%d+30", ok)}, at(6))
	s.Schedule(at(7))
	assert.Equal(t, Running, state(t, s, early))
	assert.Equal(t, Running, state(t, s, afterOK))
	assert.Equal(t, Running, state(t, s, afterNotOK))
	j, _ := s.Job(afterBadOK)
	assert.Equal(t, ReasonDependencyNeverSatisfied, j.Reason)
	assert.Equal(t, Pending, state(t, s, delayed))
	s.Schedule(at(31))
	assert.Equal(t, Running, state(t, s, delayed))
}

func TestForgottenIDsStayInUse(t *testing.T) {
	s := simple(t)
	a := submit(t, s, nodes(1, time.Hour), at(0))
	require.NoError(t, s.Cancel(a, at(1)))
	require.NoError(t, s.Forget(a))
	_, err := s.Submit(Spec{ID: a, Request: nodes(1, time.Hour).Request}, at(2))
	assert.ErrorIs(t, err, ErrDuplicateID)

	// the counter skips a forgotten ID too (here one a caller chose)
	s2 := simple(t)
	chosen := submit(t, s2, Spec{ID: 2, Request: nodes(1, time.Hour).Request}, at(0))
	require.NoError(t, s2.Cancel(chosen, at(1)))
	require.NoError(t, s2.Forget(chosen))
	first := submit(t, s2, nodes(1, time.Hour), at(2))
	second := submit(t, s2, nodes(1, time.Hour), at(2))
	assert.Equal(t, JobID(1), first)
	assert.Equal(t, JobID(3), second)
}

// A forgotten job leaves the singleton index: a later job of the same
// user and name is not held back by it and the index keeps no pointer.
func TestForgetLeavesTheSingletonIndex(t *testing.T) {
	s := simple(t)
	spec := Spec{Name: "x", User: "u", Request: nodes(1, time.Hour).Request, TimeLimit: time.Hour, Dependency: "singleton"}
	a := submit(t, s, spec, at(0))
	s.Schedule(at(1))
	require.NoError(t, s.Finish(a, Outcome{}, at(2)))
	require.NoError(t, s.Forget(a))
	b := submit(t, s, spec, at(3))
	s.Schedule(at(4))
	assert.Equal(t, Running, state(t, s, b))
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, o := range s.byUserName["u\x00x"] {
		assert.NotEqual(t, a, o.ID)
	}
}

func TestRetentionKeepsTheLastFinished(t *testing.T) {
	s := simple(t, WithRetention(2))
	var ids []JobID
	for range 5 {
		ids = append(ids, submit(t, s, nodes(1, time.Hour), at(0)))
	}
	s.Schedule(at(1))
	for i, id := range ids {
		require.NoError(t, s.Finish(id, Outcome{}, at(10+i)))
	}
	var kept []JobID
	for _, j := range s.Jobs() {
		kept = append(kept, j.ID)
	}
	assert.Equal(t, ids[3:], kept, "the two that ended last")

	// a dependency on a job retention forgot resolves as finished
	dep := submit(t, s, Spec{Request: nodes(1, time.Hour).Request, TimeLimit: time.Hour, Dependency: fmt.Sprintf("afterok:%d", ids[0])}, at(20))
	s.Schedule(at(21))
	assert.Equal(t, Running, state(t, s, dep))
}

func TestForgetFinishedKeepsNone(t *testing.T) {
	s := simple(t, WithForgetFinished())
	var rec recorder
	s.Subscribe(rec.on)
	a := submit(t, s, nodes(1, time.Hour), at(0))
	b := submit(t, s, nodes(1, time.Hour), at(0))
	s.Schedule(at(1))
	require.NoError(t, s.Finish(a, Outcome{}, at(5)))
	require.NoError(t, s.Cancel(b, at(5)))
	assert.Empty(t, s.Jobs())
	assert.Equal(t, fmt.Sprintf("submit:%d submit:%d start:%d start:%d finish:%d cancel:%d", a, b, a, b, a, b), rec.kinds())
	// a job that fails at its first selection is forgotten too
	_, err := s.Submit(Spec{Request: nodes(1, time.Hour).Request, Dependency: fmt.Sprintf("afterok:%d", b)}, at(6))
	require.NoError(t, err)
	s2 := simple(t, WithForgetFinished(), WithCancelNeverSatisfied())
	c := submit(t, s2, nodes(1, time.Hour), at(0))
	require.NoError(t, s2.Cancel(c, at(1)))
	submit(t, s2, Spec{Request: nodes(1, time.Hour).Request, Dependency: fmt.Sprintf("afterok:%d", c)}, at(2))
	s2.Schedule(at(3))
	assert.Empty(t, s2.Jobs(), "cancelled for a dependency never satisfied, then forgotten")
}

func TestRetentionRejectsNegative(t *testing.T) {
	assert.PanicsWithValue(t, "queue.WithRetention: n is -1, want >= 0", func() { WithRetention(-1) })
}

// A state with forgotten jobs restores to a scheduler that saves the same
// bytes and resolves dependencies on them the same way.
func TestRestoreWithForgottenJobs(t *testing.T) {
	conf := "NodeName=n[0-7] CPUs=4\nPartitionName=batch Nodes=ALL Default=YES\n"
	s := New(cluster(t, conf))
	ok := submit(t, s, nodes(1, time.Hour), at(0))
	bad := submit(t, s, nodes(1, time.Hour), at(0))
	s.Schedule(at(1))
	require.NoError(t, s.Finish(ok, Outcome{}, at(5)))
	require.NoError(t, s.Finish(bad, Outcome{ExitCode: 1}, at(5)))
	require.NoError(t, s.Forget(ok))
	require.NoError(t, s.Forget(bad))
	dep := Spec{Request: nodes(1, time.Hour).Request, TimeLimit: time.Hour, Dependency: fmt.Sprintf("afterok:%d", ok)}
	var buf bytes.Buffer
	require.NoError(t, s.Snapshot(&buf))
	r, err := Restore(bytes.NewReader(buf.Bytes()), cluster(t, conf))
	require.NoError(t, err)
	var again bytes.Buffer
	require.NoError(t, r.Snapshot(&again))
	assert.Equal(t, buf.String(), again.String())

	_, err = r.Submit(Spec{ID: ok}, at(6))
	assert.ErrorIs(t, err, ErrDuplicateID)
	id := submit(t, r, dep, at(6))
	assert.Greater(t, id, bad, "the counter skips forgotten IDs")
	never := submit(t, r, Spec{Request: dep.Request, Dependency: fmt.Sprintf("afterok:%d", bad)}, at(6))
	r.Schedule(at(7))
	assert.Equal(t, Running, state(t, r, id))
	j, _ := r.Job(never)
	assert.Equal(t, ReasonDependencyNeverSatisfied, j.Reason)
}

func TestRestoreRefusesBadTombstones(t *testing.T) {
	conf := "NodeName=n[0-3] CPUs=4\nPartitionName=batch Nodes=ALL Default=YES\n"
	base := `{"version":2,"next_id":5,"seq":1,"event_seq":0,"partitions":[{"name":"batch","nodes":["n0","n1","n2","n3"],"default":true,"max_time":"0s","state":"UP","oversubscribe":"NO"}],` +
		`"jobs":[{"id":1,"partition":"batch","priority":1,"time_limit":"1h0m0s","request":{"partition":"batch","min_nodes":1,"time_limit":"1h0m0s"},"state":"COMPLETE","seq":1}]`
	for name, tc := range map[string]struct{ forgotten, path string }{
		"id 0":          {`[{"id":0,"state":"COMPLETE"}]`, "forgotten[0].id"},
		"saved too":     {`[{"id":1,"state":"COMPLETE"}]`, "forgotten[0].id"},
		"twice":         {`[{"id":2,"state":"COMPLETE"},{"id":2,"state":"FAILED"}]`, "forgotten[1].id"},
		"pending":       {`[{"id":2,"state":"PENDING"}]`, "forgotten[0].state"},
		"unknown state": {`[{"id":2,"state":"GONE"}]`, "forgotten[0].state"},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := Restore(strings.NewReader(base+`,"forgotten":`+tc.forgotten+"}"), cluster(t, conf))
			var re *RestoreError
			require.True(t, errors.As(err, &re), "%v", err)
			assert.Equal(t, tc.path, re.Path)
		})
	}
	_, err := Restore(strings.NewReader(base+`,"forgotten":[{"id":2,"state":"TIMEOUT","start":"2026-01-01T00:00:00Z"}]}`), cluster(t, conf))
	assert.NoError(t, err)
}
