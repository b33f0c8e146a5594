package queue

import (
	"errors"
	"testing"
	"time"

	"github.com/hpcsched/hpcsched/selectnodes"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestLifecycle(t *testing.T) {
	s := simple(t)
	var rec recorder
	s.Subscribe(rec.on)
	a := submit(t, s, nodes(4, time.Hour), at(0))
	b := submit(t, s, nodes(4, 30*time.Minute), at(0))
	c := submit(t, s, nodes(2, time.Hour), at(0))
	started := s.Schedule(at(1))
	require.Len(t, started, 2)
	assert.Equal(t, Running, state(t, s, a))
	assert.Equal(t, Running, state(t, s, b))
	j, _ := s.Job(c)
	assert.Equal(t, Pending, j.State)
	assert.Equal(t, ReasonResources, j.Reason)
	require.NoError(t, s.Finish(a, Outcome{Kind: Completed}, at(10)))
	require.NoError(t, s.Finish(b, Outcome{Kind: Failure, ExitCode: 3}, at(11)))
	s.Schedule(at(12))
	assert.Equal(t, Running, state(t, s, c))
	assert.Equal(t, []JobID{c}, s.Tick(at(12+60)))
	assert.Equal(t, Timeout, state(t, s, c))
	j, _ = s.Job(b)
	assert.Equal(t, Failed, j.State)
	assert.Equal(t, 3, j.ExitCode)
	assert.Equal(t, "submit:1 submit:2 submit:3 start:1 start:2 finish:1 finish:2 start:3 finish:3", rec.kinds())
	for i, e := range rec.events {
		assert.Equal(t, uint64(i+1), e.Seq)
	}
	assert.ErrorIs(t, s.Finish(a, Outcome{}, at(80)), ErrJobState)
	assert.ErrorIs(t, s.Cancel(99, at(80)), ErrUnknownJob)
	require.NoError(t, s.Cluster().CheckInvariants())
}

func TestSubmitRejects(t *testing.T) {
	s := simple(t)
	_, err := s.Submit(nodes(9, 0), at(0))
	require.ErrorIs(t, err, selectnodes.ErrNodeConfig)
	var e *selectnodes.Error
	require.ErrorAs(t, err, &e)
	assert.NotNil(t, e.Explanation)
	_, err = s.Submit(Spec{Request: selectnodes.Request{Partition: "nope"}}, at(0))
	assert.ErrorIs(t, err, selectnodes.ErrInvalidRequest)
	_, err = s.Submit(Spec{Request: selectnodes.Request{Features: expr(t, "gpu")}}, at(0))
	assert.ErrorIs(t, err, selectnodes.ErrNodeConfig)
	_, err = s.Submit(Spec{Dependency: "afterok:7"}, at(0))
	assert.ErrorContains(t, err, "unknown job 7")
	_, err = s.Submit(Spec{Dependency: "afterok:1"}, at(0))
	assert.ErrorContains(t, err, "depend on itself")
	_, err = s.Submit(Spec{Dependency: "afterok:1,afterany:2?after:3"}, at(0))
	var de *DependencyError
	assert.ErrorAs(t, err, &de)
	// a job the partition's limits block is accepted and waits
	s2 := New(cluster(t, "NodeName=n[0-3]\nPartitionName=p Nodes=ALL Default=YES MaxNodes=2\n"))
	id := submit(t, s2, nodes(3, 0), at(0))
	s2.Schedule(at(1))
	j, _ := s2.Job(id)
	assert.Equal(t, Pending, j.State)
	assert.Equal(t, ReasonPartitionNodeLimit, j.Reason)
}

// Seed 000 §3.2.1: a busy job locks its partition, and the partition's
// nodes are withheld from later jobs of overlapping partitions.
func TestPartitionLocking(t *testing.T) {
	s := New(cluster(t, `
NodeName=n[0-5]
PartitionName=high Nodes=n[0-3] Priority=10
PartitionName=low Nodes=n[2-5] Priority=1 Default=YES
`))
	blocker := submit(t, s, Spec{Request: selectnodes.Request{Partition: "high", MinNodes: 1}, TimeLimit: time.Hour}, at(0))
	s.Schedule(at(0))
	require.Equal(t, Running, state(t, s, blocker))
	bigHigh := submit(t, s, Spec{Request: selectnodes.Request{Partition: "high", MinNodes: 4}}, at(1))
	smallHigh := submit(t, s, Spec{Request: selectnodes.Request{Partition: "high", MinNodes: 1}}, at(1))
	lowJob := submit(t, s, Spec{Request: selectnodes.Request{Partition: "low", MinNodes: 2}}, at(1))
	lowTooBig := submit(t, s, Spec{Request: selectnodes.Request{Partition: "low", MinNodes: 3}}, at(1))
	started := s.Schedule(at(2))
	require.Len(t, started, 1)
	assert.Equal(t, lowJob, started[0].Job)
	assert.Equal(t, "n[4-5]", started[0].Nodes, "n2 and n3 are withheld for the locked partition")
	j, _ := s.Job(smallHigh)
	assert.Equal(t, ReasonPriority, j.Reason, "behind the locked partition's head")
	j, _ = s.Job(bigHigh)
	assert.Equal(t, ReasonResources, j.Reason)
	j, _ = s.Job(lowTooBig)
	assert.Equal(t, Pending, j.State)
	assert.Equal(t, ReasonNodesUnavailable, j.Reason)
}

func TestPolicies(t *testing.T) {
	order := func(p Policy) []JobID {
		s := simple(t, WithPolicy(p))
		blocker := submit(t, s, nodes(8, time.Hour), at(0))
		s.Schedule(at(0))
		submit(t, s, nodes(8, 3*time.Hour), at(1))
		submit(t, s, nodes(8, time.Hour), at(2))
		submit(t, s, nodes(8, 2*time.Hour), at(3))
		submit(t, s, nodes(8, 0), at(4)) // no limit
		var ids []JobID
		now := at(10)
		require.NoError(t, s.Finish(blocker, Outcome{}, now))
		for len(s.Pending()) > 0 {
			st := s.Schedule(now)
			require.Len(t, st, 1)
			ids = append(ids, st[0].Job)
			now = now.Add(time.Minute)
			require.NoError(t, s.Finish(st[0].Job, Outcome{}, now))
		}
		return ids
	}
	assert.Equal(t, []JobID{2, 3, 4, 5}, order(FCFS{}))
	assert.Equal(t, []JobID{3, 4, 2, 5}, order(SJF{}))
	assert.Equal(t, []JobID{5, 2, 4, 3}, order(LJF{}))
}

func TestMultifactorAndPriorityEvents(t *testing.T) {
	site := map[string]float64{"alice": 1, "bob": 0}
	p := Multifactor{Age: 1000, Site: 10000, MaxAge: time.Hour, SiteFactor: func(j *Job, _ time.Time) float64 { return site[j.User] }}
	s := simple(t, WithPolicy(p), WithRecalcInterval(time.Minute))
	var rec recorder
	s.Subscribe(rec.on)
	blocker := submit(t, s, nodes(8, time.Hour), at(0))
	s.Schedule(at(0))
	bob := submit(t, s, Spec{User: "bob", Request: selectnodes.Request{MinNodes: 8}}, at(0))
	alice := submit(t, s, Spec{User: "alice", Request: selectnodes.Request{MinNodes: 8}}, at(30))
	jb, _ := s.Job(bob)
	ja, _ := s.Job(alice)
	assert.Greater(t, ja.Priority, jb.Priority, "the site factor outweighs bob's age")
	s.Schedule(at(40))
	assert.Contains(t, rec.kinds(), "priority:", "age moves priorities")
	require.NoError(t, s.Finish(blocker, Outcome{}, at(45)))
	st := s.Schedule(at(45))
	require.Len(t, st, 1)
	assert.Equal(t, alice, st[0].Job)
	// an administrator's priority wins, and -1 hands it back
	require.NoError(t, s.Update(bob, Update{Priority: 1 << 40}, at(46)))
	jb, _ = s.Job(bob)
	assert.Equal(t, int64(1<<40), jb.Priority)
	require.NoError(t, s.Update(bob, Update{Priority: -1}, at(47)))
	jb, _ = s.Job(bob)
	assert.Less(t, jb.Priority, int64(1<<40))
}

func TestDependencies(t *testing.T) {
	s := simple(t)
	a := submit(t, s, nodes(1, time.Hour), at(0))
	b := submit(t, s, nodes(1, time.Hour), at(0))
	tests := []struct {
		spec string
		id   JobID
	}{
		{"afterok:1", 0}, {"afternotok:1", 0}, {"afterany:1:2", 0}, {"after:1+10", 0},
		{"1", 0}, {"afterok:1?afterok:2", 0}, {"afterok:1,afternotok:2", 0}, {"singleton", 0},
	}
	for i := range tests {
		spec := nodes(1, time.Hour)
		spec.Name = "dependent"
		spec.Dependency = tests[i].spec
		tests[i].id = submit(t, s, spec, at(0))
	}
	s.Schedule(at(1))
	reason := func(id JobID) Reason { j, _ := s.Job(id); return j.Reason }
	for _, tt := range tests[:7] {
		assert.Equal(t, ReasonDependency, reason(tt.id), tt.spec)
	}
	assert.Equal(t, Running, state(t, s, tests[7].id), "singleton: no other dependent job of u runs yet")
	// a and b run (started at 1); after:1+10 waits ten minutes from a's start
	s.Schedule(at(5))
	assert.Equal(t, ReasonDependency, reason(tests[3].id))
	s.Schedule(at(11))
	assert.Equal(t, Running, state(t, s, tests[3].id))
	require.NoError(t, s.Finish(a, Outcome{}, at(20)))                           // a ok
	require.NoError(t, s.Finish(b, Outcome{Kind: Failure, ExitCode: 1}, at(21))) // b not ok
	s.Schedule(at(22))
	assert.Equal(t, Running, state(t, s, tests[0].id), "afterok:1")
	assert.Equal(t, ReasonDependencyNeverSatisfied, reason(tests[1].id), "afternotok:1 after 1 succeeded")
	assert.Equal(t, Running, state(t, s, tests[2].id), "afterany:1:2")
	assert.Equal(t, Running, state(t, s, tests[4].id), "bare ID = afterany")
	assert.Equal(t, Running, state(t, s, tests[5].id), "afterok:1?afterok:2: one is enough")
	assert.Equal(t, Running, state(t, s, tests[6].id), "afterok:1,afternotok:2")

	// the option cancels never-satisfiable jobs
	s2 := simple(t, WithCancelNeverSatisfied())
	x := submit(t, s2, nodes(1, 0), at(0))
	spec := nodes(1, 0)
	spec.Dependency = "afterok:1"
	y := submit(t, s2, spec, at(0))
	require.NoError(t, s2.Cancel(x, at(1)))
	s2.Schedule(at(2))
	assert.Equal(t, Cancelled, state(t, s2, y))
}

func TestSingletonAndCycles(t *testing.T) {
	s := simple(t)
	one := Spec{Name: "nightly", User: "u", Dependency: "singleton", Request: selectnodes.Request{MinNodes: 1}}
	first := submit(t, s, one, at(0))
	second := submit(t, s, one, at(0))
	s.Schedule(at(1))
	assert.Equal(t, Running, state(t, s, first))
	j, _ := s.Job(second)
	assert.Equal(t, ReasonDependency, j.Reason)
	require.NoError(t, s.Finish(first, Outcome{}, at(2)))
	s.Schedule(at(3))
	assert.Equal(t, Running, state(t, s, second))

	a := submit(t, s, nodes(1, 0), at(4))
	spec := nodes(1, 0)
	spec.Dependency = "afterany:3"
	b := submit(t, s, spec, at(4))
	dep := "afterok:4"
	err := s.Update(a, Update{Dependency: &dep}, at(5))
	assert.ErrorContains(t, err, "circular")
	_ = b
}

func TestHoldSuspendRequeue(t *testing.T) {
	s := simple(t)
	var rec recorder
	s.Subscribe(rec.on)
	spec := nodes(8, time.Hour)
	spec.Requeue = true
	a := submit(t, s, spec, at(0))
	require.NoError(t, s.Hold(a, at(0)))
	assert.ErrorIs(t, s.Hold(a, at(0)), ErrJobState)
	assert.Empty(t, s.Schedule(at(1)))
	j, _ := s.Job(a)
	assert.Equal(t, ReasonHeld, j.Reason)
	require.NoError(t, s.Release(a, at(2)))
	require.Len(t, s.Schedule(at(3)), 1)
	require.NoError(t, s.Suspend(a, at(10)))
	require.NoError(t, s.Resume(a, at(20)))
	j, _ = s.Job(a)
	assert.Equal(t, at(3+60+10), j.End, "ten suspended minutes extend the limit")
	assert.Empty(t, s.Tick(at(3+60+5)))
	require.NoError(t, s.SetNodeState("n3", selectnodes.NodeDown, at(30)))
	j, _ = s.Job(a)
	assert.Equal(t, Pending, j.State, "requeued after its node went down")
	assert.Equal(t, 1, j.Restarts)
	_, err := s.Submit(nodes(8, 0), at(31))
	assert.NoError(t, err, "a down node does not make the job unrunnable for ever")
	require.NoError(t, s.SetNodeState("n3", selectnodes.NodeUp, at(40)))
	assert.Equal(t, "submit:1 hold:1 release:1 start:1 suspend:1 resume:1 node_down requeue:1 submit:2 node_resume", rec.kinds())
	require.NoError(t, s.Cancel(a, at(41)))
	assert.Equal(t, Cancelled, state(t, s, a))
	require.NoError(t, s.Cluster().CheckInvariants())
}

func TestNodeFailureWithoutRequeue(t *testing.T) {
	s := simple(t)
	a := submit(t, s, nodes(2, time.Hour), at(0))
	s.Schedule(at(0))
	j, _ := s.Job(a)
	require.NoError(t, s.SetNodeState(j.Placement.Names[0], selectnodes.NodeDown, at(5)))
	assert.Equal(t, NodeFail, state(t, s, a))
	b := submit(t, s, nodes(1, time.Hour), at(6))
	s.Schedule(at(6))
	require.NoError(t, s.Finish(b, Outcome{Kind: NodeFailure}, at(7)))
	assert.Equal(t, NodeFail, state(t, s, b))
}

func TestUpdate(t *testing.T) {
	s := New(cluster(t, "NodeName=n[0-3]\nPartitionName=a Nodes=ALL Default=YES MaxTime=60\nPartitionName=b Nodes=n[0-1]\n"))
	id := submit(t, s, nodes(1, 0), at(0))
	j, _ := s.Job(id)
	assert.Equal(t, time.Hour, j.TimeLimit, "the partition's MaxTime")
	require.NoError(t, s.Update(id, Update{Partition: "b"}, at(1)))
	j, _ = s.Job(id)
	assert.Equal(t, "b", j.Partition)
	req := selectnodes.Request{MinNodes: 3}
	err := s.Update(id, Update{Request: &req}, at(2))
	assert.ErrorIs(t, err, selectnodes.ErrNodeConfig, "b has two nodes")
	s.Schedule(at(3))
	err = s.Update(id, Update{Partition: "a"}, at(4))
	assert.ErrorIs(t, err, ErrJobState)
	require.NoError(t, s.Update(id, Update{TimeLimit: 2 * time.Hour}, at(4)))
	j, _ = s.Job(id)
	assert.Equal(t, at(3+120), j.End)
}

func TestExternalScheduler(t *testing.T) {
	s := simple(t, WithExternalScheduler())
	var rec recorder
	s.Subscribe(rec.on)
	a := submit(t, s, nodes(2, time.Hour), at(0))
	b := submit(t, s, nodes(8, time.Hour), at(0))
	assert.Empty(t, s.Schedule(at(1)), "held on submit")
	j, _ := s.Job(a)
	assert.Equal(t, ReasonExternal, j.Reason)
	require.NoError(t, s.Start(a, []string{"n6", "n7"}, at(2)))
	j, _ = s.Job(a)
	assert.Equal(t, "n[6-7]", j.Nodes())
	start, where, err := s.WillRun(b, at(3))
	require.NoError(t, err)
	assert.Equal(t, at(2+60), start)
	assert.Len(t, where, 8)
	err = s.Start(b, []string{"n0"}, at(3))
	assert.Error(t, err, "8 nodes wanted, 1 given")
	c := submit(t, s, nodes(1, time.Hour), at(4))
	err = s.Start(c, []string{"n6"}, at(4))
	assert.ErrorIs(t, err, selectnodes.ErrBusy)
	require.NoError(t, s.Start(c, nil, at(4)), "empty list: the pipeline chooses")
	require.NoError(t, s.Cancel(b, at(5)))
	assert.Contains(t, rec.kinds(), "cancel:2", "a pending job's cancel is an event, unlike wiki2")
}

func TestConcurrentCallers(t *testing.T) {
	s := simple(t)
	done := make(chan struct{})
	for g := 0; g < 4; g++ {
		go func(g int) {
			defer func() { done <- struct{}{} }()
			for i := 0; i < 50; i++ {
				now := at(g*1000 + i)
				id, err := s.Submit(nodes(1, time.Minute), now)
				if err != nil {
					t.Error(err)
					return
				}
				s.Schedule(now)
				if i%3 == 0 {
					_ = s.Cancel(id, now)
				}
				s.Tick(now.Add(2 * time.Minute))
				_, _ = s.Backfill(now)
			}
		}(g)
	}
	for g := 0; g < 4; g++ {
		<-done
	}
	require.NoError(t, s.Cluster().CheckInvariants())
	assert.Len(t, s.Jobs(), 200)
}

var _ = errors.Is
