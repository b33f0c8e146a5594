package queue

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/hpcsched/hpcsched/selectnodes"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// ledgerStub is a plugin at every extension point that records its calls.
type ledgerStub struct {
	name    string
	answer  func(*Job) *Status
	calls   []string
	ends    []JobEnd
	account string
}

func (l *ledgerStub) Name() string { return l.name }

func (l *ledgerStub) Admit(_ context.Context, spec *Spec, _ time.Time) *Status {
	if spec.Account == "" {
		spec.Account = l.account
	}
	if spec.Account == "banned" {
		return NewStatus(Refuse, "account banned is closed")
	}
	return nil
}

func (l *ledgerStub) Reserve(_ context.Context, j *Job, p *selectnodes.Placement, _ time.Time) *Status {
	l.calls = append(l.calls, fmt.Sprintf("reserve %d %s", j.ID, p.Hostlist()))
	if l.answer != nil {
		return l.answer(j)
	}
	return nil
}

func (l *ledgerStub) Unreserve(_ context.Context, j *Job, _ *selectnodes.Placement, _ time.Time) {
	l.calls = append(l.calls, fmt.Sprintf("unreserve %d", j.ID))
}

func (l *ledgerStub) Release(_ context.Context, j *Job, e JobEnd, _ time.Time) {
	l.calls = append(l.calls, fmt.Sprintf("release %d %s", j.ID, e.State))
	l.ends = append(l.ends, e)
}

var (
	_ AdmitPlugin   = (*ledgerStub)(nil)
	_ ReservePlugin = (*ledgerStub)(nil)
	_ ReleasePlugin = (*ledgerStub)(nil)
)

func TestAdmitPluginRewritesAndRefuses(t *testing.T) {
	l := &ledgerStub{name: "ledger", account: "physics"}
	s := simple(t, WithPlugins(l))
	id := submit(t, s, nodes(1, time.Hour), at(0))
	j, _ := s.Job(id)
	assert.Equal(t, "physics", j.Account, "the default the plugin filled in")
	spec := nodes(1, time.Hour)
	spec.Account = "banned"
	_, err := s.Submit(spec, at(0))
	var se *StatusError
	require.ErrorAs(t, err, &se)
	assert.ErrorIs(t, err, ErrRefused)
	assert.Equal(t, "ledger", se.Plugin)
	assert.Contains(t, err.Error(), "account banned is closed")
	assert.Len(t, s.Jobs(), 1, "a refused submission leaves nothing behind")
	err = s.Update(id, Update{Account: "banned"}, at(1))
	assert.ErrorIs(t, err, ErrRefused, "updates pass admission too")
	j, _ = s.Job(id)
	assert.Equal(t, "physics", j.Account)
}

func TestReserveRefusalUndoesEarlierReservations(t *testing.T) {
	for _, tc := range []struct {
		code   Code
		state  State
		held   bool
		reason Reason
	}{
		{Refuse, Pending, false, ReasonRefused},
		{Error, Pending, false, ReasonRefused},
		{Hold, Pending, true, ReasonHeld},
		{Fail, Failed, false, ReasonNone},
	} {
		t.Run(tc.code.String(), func(t *testing.T) {
			first := &ledgerStub{name: "first"}
			second := &ledgerStub{name: "second", answer: func(*Job) *Status { return NewStatus(tc.code, "balance 10 SU, needs 240") }}
			s := simple(t, WithPlugins(first, second))
			var rec recorder
			s.Subscribe(rec.on)
			id := submit(t, s, nodes(2, time.Hour), at(0))
			assert.Empty(t, s.Schedule(at(1)))
			j, _ := s.Job(id)
			assert.Equal(t, tc.state, j.State)
			assert.Equal(t, tc.held, j.Held)
			assert.Equal(t, tc.reason, j.Reason)
			assert.Equal(t, "second: balance 10 SU, needs 240", j.ReasonDetail)
			assert.Equal(t, []string{"reserve 1 n[0-1]", "unreserve 1"}, first.calls)
			assert.Empty(t, s.Cluster().Running())
			assert.Empty(t, second.ends, "no release for a job that never started")
			last := rec.events[len(rec.events)-1]
			if tc.code != Fail {
				require.IsType(t, &RefusedPayload{}, last.Payload)
				assert.Equal(t, "second", last.Payload.(*RefusedPayload).Plugin)
			}
		})
	}
}

