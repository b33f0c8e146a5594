package federation

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/hpcsched/hpcsched/queue"
	"github.com/hpcsched/hpcsched/selectnodes"
	"github.com/stretchr/testify/require"
)

// The grid keeps its own copy of a submitted spec: a caller that reuses
// its spec's slices after Submit does not change the job the grid moves.
func TestSubmitKeepsItsOwnSpec(t *testing.T) {
	a, b := sched(t, "n", 4), sched(t, "n", 4) // the same node names on both
	g := newGrid(t, NewLocal("a", a), NewLocal("b", b))
	_, err := a.Submit(nodesSpec(4, time.Hour), at(0))
	require.NoError(t, err)
	long, err := b.Submit(nodesSpec(4, 3*time.Hour), at(0))
	require.NoError(t, err)
	a.Schedule(at(0))
	b.Schedule(at(0))
	spec := nodesSpec(2, time.Hour)
	spec.Request.Excluded = []string{"n3"}
	spec.Request.Groups = []string{"physics"}
	id, err := g.Submit(bg, spec, nil, at(0))
	require.NoError(t, err)
	st, err := g.Status(bg, id, at(0))
	require.NoError(t, err)
	require.Equal(t, "a", st.Member)
	spec.Request.Excluded[0] = "n0"
	spec.Request.Groups[0] = "changed"

	require.NoError(t, b.Finish(long, queue.Outcome{}, at(5)))
	require.Equal(t, 1, g.Reevaluate(bg, at(5)).Moved)
	j, ok := b.Job(id)
	require.True(t, ok)
	require.Equal(t, []string{"n3"}, j.Request.Excluded)
	require.Equal(t, []string{"physics"}, j.Request.Groups)
}

// A now outside the years the members accept is refused before an ID
// is taken, and a pass at one does nothing: a Tick in year 9999 used to
// leave every later Tick not due.
func TestTimeOutsideTheYears(t *testing.T) {
	g := newGrid(t, NewLocal("a", sched(t, "a", 2)))
	far := time.Date(9999, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, now := range []time.Time{{}, far} {
		_, err := g.Submit(bg, nodesSpec(1, time.Hour), nil, now)
		require.ErrorIs(t, err, queue.ErrTime)
		require.NotErrorIs(t, err, ErrNoCandidate)
		_, ran := g.Tick(bg, now)
		require.False(t, ran)
		require.Equal(t, Report{}, g.Reevaluate(bg, now))
	}
	id, err := g.Submit(bg, nodesSpec(1, time.Hour), nil, at(0))
	require.NoError(t, err)
	require.Equal(t, queue.JobID(1), id, "no ID was spent on a refused time")
	require.ErrorIs(t, g.Cancel(bg, id, far), queue.ErrTime)
	require.ErrorIs(t, g.AddCandidates(bg, id, []string{"a"}, time.Time{}), queue.ErrTime)
	require.ErrorIs(t, g.RemoveCandidates(bg, id, []string{"a"}, far), queue.ErrTime)
	_, ran := g.Tick(bg, at(0))
	require.True(t, ran)
	_, ran = g.Tick(bg, at(2))
	require.True(t, ran, "a period after the last pass")
	require.Zero(t, g.Stats().Passes-2)
}

// A candidate named twice is one candidate.
func TestCandidateNamedTwice(t *testing.T) {
	g := newGrid(t, NewLocal("a", sched(t, "a", 2)), NewLocal("b", sched(t, "b", 2)))
	id, err := g.Submit(bg, nodesSpec(1, time.Hour), []string{"a", "b", "a"}, at(0))
	require.NoError(t, err)
	st, err := g.Status(bg, id, at(0))
	require.NoError(t, err)
	require.Equal(t, []string{"a", "b"}, st.Candidates)
	empty, err := g.Submit(bg, nodesSpec(1, time.Hour), []string{}, at(0))
	require.ErrorIs(t, err, ErrNoCandidate, "an empty list is still no candidate")
	require.Zero(t, empty)
}

// Cancelling a job that ended on its member since the grid last looked
// is ErrJobState, as for a job the grid knows ended, and the grid learns
// how it ended.
func TestCancelAJobThatEndedUnseen(t *testing.T) {
	a := sched(t, "a", 2)
	g := newGrid(t, NewLocal("a", a))
	id, err := g.Submit(bg, queue.Spec{Request: selectnodes.Request{MinNodes: 1}, TimeLimit: time.Hour}, nil, at(0))
	require.NoError(t, err)
	a.Schedule(at(0))
	require.NoError(t, a.Finish(id, queue.Outcome{}, at(1)))
	err = g.Cancel(bg, id, at(2))
	require.ErrorIs(t, err, ErrJobState)
	require.ErrorIs(t, err, queue.ErrJobState)
	st, err := g.Status(bg, id, at(2))
	require.NoError(t, err)
	require.Equal(t, queue.Complete, st.State)
}

// reordered answers Jobs in reverse order, as an RPC server answering
// from a map might.
type reordered struct{ *Local }

func (r reordered) Jobs(ctx context.Context, ids []queue.JobID) ([]JobInfo, error) {
	out, err := r.Local.Jobs(ctx, ids)
	slices.Reverse(out)
	return out, err
}

// A member's answer about jobs in another order than asked is ignored:
// taken in order, it gave a running job the state of one that had
// completed, so the grid ended it (and would release its dependents).
func TestJobsAnswerInAnotherOrderIsIgnored(t *testing.T) {
	a := sched(t, "a", 4)
	g := newGrid(t, reordered{NewLocal("a", a)})
	first, err := g.Submit(bg, nodesSpec(1, time.Hour), nil, at(0))
	require.NoError(t, err)
	second, err := g.Submit(bg, nodesSpec(1, time.Hour), nil, at(0))
	require.NoError(t, err)
	a.Schedule(at(0))
	require.NoError(t, a.Finish(first, queue.Outcome{}, at(1)))
	g.Reevaluate(bg, at(2))
	st, err := g.Status(bg, second, at(2))
	require.NoError(t, err)
	require.NotEqual(t, queue.Complete, st.State, "job %d runs on its member", second)
}
