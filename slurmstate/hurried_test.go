package slurmstate

import (
	"testing"
	"time"

	"github.com/hpcsched/hpcsched/check"
	"github.com/hpcsched/hpcsched/selectnodes"
	"github.com/stretchr/testify/assert"
)

// Nil readers, file systems, states, clusters and sites are errors
// matching selectnodes.ErrNilArgument, not nil-pointer panics.
func TestNilArgumentsAreErrors(t *testing.T) {
	_, err := ParseNodes(nil, "nodes.txt", Limits{})
	assert.ErrorIs(t, err, selectnodes.ErrNilArgument)
	assert.ErrorContains(t, err, "nodes.txt")
	_, err = ParseJobs(nil, "jobs.txt", time.UTC, Limits{})
	assert.ErrorIs(t, err, selectnodes.ErrNilArgument)
	_, err = ParseReservations(nil, "reservations.txt", time.UTC, Limits{})
	assert.ErrorIs(t, err, selectnodes.ErrNilArgument)
	_, err = ReadDir(nil, time.UTC, Limits{})
	assert.ErrorIs(t, err, selectnodes.ErrNilArgument)
	var st *State
	_, err = st.Apply(nil, time.Time{})
	assert.ErrorIs(t, err, selectnodes.ErrNilArgument)
	_, err = (&State{}).Apply(nil, time.Time{})
	assert.ErrorIs(t, err, selectnodes.ErrNilArgument)
	_, err = (&State{}).LoadSite(nil)
	assert.ErrorIs(t, err, selectnodes.ErrNilArgument)
	_, err = (&State{}).LoadSite(&check.Site{})
	assert.ErrorIs(t, err, selectnodes.ErrNilArgument, "a zero site has no cluster")
}
