package auction

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/hpcsched/hpcsched/queue"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Nil arguments to the public entry points are errors, not nil-pointer
// panics.
func TestNilArgumentsAreErrors(t *testing.T) {
	_, err := Solve(context.Background(), nil, Options{})
	assert.ErrorIs(t, err, ErrInvalid)
	_, err = ReadJSON(nil)
	assert.ErrorIs(t, err, ErrInvalid)
	load := Load{CPUs: []int{8}, GPUs: []int{0}}
	_, err = GenerateBids([]WindowJob{{ID: 1, Priority: 1, Cores: 4}}, load, nil, BidOptions{})
	assert.ErrorIs(t, err, ErrInvalid)
	assert.ErrorContains(t, err, "topology.Tree")
}

// An alpha and a cost each finite whose product is not: the bid's value
// would be infinite and any selection taking it "optimal" at +Inf. The
// problem is refused, naming the bid.
func TestInfiniteBidValueIsRefused(t *testing.T) {
	for _, js := range []string{
		`{"alpha":1e308,"nodes":[{"cpus":2,"gpus":0}],"jobs":[{"id":1,"priority":5,"bids":[{"uses":[[0,1,0]],"cost":-1e308,"level":0}]}]}`,
		`{"alpha":1e308,"nodes":[{"cpus":2,"gpus":0}],"jobs":[{"id":1,"priority":5,"bids":[{"uses":[[0,1,0]],"cost":1e308,"level":0}]}]}`,
		`{"alpha":1e200,"value_by_cores":true,"nodes":[{"cpus":1000,"gpus":0}],"jobs":[{"id":1,"priority":5,"bids":[{"uses":[[0,1000,0]],"cost":1e89,"level":0}]}]}`,
	} {
		_, err := ReadJSON(strings.NewReader(js))
		var e *Error
		require.True(t, errors.As(err, &e), "%s: %v", js, err)
		assert.ErrorIs(t, err, ErrInvalid)
		assert.Equal(t, "jobs[0].bids[0]", e.Path)
	}
	p, err := ReadJSON(strings.NewReader(`{"alpha":1e100,"nodes":[{"cpus":2,"gpus":0}],"jobs":[{"id":1,"priority":5,"bids":[{"uses":[[0,1,0]],"cost":-1e100,"level":0}]}]}`))
	require.NoError(t, err, "a value of 1e200 is large but its sums stay finite")
	s, err := Solve(context.Background(), p, Options{})
	require.NoError(t, err)
	assert.Equal(t, 1e200, s.Objective)
}

// Evaluate reads -1 alone as a job left out, and a problem not validated
// (a use on a node it lacks) gives an error, not an index panic.
func TestEvaluateOnBadSelectionsAndUnvalidatedProblems(t *testing.T) {
	p := &Problem{Alpha: 1, Nodes: []Node{{CPUs: 4}}, Jobs: []Job{
		{ID: 1, Priority: 3, Bids: []Bid{{Uses: []Use{{Node: 0, Cores: 2}}, Cost: 1}}},
		{ID: 2, Priority: 2, Bids: []Bid{{Uses: []Use{{Node: 5, Cores: 2}}, Cost: 1}}},
	}}
	_, err := p.Evaluate(Selection{-7, -1})
	assert.ErrorIs(t, err, ErrInfeasible)
	assert.False(t, p.Feasible(Selection{-2, -1}))
	v, err := p.Evaluate(Selection{0, -1})
	require.NoError(t, err)
	assert.Equal(t, 2.0, v)
	_, err = p.Evaluate(Selection{-1, 0})
	assert.ErrorIs(t, err, ErrInvalid)
	assert.ErrorContains(t, err, "node 5")
}

// A nil Planner or Snapshot is an error from Plan, not a nil-pointer panic.
func TestPlanNilPlannerOrSnapshot(t *testing.T) {
	var pl *Planner
	_, err := pl.Plan(context.Background(), nil, nil, time.Time{})
	assert.ErrorIs(t, err, ErrInvalid)
	_, err = (&Planner{}).Plan(context.Background(), nil, []queue.Job{{ID: 1}}, time.Time{})
	assert.ErrorIs(t, err, ErrInvalid)
}
