package queue

import (
	"bytes"
	"encoding/json"
	"errors"
	"github.com/hpcsched/hpcsched/position"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/hpcsched/hpcsched/selectnodes"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Issue: Update(TimeLimit) on a running job changed Job.End but not the
// allocation's end Backfill plans with, so a job started without a limit
// kept its nodes 100 years in the profile.
func TestUpdateTimeLimitOfRunningJobMovesAllocationEnd(t *testing.T) {
	s := simple(t)
	all := submit(t, s, nodes(8, 0), at(0)) // no limit
	require.Len(t, s.Schedule(at(0)), 1)
	blocked := submit(t, s, nodes(2, time.Hour), at(1))
	require.NoError(t, s.Update(all, Update{TimeLimit: time.Hour}, at(2)))
	_, end, ok := allocationEnd(s, all)
	require.True(t, ok)
	assert.Equal(t, at(60), end)
	_, resv := s.Backfill(at(3))
	require.Len(t, resv, 1)
	assert.Equal(t, blocked, resv[0].Job)
	assert.Equal(t, at(60), resv[0].Start, "planned from the new limit, not 100 years on")
}

// The same for a resume: the time suspended moves the allocation's end.
func TestResumeMovesAllocationEnd(t *testing.T) {
	s := simple(t)
	id := submit(t, s, nodes(1, time.Hour), at(0))
	s.Schedule(at(0))
	require.NoError(t, s.Suspend(id, at(10)))
	require.NoError(t, s.Resume(id, at(30)))
	_, end, _ := allocationEnd(s, id)
	assert.Equal(t, at(80), end)
	j, _ := s.Job(id)
	assert.Equal(t, at(80), j.End)
}

func allocationEnd(s *Scheduler, id JobID) (time.Time, time.Time, bool) {
	_, start, end, ok := s.Cluster().Allocation(id)
	return start, end, ok
}

// Issue: Spec{Priority: MaxInt64, Nice: -1} and Nice: MinInt64 gave
// priority 1.
func TestPriorityArithmeticDoesNotOverflow(t *testing.T) {
	s := simple(t)
	spec := nodes(1, time.Hour)
	spec.Priority, spec.Nice = math.MaxInt64, -1
	j, _ := s.Job(submit(t, s, spec, at(0)))
	assert.Equal(t, int64(math.MaxInt64), j.Priority)
	spec.Nice = -MaxNice
	j, _ = s.Job(submit(t, s, spec, at(0)))
	assert.Equal(t, int64(math.MaxInt64), j.Priority)
	spec.Priority, spec.Nice = 1, MaxNice
	j, _ = s.Job(submit(t, s, spec, at(0)))
	assert.Equal(t, int64(1), j.Priority, "never below 1")
	for _, nice := range []int64{math.MinInt64, math.MaxInt64, MaxNice + 1} {
		spec.Nice = nice
		_, err := s.Submit(spec, at(0))
		assert.ErrorIs(t, err, ErrInvalidSpec, "nice %d", nice)
	}
	assert.Equal(t, int64(math.MaxInt64), effectivePriority(math.MaxInt64, math.MinInt64+1))
	assert.Equal(t, int64(1), effectivePriority(math.MinInt64, 1))
}

// Issue: after:1+200000000 overflowed time.Duration and started at once.
func TestDependencyDelayOverflowIsRejected(t *testing.T) {
	_, err := ParseDependency("after:1+200000000")
	var de *DependencyError
	require.ErrorAs(t, err, &de)
	assert.Equal(t, len("after:1+"), de.Pos.Offset)
	pos, ok := position.Of(err)
	assert.True(t, ok)
	assert.Equal(t, 9, pos.Column)
	s := simple(t)
	submit(t, s, nodes(1, time.Hour), at(0))
	spec := nodes(1, time.Hour)
	spec.Dependency = "after:1+200000000"
	_, err = s.Submit(spec, at(0))
	assert.ErrorIs(t, err, ErrInvalidSpec)
	spec.Dependency = "after:1+52560000" // a century: the most allowed
	_, err = s.Submit(spec, at(0))
	assert.NoError(t, err)
}

// Issue: Submit accepted Begin in year 10000, after which every Snapshot
// failed.
func TestBeginInYear10000IsRejected(t *testing.T) {
	s := simple(t)
	spec := nodes(1, time.Hour)
	spec.Begin = time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)
	_, err := s.Submit(spec, at(0))
	assert.ErrorIs(t, err, ErrTime)
	far := time.Date(MaxBeginYear, 12, 31, 0, 0, 0, 0, time.UTC)
	id := submit(t, s, nodes(1, time.Hour), at(0))
	assert.ErrorIs(t, s.Update(id, Update{Begin: &spec.Begin}, at(0)), ErrTime)
	require.NoError(t, s.Update(id, Update{Begin: &far}, at(0)))
	var buf bytes.Buffer
	require.NoError(t, s.Snapshot(&buf))
}

