package federation

import (
	"fmt"
	"testing"
	"time"

	"github.com/hpcsched/hpcsched/queue"
	"github.com/stretchr/testify/require"
)

// A grid forgets a job the retention after it ended, so its memory
// follows its live jobs over years of them: Status then asks the members,
// and a new dependency on the job is refused as on an unknown one.
func TestGridForgetsEndedJobsAfterTheRetention(t *testing.T) {
	a := sched(t, "a", 2)
	g := New(NewMemoryIDs(1), WithCallTimeout(0), WithRetention(time.Hour))
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
	g.mu.Lock()
	remembered := len(g.jobs)
	g.mu.Unlock()
	require.LessOrEqual(t, remembered, 8, "an hour of jobs ending every 10 minutes, not 50")

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
}

// A job a waiting job depends on is kept past the retention until the
// dependent stops waiting, and the default grid remembers a day.
func TestGridKeepsEndedJobsAWaitingJobDependsOn(t *testing.T) {
	a := sched(t, "a", 4)
	g := New(NewMemoryIDs(1), WithCallTimeout(0), WithRetention(time.Hour))
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
	g.Reevaluate(bg, at(300))
	st, err := g.Status(bg, short, at(300))
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

	require.Equal(t, 24*time.Hour, New(NewMemoryIDs(1)).opts.retention)
}
