package federation

import (
	"context"
	"testing"
	"time"

	"github.com/hpcsched/hpcsched/queue"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestSourceSkipsChosenIDs: a job submitted with its own ID does not make
// a later submission fail when the ID source reaches that ID; the grid
// takes the source's next one, and every ID stays unique.
func TestSourceSkipsChosenIDs(t *testing.T) {
	g := newGrid(t, NewLocal("a", sched(t, "a", 4)))
	for _, id := range []queue.JobID{3, 4, 6} {
		got, err := g.Submit(bg, queue.Spec{ID: id, Request: nodesSpec(1, time.Hour).Request, TimeLimit: time.Hour}, nil, at(0))
		require.NoError(t, err)
		require.Equal(t, id, got)
	}
	var got []queue.JobID
	for range 5 {
		id, err := g.Submit(bg, nodesSpec(1, time.Hour), nil, at(0))
		require.NoError(t, err)
		got = append(got, id)
	}
	assert.Equal(t, []queue.JobID{1, 2, 5, 7, 8}, got)
}

// repeating is a broken source that hands out the same ID forever.
type repeating struct{ id queue.JobID }

func (r repeating) NextJobID(context.Context) (queue.JobID, error) { return r.id, nil }

// TestRepeatingSourceIsStillCaught: skipping chosen IDs does not hide a
// source that repeats; the submission fails with ErrDuplicateID after at
// most one draw per chosen ID.
func TestRepeatingSourceIsStillCaught(t *testing.T) {
	g := New(repeating{7}, WithCallTimeout(0))
	require.NoError(t, g.Add(bg, NewLocal("a", sched(t, "a", 4))))
	_, err := g.Submit(bg, nodesSpec(1, time.Hour), nil, at(0))
	require.NoError(t, err)
	_, err = g.Submit(bg, queue.Spec{ID: 9, Request: nodesSpec(1, time.Hour).Request, TimeLimit: time.Hour}, nil, at(0))
	require.NoError(t, err)
	_, err = g.Submit(bg, nodesSpec(1, time.Hour), nil, at(0))
	assert.ErrorIs(t, err, queue.ErrDuplicateID)
}
