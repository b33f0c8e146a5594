package queue

import (
	"testing"

	"github.com/hpcsched/hpcsched/selectnodes"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The user-and-name index behind singleton dependencies is built on first
// use: jobs submitted before it (here one already running) count, and so
// do the jobs added after it.
func TestSingletonIndexBuiltOnFirstUse(t *testing.T) {
	s := simple(t)
	plain := Spec{Name: "nightly", User: "u", Request: selectnodes.Request{MinNodes: 1}}
	other := Spec{Name: "nightly", User: "v", Request: selectnodes.Request{MinNodes: 1}}
	running := submit(t, s, plain, at(0))
	submit(t, s, other, at(0))
	s.Schedule(at(0))
	require.Equal(t, Running, state(t, s, running))
	require.Nil(t, s.byUserName, "no singleton yet: no index")

	single := plain
	single.Dependency = "singleton"
	waits := submit(t, s, single, at(1))
	later := submit(t, s, single, at(1))
	s.Schedule(at(2))
	for _, id := range []JobID{waits, later} {
		j, _ := s.Job(id)
		assert.Equal(t, ReasonDependency, j.Reason, "job %d: u's nightly runs", id)
	}
	require.NoError(t, s.Finish(running, Outcome{}, at(3)))
	s.Schedule(at(4))
	assert.Equal(t, Running, state(t, s, waits))
	j, _ := s.Job(later)
	assert.Equal(t, ReasonDependency, j.Reason, "the first singleton now runs")
	assert.Len(t, s.byUserName[userName(s.jobs[later])], 3)
}

// The scheduler's own IDs skip those taken by explicit ones, below and
// above its counter, and use the ones above every taken ID directly.
func TestCounterIDsSkipExplicitOnes(t *testing.T) {
	s := simple(t)
	for _, want := range []JobID{7, 2} {
		id, err := s.Submit(Spec{ID: want, Request: selectnodes.Request{MinNodes: 1}}, at(0))
		require.NoError(t, err)
		require.Equal(t, want, id)
	}
	var got []JobID
	for range 8 {
		got = append(got, submit(t, s, nodes(1, 0), at(0)))
	}
	assert.Equal(t, []JobID{1, 3, 4, 5, 6, 8, 9, 10}, got)
	_, err := s.Submit(Spec{ID: 9, Request: selectnodes.Request{MinNodes: 1}}, at(0))
	assert.ErrorIs(t, err, ErrDuplicateID)
}