// A refused job does not lock its partition: the job behind it starts.
func TestRefusedJobDoesNotBlockItsPartition(t *testing.T) {
	l := &ledgerStub{name: "ledger", answer: func(j *Job) *Status {
		if j.Account == "poor" {
			return NewStatus(Refuse, "no balance")
		}
		return nil
	}}
	s := simple(t, WithPlugins(l))
	poor := nodes(2, time.Hour)
	poor.Account = "poor"
	a := submit(t, s, poor, at(0))
	b := submit(t, s, nodes(2, time.Hour), at(0))
	st := s.Schedule(at(1))
	require.Len(t, st, 1)
	assert.Equal(t, b, st[0].Job)
	started, _ := s.Backfill(at(2))
	assert.Empty(t, started)
	assert.Equal(t, ReasonRefused, func() Reason { j, _ := s.Job(a); return j.Reason }())
	assert.Empty(t, s.Reservations(), "a refused job holds no reservation")
}

func TestReleasePluginHearsEveryEnd(t *testing.T) {
	l := &ledgerStub{name: "ledger"}
	s := simple(t, WithPlugins(l))
	spec := nodes(1, time.Hour)
	ok := submit(t, s, spec, at(0))
	fail := submit(t, s, spec, at(0))
	lost := submit(t, s, spec, at(0))
	spec.Requeue = true
	again := submit(t, s, spec, at(0))
	timeout := submit(t, s, spec, at(0))
	s.Schedule(at(0))
	require.NoError(t, s.Suspend(ok, at(10)))
	require.NoError(t, s.Resume(ok, at(20)))
	require.NoError(t, s.Finish(ok, Outcome{}, at(30)))
	require.NoError(t, s.Finish(fail, Outcome{Kind: Failure, ExitCode: 3}, at(5)))
	j, _ := s.Job(lost)
	require.NoError(t, s.SetNodeState(j.Placement.Names[0], selectnodes.NodeDown, at(7)))
	j, _ = s.Job(again)
	require.NoError(t, s.Finish(again, Outcome{Kind: NodeFailure}, at(8)))
	assert.Equal(t, []JobID{timeout}, s.Tick(at(60)))
	require.Len(t, l.ends, 5)
	assert.Equal(t, JobEnd{State: Complete, Elapsed: 20 * time.Minute}, l.ends[0], "suspended time is not run time")
	assert.Equal(t, JobEnd{State: Failed, Outcome: Outcome{Kind: Failure, ExitCode: 3}, Elapsed: 5 * time.Minute}, l.ends[1])
	assert.Equal(t, JobEnd{State: NodeFail, Outcome: Outcome{Kind: NodeFailure}, Elapsed: 7 * time.Minute, NodeFailure: true}, l.ends[2])
	assert.Equal(t, JobEnd{State: Pending, Outcome: Outcome{Kind: NodeFailure}, Elapsed: 8 * time.Minute, NodeFailure: true}, l.ends[3], "requeued")
	assert.Equal(t, Timeout, l.ends[4].State)
}

type counterIDs struct{ next JobID }

func (c *counterIDs) NextJobID(context.Context) (JobID, error) {
	c.next += 10
	return c.next, nil
}

func TestIDSourceAndCallerChosenIDs(t *testing.T) {
	src := &counterIDs{next: 1000}
	s := simple(t, WithIDSource(src))
	assert.Equal(t, JobID(1010), submit(t, s, nodes(1, time.Hour), at(0)))
	spec := nodes(1, time.Hour)
	spec.ID = 7
	assert.Equal(t, JobID(7), submit(t, s, spec, at(0)))
	_, err := s.Submit(spec, at(0))
	assert.ErrorIs(t, err, ErrDuplicateID)
	src.next = 0 // would hand out 10, then...
	spec.ID = 0
	assert.Equal(t, JobID(10), submit(t, s, spec, at(0)))
	src.next = 1000
	_, err = s.Submit(spec, at(0))
	assert.ErrorIs(t, err, ErrDuplicateID, "an ID source that repeats itself is caught")

	own := simple(t)
	spec.ID = 2
	submit(t, own, spec, at(0))
	spec.ID = 0
	assert.Equal(t, JobID(1), submit(t, own, spec, at(0)))
	assert.Equal(t, JobID(3), submit(t, own, spec, at(0)), "the counter skips IDs taken by callers")
}

