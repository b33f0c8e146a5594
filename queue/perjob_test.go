package queue

import (
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A job submitted without a dependency keeps none (no record of an empty
// one per job), and such a job still reads as having none everywhere: it
// starts, and a later dependency on it (whose cycle check walks its
// dependencies) is accepted and holds.
func TestSubmitWithoutDependencyKeepsNone(t *testing.T) {
	s := simple(t)
	a := submit(t, s, nodes(8, time.Hour), at(0))
	blank := nodes(1, time.Hour)
	blank.Dependency = " " // blank: parsed, and empty
	b := submit(t, s, blank, at(0))
	c := submit(t, s, nodes(1, time.Hour), at(0))
	assert.Nil(t, s.jobs[a].deps, "no dependency given, none kept")
	assert.True(t, s.jobs[b].deps.empty())

	dep := "afterok:" + strconv.FormatUint(uint64(a), 10)
	err := s.Update(c, Update{Dependency: &dep}, at(1))
	require.NoError(t, err)
	again := "afterok:" + strconv.FormatUint(uint64(c), 10)
	err = s.Update(a, Update{Dependency: &again}, at(1))
	require.ErrorIs(t, err, ErrInvalidSpec, "a cycle through a job without dependencies")

	s.Schedule(at(1))
	ja, _ := s.Job(a)
	assert.Equal(t, Running, ja.State)
	require.NoError(t, s.Finish(a, Outcome{Kind: Completed}, at(2)))
	s.Schedule(at(2))
	for _, id := range []JobID{b, c} {
		j, _ := s.Job(id)
		assert.Equal(t, Running, j.State, "job %d", id)
	}
}