// Issue: a reservation outlived Cancel or a start until the next
// Backfill, and Restore then rejected the scheduler's own snapshot.
func TestReservationEndsWithCancelStartAndHold(t *testing.T) {
	for _, op := range []string{"cancel", "start", "hold"} {
		t.Run(op, func(t *testing.T) {
			s := simple(t)
			submit(t, s, nodes(8, time.Hour), at(0))
			s.Schedule(at(0))
			blocked := submit(t, s, nodes(4, time.Hour), at(1))
			_, resv := s.Backfill(at(1))
			require.Len(t, resv, 1)
			switch op {
			case "cancel":
				require.NoError(t, s.Cancel(blocked, at(2)))
			case "start":
				require.NoError(t, s.Finish(1, Outcome{}, at(2)))
				require.NoError(t, s.Start(blocked, nil, at(2)))
			case "hold":
				require.NoError(t, s.Hold(blocked, at(2)))
			}
			assert.Empty(t, s.Reservations())
			restoreFrom(t, s, "NodeName=n[0-7] CPUs=4\nPartitionName=batch Nodes=ALL Default=YES\n")
		})
	}
}

// Issue: Restore re-allocated running jobs in ID order, not start order,
// so a shared job beside a batch job on a FORCE:2 + NO node failed.
func TestRestoreReplaysAllocationsInStartOrder(t *testing.T) {
	conf := "SelectType=select/cons_res\nNodeName=n0 CPUs=4\n" +
		"PartitionName=shared Nodes=n0 Default=YES OverSubscribe=FORCE:2\nPartitionName=plain Nodes=n0\n"
	s := New(cluster(t, conf))
	shared := Spec{Request: selectnodes.Request{CPUs: 4}, TimeLimit: time.Hour, Hold: true}
	a := submit(t, s, shared, at(0))
	b := submit(t, s, Spec{Request: selectnodes.Request{CPUs: 4, Partition: "plain"}, TimeLimit: time.Hour}, at(0))
	require.Len(t, s.Schedule(at(0)), 1)
	require.NoError(t, s.Release(a, at(1)))
	require.Len(t, s.Schedule(at(1)), 1)
	assert.Equal(t, Running, state(t, s, a))
	assert.Equal(t, Running, state(t, s, b))
	r := restoreFrom(t, s, conf)
	require.NoError(t, r.Cluster().CheckInvariants())
}

