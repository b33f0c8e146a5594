package federation

import (
	"context"
	"errors"
	"strconv"
	"testing"
	"time"

	"github.com/hpcsched/hpcsched/queue"
	"github.com/hpcsched/hpcsched/selectnodes"
	"github.com/stretchr/testify/require"
)

func TestSubmitPlacesOnSoonest(t *testing.T) {
	a, b := sched(t, "a", 4), sched(t, "b", 4)
	fill(t, a, 2*time.Hour) // a is full for two hours, b for one
	fill(t, b, time.Hour)
	g := newGrid(t, NewLocal("a", a), NewLocal("b", b))

	id, err := g.Submit(bg, nodesSpec(2, time.Hour), nil, at(1))
	require.NoError(t, err)
	st, err := g.Status(bg, id, at(1))
	require.NoError(t, err)
	require.Equal(t, "b", st.Member)
	require.Equal(t, queue.Pending, st.State)

	// pinned to a, it goes to a
	id2, err := g.Submit(bg, nodesSpec(2, time.Hour), []string{"a"}, at(1))
	require.NoError(t, err)
	st, err = g.Status(bg, id2, at(1))
	require.NoError(t, err)
	require.Equal(t, "a", st.Member)
	require.Greater(t, id2, id, "grid IDs come from the grid's source")
}

// fill starts a job on all the nodes of s for limit and returns it.
func fill(t *testing.T, s *queue.Scheduler, limit time.Duration) queue.JobID {
	id, err := s.Submit(nodesSpec(s.Cluster().NodeCount(), limit), at(0))
	require.NoError(t, err)
	require.Len(t, s.Schedule(at(0)), 1)
	return id
}

func TestCandidatesByPartitionAndAccount(t *testing.T) {
	a := sched(t, "a", 2, "batch", "gpu")
	b := sched(t, "b", 2, "batch")
	c := sched(t, "c", 2, "batch", "gpu")
	g := newGrid(t, NewLocal("a", a, Accounts("physics")), NewLocal("b", b), NewLocal("c", c))
	tests := []struct {
		name, partition, account string
		want                     []string // members it may land on
		err                      error
	}{
		{"gpu needs a or c; physics allowed on a", "gpu", "physics", []string{"a", "c"}, nil},
		{"gpu, chemistry: not a", "gpu", "chemistry", []string{"c"}, nil},
		{"no such partition", "bigmem", "x", nil, ErrNoCandidate},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			spec := nodesSpec(1, time.Hour)
			spec.Account, spec.Request.Partition = tc.account, tc.partition
			id, err := g.Submit(bg, spec, nil, at(0))
			if tc.err != nil {
				require.ErrorIs(t, err, tc.err)
				return
			}
			require.NoError(t, err)
			st, err := g.Status(bg, id, at(0))
			require.NoError(t, err)
			require.Contains(t, tc.want, st.Member)
		})
	}
	_, err := g.Submit(bg, nodesSpec(1, time.Hour), []string{"nope"}, at(0))
	require.ErrorIs(t, err, ErrUnknownMember)
	require.ErrorIs(t, err, ErrInvalidSpec)
}

func TestStatusOfLocalJobFromAnyMember(t *testing.T) {
	a, b := sched(t, "a", 2), sched(t, "b", 2)
	local, err := b.Submit(nodesSpec(1, time.Hour), at(0))
	require.NoError(t, err)
	g := newGrid(t, NewLocal("a", a), NewLocal("b", b))
	st, err := g.Status(bg, local, at(0))
	require.NoError(t, err)
	require.Equal(t, "b", st.Member)
	require.True(t, st.Local)
	_, err = g.Status(bg, 999, at(0))
	require.ErrorIs(t, err, ErrUnknownJob)
}

