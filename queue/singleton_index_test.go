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