// Issue: Restore trusted its input. Every malformed state is refused with
// where it is, and the cluster is left as it was.
func TestRestoreValidatesBeforeChangingTheCluster(t *testing.T) {
	conf := "NodeName=n[0-3] CPUs=4\nPartitionName=batch Nodes=ALL Default=YES\nPartitionName=other Nodes=n[0-1]\n"
	s := New(cluster(t, conf))
	run := submit(t, s, nodes(2, time.Hour), at(0))
	s.Schedule(at(0))
	submit(t, s, nodes(4, time.Hour), at(1))
	s.Backfill(at(1))
	require.NoError(t, s.SetNodeState("n3", selectnodes.NodeDrain, at(1)))
	var buf bytes.Buffer
	require.NoError(t, s.Snapshot(&buf))
	good := buf.String()
	_ = run
	cases := []struct {
		name, path string
		edit       func(m map[string]any)
	}{
		{"next_id 0", "next_id", func(m map[string]any) { m["next_id"] = 0 }},
		{"unknown job state", "jobs[0].state", func(m map[string]any) { savedJob(m, 0)["state"] = "STATE200" }},
		{"unknown partition", "jobs[1].partition", func(m map[string]any) { savedJob(m, 1)["partition"] = "nope" }},
		{"job ID 0", "jobs[0].id", func(m map[string]any) { savedJob(m, 0)["id"] = 0 }},
		{"job given twice", "jobs[1].id", func(m map[string]any) { savedJob(m, 1)["id"] = 1 }},
		{"running without placement", "jobs[0].placement", func(m map[string]any) { delete(savedJob(m, 0), "placement") }},
		{"unknown node in placement", "jobs[0].placement.alloc[0].node", func(m map[string]any) {
			savedJob(m, 0)["placement"].(map[string]any)["alloc"].([]any)[0].(map[string]any)["node"] = "x9"
		}},
		{"reservation for a running job", "reservations[0].job", func(m map[string]any) {
			m["reservations"].([]any)[0].(map[string]any)["job"] = 1
		}},
		{"unknown node state", "nodes[0].state", func(m map[string]any) { m["nodes"].([]any)[0].(map[string]any)["state"] = "ON_FIRE" }},
		{"bad constraint", "jobs[1].request.constraint", func(m map[string]any) { savedJob(m, 1)["request"].(map[string]any)["constraint"] = "a&&b" }},
		{"seq above the counter", "jobs[1].seq", func(m map[string]any) { savedJob(m, 1)["seq"] = 99 }},
		{"unknown field", "", func(m map[string]any) { m["surprise"] = true }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var m map[string]any
			require.NoError(t, json.Unmarshal([]byte(good), &m))
			tc.edit(m)
			data, _ := json.Marshal(m)
			c := cluster(t, conf)
			_, err := Restore(bytes.NewReader(data), c)
			var re *RestoreError
			require.ErrorAs(t, err, &re)
			if tc.path != "" {
				assert.Equal(t, tc.path, re.Path, err.Error())
			}
			assert.Empty(t, c.Running(), "nothing allocated")
			assert.Equal(t, selectnodes.NodeUp, c.Node(3).State, "node states untouched")
		})
	}
	for _, bad := range []string{good[:40], `{"version": 2, x}`} {
		_, err := Restore(strings.NewReader(bad), cluster(t, conf))
		var re *RestoreError
		require.ErrorAs(t, err, &re)
		assert.Positive(t, re.Offset, "a syntax error has its offset: %v", err)
	}
}

// A placement that does not fit the cluster (it changed since the state
// was saved) is refused after the partitions and node states were set,
// which are then put back.
func TestRestoreUndoesTheClusterWhenPlacementsDoNotFit(t *testing.T) {
	conf := "NodeName=n[0-3] CPUs=4\nPartitionName=batch Nodes=ALL Default=YES\n"
	s := New(cluster(t, conf))
	submit(t, s, nodes(2, time.Hour), at(0))
	submit(t, s, nodes(2, time.Hour), at(0))
	s.Schedule(at(0))
	require.NoError(t, s.SetNodeState("n3", selectnodes.NodeDrain, at(1)))
	var buf bytes.Buffer
	require.NoError(t, s.Snapshot(&buf))
	var m map[string]any
	require.NoError(t, json.Unmarshal(buf.Bytes(), &m))
	savedJob(m, 1)["placement"] = savedJob(m, 0)["placement"] // two jobs on the same whole nodes
	data, _ := json.Marshal(m)
	c := cluster(t, conf)
	_, err := Restore(bytes.NewReader(data), c)
	var re *RestoreError
	require.ErrorAs(t, err, &re)
	assert.Equal(t, "jobs[id=2].placement", re.Path)
	assert.Empty(t, c.Running())
	assert.Equal(t, selectnodes.NodeUp, c.Node(3).State)
}

func savedJob(m map[string]any, i int) map[string]any { return m["jobs"].([]any)[i].(map[string]any) }

// Issue: next_id below an existing ID made the next Submit reuse it.
func TestNextIDBelowAnExistingIDIsSkipped(t *testing.T) {
	conf := "NodeName=n[0-3] CPUs=4\nPartitionName=batch Nodes=ALL Default=YES\n"
	s := New(cluster(t, conf))
	for range 3 {
		submit(t, s, nodes(1, time.Hour), at(0))
	}
	var buf bytes.Buffer
	require.NoError(t, s.Snapshot(&buf))
	text := strings.Replace(buf.String(), `"next_id":4`, `"next_id":2`, 1)
	r, err := Restore(strings.NewReader(text), cluster(t, conf))
	require.NoError(t, err)
	id := submit(t, r, nodes(1, time.Hour), at(1))
	assert.Equal(t, JobID(4), id)
	assert.Len(t, r.Jobs(), 4)
}