func TestReevaluateMovesWhenAnotherClusterFreesEarly(t *testing.T) {
	a, b := sched(t, "a", 4), sched(t, "b", 4)
	fill(t, a, 4*time.Hour)
	blocker := fill(t, b, 8*time.Hour)
	g := newGrid(t, NewLocal("a", a), NewLocal("b", b))
	id, err := g.Submit(bg, nodesSpec(4, time.Hour), nil, at(1))
	require.NoError(t, err)
	st, _ := g.Status(bg, id, at(1))
	require.Equal(t, "a", st.Member)

	// b's job ends early: the grid hears it and moves the job on its next tick
	require.NoError(t, b.Finish(blocker, queue.Outcome{}, at(10)))
	_, ran := g.Tick(bg, at(10))
	require.True(t, ran, "the first tick always runs")
	st, _ = g.Status(bg, id, at(10))
	require.Equal(t, "b", st.Member)
	require.Equal(t, 1, st.Moves)
	ja, _ := a.Job(id)
	require.Equal(t, queue.Cancelled, ja.State, "the source copy is cancelled")
	jb, _ := b.Job(id)
	require.Equal(t, queue.Pending, jb.State)
	require.False(t, jb.Held, "the copy is released after the commit")
	b.Schedule(at(10))
	st, _ = g.Status(bg, id, at(10))
	require.Equal(t, queue.Running, st.State)
}

func TestNoMoveBelowThreshold(t *testing.T) {
	a, b := sched(t, "a", 4), sched(t, "b", 4)
	fill(t, a, 60*time.Minute)
	fill(t, b, 61*time.Minute)
	g := New(NewMemoryIDs(1), WithCallTimeout(0), WithMoveThreshold(5*time.Minute))
	require.NoError(t, g.Add(bg, NewLocal("b", b)))
	require.NoError(t, g.Add(bg, NewLocal("a", a)))
	id, err := g.Submit(bg, nodesSpec(4, time.Hour), []string{"b"}, at(0))
	require.NoError(t, err)
	require.NoError(t, g.AddCandidates(bg, id, []string{"a"}, at(0)))
	rep := g.Reevaluate(bg, at(0))
	require.Zero(t, rep.Moved, "a would start it only a minute sooner")
	st, _ := g.Status(bg, id, at(0))
	require.Equal(t, "b", st.Member)
}

func TestRemoveCandidateMovesJob(t *testing.T) {
	a, b := sched(t, "a", 2), sched(t, "b", 2)
	g := newGrid(t, NewLocal("a", a), NewLocal("b", b))
	id, err := g.Submit(bg, nodesSpec(1, time.Hour), []string{"a"}, at(0))
	require.NoError(t, err)
	require.NoError(t, g.AddCandidates(bg, id, []string{"b"}, at(0)))
	require.NoError(t, g.RemoveCandidates(bg, id, []string{"a"}, at(0)))
	st, _ := g.Status(bg, id, at(0))
	require.Equal(t, "b", st.Member)
	require.Equal(t, []string{"b"}, st.Candidates)
	require.ErrorIs(t, g.RemoveCandidates(bg, id, []string{"b"}, at(0)), ErrNoCandidate)
	b.Schedule(at(0))
	require.ErrorIs(t, g.RemoveCandidates(bg, id, []string{"a"}, at(1)), ErrJobState)
}

func TestCrossClusterDependencies(t *testing.T) {
	a, b := sched(t, "a", 2), sched(t, "b", 2)
	g := newGrid(t, NewLocal("a", a), NewLocal("b", b))
	p, err := g.Submit(bg, nodesSpec(1, time.Hour), []string{"a"}, at(0))
	require.NoError(t, err)
	f, err := g.Submit(bg, nodesSpec(1, time.Hour), []string{"a"}, at(0))
	require.NoError(t, err)
	spec := func(dep string) queue.Spec { s := nodesSpec(1, time.Hour); s.Dependency = dep; return s }
	ok, err := g.Submit(bg, spec("afterok:"+itoa(p)), []string{"b"}, at(0))
	require.NoError(t, err)
	notok, err := g.Submit(bg, spec("afternotok:"+itoa(p)), []string{"b"}, at(0))
	require.NoError(t, err)
	after, err := g.Submit(bg, spec("after:"+itoa(p)), []string{"b"}, at(0))
	require.NoError(t, err)
	anyOf, err := g.Submit(bg, spec("afterok:"+itoa(p)+"?afterok:"+itoa(f)), []string{"b"}, at(0))
	require.NoError(t, err)
	st, _ := g.Status(bg, ok, at(0))
	require.Equal(t, "", st.Member, "waits at the grid")
	require.Equal(t, "Dependency", st.Reason)

	a.Schedule(at(0))
	g.Reevaluate(bg, at(1))
	st, _ = g.Status(bg, after, at(1))
	require.Equal(t, "b", st.Member, "after: the parent started")
	st, _ = g.Status(bg, ok, at(1))
	require.Equal(t, "", st.Member)

	require.NoError(t, a.Finish(p, queue.Outcome{}, at(30)))
	require.NoError(t, a.Finish(f, queue.Outcome{Kind: queue.Failure, ExitCode: 1}, at(30)))
	g.Reevaluate(bg, at(31))
	for _, id := range []queue.JobID{ok, anyOf} {
		st, _ = g.Status(bg, id, at(31))
		require.Equal(t, "b", st.Member, "job %d", id)
	}
	st, _ = g.Status(bg, notok, at(31))
	require.Equal(t, "", st.Member)
	require.Equal(t, string(queue.ReasonDependencyNeverSatisfied), st.Reason)
	require.NoError(t, g.Cancel(bg, notok, at(32)))
	st, _ = g.Status(bg, notok, at(32))
	require.Equal(t, queue.Cancelled, st.State)

	_, err = g.Submit(bg, spec("afterok:777"), nil, at(0))
	require.ErrorIs(t, err, ErrInvalidSpec)
}