func TestEventPayloads(t *testing.T) {
	s := simple(t)
	var rec recorder
	s.Subscribe(rec.on)
	id := submit(t, s, nodes(2, time.Hour), at(0))
	s.Schedule(at(0))
	require.NoError(t, s.Update(id, Update{TimeLimit: 2 * time.Hour, Priority: 50}, at(1)))
	require.NoError(t, s.Finish(id, Outcome{}, at(2)))
	require.NoError(t, s.SetNodeState("n5", selectnodes.NodeDrain, at(3)))
	var kinds []string
	for _, e := range rec.events {
		switch p := e.Payload.(type) {
		case *StartPayload:
			kinds = append(kinds, "start "+p.Placement.Hostlist())
		case *UpdatePayload:
			kinds = append(kinds, fmt.Sprint("update ", p.Fields))
		case *PriorityPayload:
			kinds = append(kinds, fmt.Sprint("priority ", p.Old, "->", p.New))
		case *EndPayload:
			kinds = append(kinds, fmt.Sprint("end ", p.End.State, " ", p.End.Elapsed))
		case *NodePayload:
			kinds = append(kinds, fmt.Sprint("node ", e.Node, " ", p.State))
		case nil:
			kinds = append(kinds, string(e.Kind))
		}
	}
	assert.Equal(t, []string{"submit", "start n[0-1]", "update [TimeLimit Priority]", "priority 1->50",
		"end COMPLETE 2m0s", "node n5 DRAIN"}, kinds)
}

// A planner that fails starts nothing, and says so.
type failingPlanner struct{}

func (failingPlanner) Plan(context.Context, *selectnodes.Snapshot, []Job, time.Time) ([]Decision, error) {
	return nil, fmt.Errorf("solver out of time")
}

func TestPlannerErrorIsReported(t *testing.T) {
	s := simple(t, WithPlanner(failingPlanner{}, 10))
	var rec recorder
	s.Subscribe(rec.on)
	submit(t, s, nodes(1, time.Hour), at(0))
	assert.Empty(t, s.Schedule(at(1)))
	last := rec.events[len(rec.events)-1]
	assert.Equal(t, EventPlanFailed, last.Kind)
	assert.EqualError(t, last.Payload.(*PlanFailedPayload).Err, "solver out of time")
}

func TestWillRunSpecChangesNothing(t *testing.T) {
	s := simple(t)
	submit(t, s, nodes(6, time.Hour), at(0))
	s.Schedule(at(0))
	start, names, err := s.WillRunSpec(context.Background(), nodes(4, time.Hour), at(1))
	require.NoError(t, err)
	assert.Equal(t, at(60), start, "four nodes free when the running job ends")
	assert.Len(t, names, 4)
	start, _, err = s.WillRunSpec(context.Background(), nodes(2, time.Hour), at(1))
	require.NoError(t, err)
	assert.Equal(t, at(1), start)
	_, _, err = s.WillRunSpec(context.Background(), nodes(9, time.Hour), at(1))
	assert.ErrorIs(t, err, ErrInvalidSpec)
	assert.Len(t, s.Jobs(), 1)
}

// A dynamic site factor is recomputed at every pass by default, not only
// every few minutes: a change between two passes a second apart reorders
// the queue at the second.
func TestSiteFactorRecomputedEachPass(t *testing.T) {
	favour := "a"
	p := Multifactor{Site: 1000, SiteFactor: func(j *Job, _ time.Time) float64 {
		if j.User == favour {
			return 1
		}
		return 0
	}}
	s := simple(t, WithPolicy(p))
	submit(t, s, nodes(8, time.Hour), at(0)) // holds every node
	s.Schedule(at(0))
	a, b := nodes(8, time.Hour), nodes(8, time.Hour)
	a.User, b.User = "a", "b"
	ja, jb := submit(t, s, a, at(1)), submit(t, s, b, at(1))
	assert.Equal(t, []JobID{ja, jb}, pendingIDs(s))
	favour = "b"
	s.Schedule(at(1).Add(time.Second))
	assert.Equal(t, []JobID{jb, ja}, pendingIDs(s), "recomputed a second later")
}

func pendingIDs(s *Scheduler) []JobID {
	var out []JobID
	for _, j := range s.Pending() {
		out = append(out, j.ID)
	}
	return out
}