// Issue: one panicking event subscriber stopped every later delivery.
func TestPanickingSubscriberDoesNotStopDelivery(t *testing.T) {
	var caught []any
	s := simple(t, WithPanicHandler(func(r any, e Event) { caught = append(caught, r) }))
	s.Subscribe(func(e Event) { panic("boom") })
	var rec recorder
	s.Subscribe(rec.on)
	submit(t, s, nodes(1, time.Hour), at(0))
	submit(t, s, nodes(1, time.Hour), at(0))
	s.Schedule(at(1))
	assert.Equal(t, "submit:1 submit:2 start:1 start:2", rec.kinds())
	assert.Len(t, caught, 4)
	// delivery is not wedged: a later change still arrives
	require.NoError(t, s.Cancel(1, at(2)))
	assert.Len(t, rec.events, 5)
}

// Every error a caller may branch on matches a sentinel.
func TestErrorsAreTyped(t *testing.T) {
	s := simple(t)
	id := submit(t, s, nodes(1, time.Hour), at(0))
	cases := []struct {
		err  error
		want error
	}{
		{s.Cancel(99, at(0)), ErrUnknownJob},
		{s.Resume(id, at(0)), ErrJobState},
		{func() error { _, err := s.Submit(Spec{ID: id}, at(0)); return err }(), ErrDuplicateID},
		{func() error { _, err := s.Submit(Spec{Dependency: "afterok:x"}, at(0)); return err }(), ErrInvalidSpec},
		{func() error { _, err := s.Submit(Spec{Dependency: "afterok:77"}, at(0)); return err }(), ErrInvalidSpec},
		{func() error {
			_, err := s.Submit(Spec{Request: selectnodes.Request{MinNodes: 9}}, at(0))
			return err
		}(), ErrInvalidSpec},
		{s.Update(id, Update{Dependency: ptr("afterany:1")}, at(0)), ErrInvalidSpec},
		{s.Start(id, []string{"nope"}, at(0)), ErrInvalidSpec},
	}
	for i, tc := range cases {
		assert.ErrorIs(t, tc.err, tc.want, "case %d: %v", i, tc.err)
	}
	_, err := s.Submit(Spec{Request: selectnodes.Request{MinNodes: 9}}, at(0))
	assert.ErrorIs(t, err, selectnodes.ErrNodeConfig, "the selection class is kept")
	assert.False(t, errors.Is(err, ErrUnknownJob))
}

func ptr[T any](v T) *T { return &v }

func TestTimeMinIsCheckedAndSaved(t *testing.T) {
	s := simple(t)
	spec := nodes(1, time.Hour)
	spec.TimeMin = 2 * time.Hour
	_, err := s.Submit(spec, at(0))
	assert.ErrorIs(t, err, ErrInvalidSpec, "time-min above the limit")
	spec.TimeMin = 30 * time.Minute
	id := submit(t, s, spec, at(0))
	r := restoreFrom(t, s, "NodeName=n[0-7] CPUs=4\nPartitionName=batch Nodes=ALL Default=YES\n")
	j, _ := r.Job(id)
	assert.Equal(t, 30*time.Minute, j.TimeMin)
}

// Partition access and the job's identity survive a snapshot.
func TestAccessSurvivesRestore(t *testing.T) {
	conf := "NodeName=n[0-3] CPUs=4\nPartitionName=open Nodes=ALL Default=YES\n" +
		"PartitionName=bio Nodes=n[0-1] AllowGroups=bio AllowQOS=high MaxMemPerNode=100 Hidden=YES\n"
	s := New(cluster(t, conf))
	_, err := s.Submit(Spec{Request: selectnodes.Request{Partition: "bio"}, TimeLimit: time.Hour}, at(0))
	assert.ErrorIs(t, err, ErrInvalidSpec, "an anonymous job may not use bio")
	submit(t, s, Spec{Request: selectnodes.Request{Partition: "bio", Groups: []string{"bio"}, QOS: "high", User: "ada", Account: "a"}, TimeLimit: time.Hour}, at(0))
	r := restoreFrom(t, s, conf)
	p, _ := r.Cluster().Partition("bio")
	assert.Equal(t, []string{"bio"}, p.Access.AllowGroups)
	assert.True(t, p.Hidden)
	assert.Equal(t, int64(100), p.MaxMemPerNode)
}