func TestSingletonAcrossClusters(t *testing.T) {
	a, b := sched(t, "a", 2), sched(t, "b", 2)
	g := newGrid(t, NewLocal("a", a), NewLocal("b", b))
	s := nodesSpec(1, time.Hour)
	s.Name, s.Dependency = "nightly", "singleton"
	first, err := g.Submit(bg, s, []string{"a"}, at(0))
	require.NoError(t, err)
	second, err := g.Submit(bg, s, []string{"b"}, at(1))
	require.NoError(t, err)
	st, _ := g.Status(bg, first, at(1))
	require.Equal(t, "a", st.Member)
	st, _ = g.Status(bg, second, at(1))
	require.Equal(t, "", st.Member, "waits for the first, on another cluster")
	a.Schedule(at(1))
	require.NoError(t, a.Finish(first, queue.Outcome{}, at(20)))
	g.Reevaluate(bg, at(21))
	st, _ = g.Status(bg, second, at(21))
	require.Equal(t, "b", st.Member)
}

func TestBlockingMemberIsDownNotWaitedOn(t *testing.T) {
	a, b := sched(t, "a", 2), sched(t, "b", 2)
	fb := &faulty{Member: NewLocal("b", b)}
	g := New(NewMemoryIDs(1), WithCallTimeout(200*time.Millisecond))
	require.NoError(t, g.Add(bg, NewLocal("a", a)))
	require.NoError(t, g.Add(bg, fb))
	fb.block()
	defer fb.unblock()
	id, err := g.Submit(bg, nodesSpec(1, time.Hour), nil, at(0))
	require.NoError(t, err, "b's forecast times out; a takes the job")
	st, err := g.Status(bg, id, at(0))
	require.NoError(t, err)
	require.Equal(t, "a", st.Member)
	ms := g.Members()
	require.False(t, ms[1].Up)
	// while its call is stuck, b gets no second call
	before := callsOf(fb)
	g.Reevaluate(bg, at(1))
	require.Equal(t, before, callsOf(fb))
	fb.unblock()
	require.Eventually(t, func() bool { return !g.busy("b") }, time.Second, time.Millisecond)
	g.Reevaluate(bg, at(2))
	require.True(t, g.Members()[1].Up, "b answers again")
}

func callsOf(f *faulty) int { f.mu.Lock(); defer f.mu.Unlock(); return f.calls }

func TestSubmitToDownMemberIsSettledWhenItReturns(t *testing.T) {
	a := sched(t, "a", 2)
	fa := &faulty{Member: NewLocal("a", a)}
	g := newGrid(t, fa)
	fa.setDown(true)
	id, err := g.Submit(bg, nodesSpec(1, time.Hour), nil, at(0))
	require.NoError(t, err)
	st, _ := g.Status(bg, id, at(0))
	require.Equal(t, "a", st.Member, "the submission may have arrived: the job is nowhere else")
	require.True(t, st.Stale)
	_, ok := a.Job(id)
	require.False(t, ok)
	fa.setDown(false)
	rep := g.Reevaluate(bg, at(1))
	require.Equal(t, 1, rep.Placed, "a says it never got it: placed again")
	j, ok := a.Job(id)
	require.True(t, ok)
	require.Equal(t, queue.Pending, j.State)
}

