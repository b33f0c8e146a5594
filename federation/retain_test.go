package federation

import (
	"fmt"
	"testing"
	"time"

	"github.com/hpcsched/hpcsched/queue"
	"github.com/stretchr/testify/require"
)

// A grid keeps at most the retention of ended jobs, so its memory
// follows its live jobs over years of them: Status of a forgotten job
// asks the members, and a new dependency on it is refused as on an
// unknown job.
func TestGridForgetsEndedJobsPastTheRetention(t *testing.T) {
	a := sched(t, "a", 2)
	g := New(NewMemoryIDs(1), WithCallTimeout(0), WithRetention(5))
	require.NoError(t, g.Add(bg, NewLocal("a", a)))
	var last queue.JobID
	for i := range 50 {
		now := at(10 * i)
		id, err := g.Submit(bg, nodesSpec(1, time.Hour), nil, now)
		require.NoError(t, err)
		a.Schedule(now)
		require.NoError(t, a.Finish(id, queue.Outcome{}, now.Add(5*time.Minute)))
		g.Reevaluate(bg, now.Add(5*time.Minute))
		last = id
	}
	require.Len(t, g.jobs, 5)
	require.Len(t, g.byUserName["u\x00job"], 5)

	st, err := g.Status(bg, last, at(500))
	require.NoError(t, err)
	require.False(t, st.Local, "the last job is still the grid's")
	require.Equal(t, queue.Complete, st.State)
	st, err = g.Status(bg, 1, at(500))
	require.NoError(t, err)
	require.True(t, st.Local, "job 1 is forgotten: the member answers for it")

	spec := nodesSpec(1, time.Hour)
	spec.Dependency = "afterok:1"
	_, err = g.Submit(bg, spec, nil, at(500))
	require.ErrorIs(t, err, ErrInvalidSpec)
	spec.Dependency = fmt.Sprintf("afterok:%d", last)
	_, err = g.Submit(bg, spec, nil, at(500))
	require.NoError(t, err)
	require.Panics(t, func() { WithRetention(-1) })
}

// A job a waiting job depends on is kept past the retention until the
// dependent stops waiting; by default the grid keeps every job.
func TestGridKeepsEndedJobsAWaitingJobDependsOn(t *testing.T) {
	a := sched(t, "a", 4)
	g := New(NewMemoryIDs(1), WithCallTimeout(0), WithRetention(1))
	require.NoError(t, g.Add(bg, NewLocal("a", a)))
	short, err := g.Submit(bg, nodesSpec(1, time.Hour), nil, at(0))
	require.NoError(t, err)
	long, err := g.Submit(bg, nodesSpec(1, 10*time.Hour), nil, at(0))
	require.NoError(t, err)
	a.Schedule(at(0))
	spec := nodesSpec(1, time.Hour)
	spec.Dependency = fmt.Sprintf("afterok:%d:%d", short, long)
	waiting, err := g.Submit(bg, spec, nil, at(0))
	require.NoError(t, err)
	require.NoError(t, a.Finish(short, queue.Outcome{}, at(10)))
	g.Reevaluate(bg, at(10))
	for i := range 3 { // more ends than the retention
		id, err := g.Submit(bg, nodesSpec(1, time.Hour), nil, at(20+i))
		require.NoError(t, err)
		a.Schedule(at(20 + i))
		require.NoError(t, a.Finish(id, queue.Outcome{}, at(30+i)))
		g.Reevaluate(bg, at(30+i))
	}
	st, err := g.Status(bg, short, at(40))
	require.NoError(t, err)
	require.False(t, st.Local, "kept: a waiting job depends on it")
	require.NoError(t, a.Finish(long, queue.Outcome{}, at(310)))
	g.Reevaluate(bg, at(310))
	st, err = g.Status(bg, waiting, at(310))
	require.NoError(t, err)
	require.Equal(t, "a", st.Member, "placed: both dependencies met")
	g.Reevaluate(bg, at(311))
	st, err = g.Status(bg, short, at(311))
	require.NoError(t, err)
	require.True(t, st.Local, "forgotten once nothing waits on it")

	require.Zero(t, New(NewMemoryIDs(1)).opts.retain)
}

