package federation

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/hpcsched/hpcsched/queue"
	"github.com/stretchr/testify/require"
)

// lossy carries a Submit out but loses its answer while lose is set, and
// answers nothing while down is set.
type lossy struct {
	Member
	lose, down bool
}

func (l *lossy) gone() error { return fmt.Errorf("%w: connection refused", ErrMemberDown) }

func (l *lossy) Submit(ctx context.Context, s queue.Spec, now time.Time) error {
	if l.down {
		return l.gone()
	}
	err := l.Member.Submit(ctx, s, now)
	if l.lose {
		return fmt.Errorf("%w: answer lost", ErrMemberDown)
	}
	return err
}

func (l *lossy) Jobs(ctx context.Context, ids []queue.JobID) ([]JobInfo, error) {
	if l.down {
		return nil, l.gone()
	}
	return l.Member.Jobs(ctx, ids)
}

func (l *lossy) Info(ctx context.Context) (Info, error) {
	if l.down {
		return Info{}, l.gone()
	}
	return l.Member.Info(ctx)
}

// A held copy a failed move may have left is cancelled when its member
// answers, even if the job ended meanwhile where it was: the grid used to
// stop asking about a job once it ended, and the copy stayed held there.
func TestCopyLeftByAMoveIsCancelledAfterTheJobEnded(t *testing.T) {
	a, b := sched(t, "a", 1), sched(t, "b", 1)
	blockA := fill(t, a, time.Hour)
	fill(t, b, 10*time.Hour)
	lb := &lossy{Member: NewLocal("b", b)}
	g := newGrid(t, NewLocal("a", a), lb)
	id, err := g.Submit(bg, nodesSpec(1, time.Hour), nil, at(1))
	require.NoError(t, err)
	st, err := g.Status(bg, id, at(1))
	require.NoError(t, err)
	require.Equal(t, "a", st.Member)

	lb.lose = true
	require.NoError(t, g.RemoveCandidates(bg, id, []string{"a"}, at(2)))
	copyOnB, ok := b.Job(id)
	require.True(t, ok, "the move's copy arrived on b")
	require.True(t, copyOnB.Held)
	lb.lose, lb.down = false, true

	require.NoError(t, a.Finish(blockA, queue.Outcome{}, at(60)))
	a.Schedule(at(60))
	require.NoError(t, a.Finish(id, queue.Outcome{}, at(70)))
	g.Reevaluate(bg, at(70))
	st, err = g.Status(bg, id, at(70))
	require.NoError(t, err)
	require.Equal(t, queue.Complete, st.State)

	lb.down = false
	g.Reevaluate(bg, at(80))
	g.Reevaluate(bg, at(90))
	copyOnB, ok = b.Job(id)
	require.True(t, ok)
	require.Equal(t, queue.Cancelled, copyOnB.State, "the copy on b is cancelled")
}