func TestCancel(t *testing.T) {
	a := sched(t, "a", 2)
	g := newGrid(t, NewLocal("a", a))
	id, err := g.Submit(bg, nodesSpec(1, time.Hour), nil, at(0))
	require.NoError(t, err)
	require.NoError(t, g.Cancel(bg, id, at(1)))
	st, _ := g.Status(bg, id, at(1))
	require.Equal(t, queue.Cancelled, st.State)
	require.ErrorIs(t, g.Cancel(bg, id, at(2)), ErrJobState)
	require.ErrorIs(t, g.Cancel(bg, 12345, at(2)), ErrUnknownJob)
}

func TestMemoryIDs(t *testing.T) {
	ids := NewMemoryIDs(0)
	seen := map[queue.JobID]bool{}
	for i := 0; i < 100; i++ {
		id, err := ids.NextJobID(bg)
		require.NoError(t, err)
		require.False(t, seen[id])
		require.NotZero(t, id)
		seen[id] = true
	}
	ids = NewMemoryIDs(^queue.JobID(0) - 1)
	_, err := ids.NextJobID(bg)
	require.NoError(t, err)
	_, err = ids.NextJobID(bg)
	require.Error(t, err, "exhausted, never wrapped")
	ctx, cancel := context.WithCancel(bg)
	cancel()
	_, err = NewMemoryIDs(1).NextJobID(ctx)
	require.True(t, errors.Is(err, context.Canceled))
}

func itoa(id queue.JobID) string { return strconv.FormatUint(uint64(id), 10) }

// A member that comes back without its state: a job that never started
// there is placed again; one that started is not run a second time.
func TestMemberLosesItsState(t *testing.T) {
	a, b := sched(t, "a", 2), sched(t, "b", 2)
	fa := &faulty{Member: NewLocal("a", a)}
	g := newGrid(t, fa, NewLocal("b", b))
	ran, err := g.Submit(bg, nodesSpec(1, time.Hour), []string{"a"}, at(0))
	require.NoError(t, err)
	a.Schedule(at(0))
	fill(t, b, 3*time.Hour) // b is busy longer than a
	waiting, err := g.Submit(bg, nodesSpec(2, time.Hour), []string{"a", "b"}, at(0))
	require.NoError(t, err)
	st, _ := g.Status(bg, ran, at(0))
	require.Equal(t, queue.Running, st.State)
	st, _ = g.Status(bg, waiting, at(0))
	require.Equal(t, "a", st.Member)

	// a restarts empty
	fa.Member = NewLocal("a", sched(t, "a", 2))
	g.Reevaluate(bg, at(1))
	st, _ = g.Status(bg, ran, at(1))
	require.Equal(t, queue.NodeFail, st.State, "it ran: not run again")
	st, _ = g.Status(bg, waiting, at(1))
	require.Equal(t, queue.Pending, st.State)
	require.Equal(t, 1, g.Stats().Replaced)
}

// Tick runs a pass each period, and sooner (after the minimum gap) when a
// member reports an event that changes when jobs could start.
func TestTickPeriodAndEvents(t *testing.T) {
	tests := []struct {
		name  string
		event func(s *queue.Scheduler, now time.Time)
		ran   bool
	}{
		{"nothing happened", func(*queue.Scheduler, time.Time) {}, false},
		{"a node fails", func(s *queue.Scheduler, now time.Time) {
			require.NoError(t, s.SetNodeState("a0", selectnodes.NodeDown, now))
		}, true},
		{"a job ends early", func(s *queue.Scheduler, now time.Time) {
			require.NoError(t, s.Finish(s.Jobs()[0].ID, queue.Outcome{}, now))
		}, true},
		{"a job arrives", func(s *queue.Scheduler, now time.Time) {
			_, err := s.Submit(queue.Spec{Request: selectnodes.Request{MinNodes: 1}, Priority: 1000}, now)
			require.NoError(t, err)
		}, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			a := sched(t, "a", 2)
			fill(t, a, time.Hour)
			g := New(NewMemoryIDs(1), WithCallTimeout(0), WithPeriod(time.Minute, 10*time.Second))
			require.NoError(t, g.Add(bg, NewLocal("a", a)))
			_, ran := g.Tick(bg, at(0))
			require.True(t, ran, "the first tick runs")
			_, ran = g.Tick(bg, at(0).Add(5*time.Second))
			require.False(t, ran)
			tc.event(a, at(0).Add(20*time.Second))
			_, ran = g.Tick(bg, at(0).Add(30*time.Second))
			require.Equal(t, tc.ran, ran)
			_, ran = g.Tick(bg, at(2))
			require.True(t, ran, "a period after the last pass")
		})
	}
}