// The shapes and candidate groups a pass sizes its tables by follow the
// live jobs, not every request ever submitted, and moves still find the
// sooner member after they are renumbered.
func TestGridRenumbersShapesOfEndedJobs(t *testing.T) {
	a, b := sched(t, "a", 2), sched(t, "b", 2)
	g := New(NewMemoryIDs(1), WithCallTimeout(0), WithMoveThreshold(time.Minute))
	require.NoError(t, g.Add(bg, NewLocal("a", a)))
	require.NoError(t, g.Add(bg, NewLocal("b", b)))
	for i := range 300 {
		now := at(i)
		spec := nodesSpec(1, time.Duration(i+1)*time.Minute) // a shape each
		spec.Account = fmt.Sprint("acct", i)                 // a group each
		id, err := g.Submit(bg, spec, nil, now)
		require.NoError(t, err)
		st, err := g.Status(bg, id, now)
		require.NoError(t, err)
		s := map[string]*queue.Scheduler{"a": a, "b": b}[st.Member]
		s.Schedule(now)
		require.NoError(t, s.Finish(id, queue.Outcome{}, now))
		g.Reevaluate(bg, now)
	}
	require.LessOrEqual(t, len(g.shapeSpecs), 2*len(g.live)+64)
	require.LessOrEqual(t, len(g.groups), 2*len(g.live)+64)

	// both busy, b sooner: the job goes to b, and moves to a once a frees
	blockA := fill(t, a, 20*time.Hour)
	fill(t, b, 10*time.Hour)
	id, err := g.Submit(bg, nodesSpec(2, time.Hour), nil, at(400))
	require.NoError(t, err)
	st, err := g.Status(bg, id, at(400))
	require.NoError(t, err)
	require.Equal(t, "b", st.Member)
	require.NoError(t, a.Finish(blockA, queue.Outcome{}, at(401)))
	g.Reevaluate(bg, at(401))
	st, err = g.Status(bg, id, at(401))
	require.NoError(t, err)
	require.Equal(t, "a", st.Member, "moved to a, which is free")
}

// A member keeps the ID of a job moved away from it, so the job cannot
// go back there: the grid does not try (it tried and undid the move on
// every pass, holding and releasing the job each time), and moves it to
// another member that is sooner.
func TestGridDoesNotMoveAJobBackToAMemberItLeft(t *testing.T) {
	a, b, c := sched(t, "a", 2), sched(t, "b", 2), sched(t, "c", 2)
	blockA, blockB := fill(t, a, 20*time.Hour), fill(t, b, 10*time.Hour)
	fill(t, c, 15*time.Hour)
	g := newGrid(t, NewLocal("a", a), NewLocal("b", b), NewLocal("c", c))
	id, err := g.Submit(bg, nodesSpec(2, time.Hour), nil, at(400))
	require.NoError(t, err)
	require.NoError(t, g.RemoveCandidates(bg, id, []string{"b"}, at(401)))
	require.NoError(t, g.AddCandidates(bg, id, []string{"b"}, at(402)))
	st, err := g.Status(bg, id, at(402))
	require.NoError(t, err)
	require.Equal(t, "c", st.Member)

	require.NoError(t, b.Finish(blockB, queue.Outcome{}, at(403)))
	for i := range 3 {
		g.Reevaluate(bg, at(403+i))
	}
	require.Zero(t, g.Stats().Aborted, "no move to b was tried")
	require.NoError(t, a.Finish(blockA, queue.Outcome{}, at(410)))
	g.Reevaluate(bg, at(410))
	st, err = g.Status(bg, id, at(410))
	require.NoError(t, err)
	require.Equal(t, "a", st.Member)
	require.Equal(t, 2, st.Moves)
	require.Zero(t, g.Stats().Aborted)
}
