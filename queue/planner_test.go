package queue

import (
	"context"
	"testing"
	"time"

	"github.com/hpcsched/hpcsched/selectnodes"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// lastFirst starts the window's jobs in reverse order on fixed nodes: a
// planner the loop would never imitate.
type lastFirst struct{ seen []JobID }

func (p *lastFirst) Plan(_ context.Context, _ *selectnodes.Snapshot, window []Job, now time.Time) ([]Decision, error) {
	var out []Decision
	for i := len(window) - 1; i >= 0; i-- {
		p.seen = append(p.seen, window[i].ID)
	}
	if len(window) > 0 {
		out = append(out, Decision{Job: window[len(window)-1].ID, Nodes: []string{"n7"}})
		out = append(out, Decision{Job: 999})                                 // unknown: ignored
		out = append(out, Decision{Job: window[0].ID, Nodes: []string{"n7"}}) // n7 taken: refused
	}
	return out, nil
}

var _ Planner = (*lastFirst)(nil)

func TestPlanner(t *testing.T) {
	p := &lastFirst{}
	s := simple(t, WithPlanner(p, 2))
	var rec recorder
	s.Subscribe(rec.on)
	a := submit(t, s, nodes(1, time.Hour), at(0))
	b := submit(t, s, nodes(1, time.Hour), at(0))
	c := submit(t, s, nodes(1, time.Hour), at(0))
	st := s.Schedule(at(1))
	require.Len(t, st, 1)
	assert.Equal(t, b, st[0].Job, "the planner's choice, within a window of two")
	assert.Equal(t, "n7", st[0].Nodes)
	assert.Equal(t, []JobID{b, a}, p.seen)
	assert.Equal(t, Pending, state(t, s, a))
	assert.Equal(t, Pending, state(t, s, c))
	var refused []JobID
	for _, e := range rec.events {
		if e.Kind == EventRefused {
			require.IsType(t, &RefusedPayload{}, e.Payload)
			assert.Error(t, e.Payload.(*RefusedPayload).Err)
			refused = append(refused, e.Job)
		}
	}
	assert.Equal(t, []JobID{999, a}, refused, "refused decisions are reported, not dropped")
}

// ranges declines, up front, every job asking a node range and starts
// the others on the first idle node of the snapshot, in window order;
// jobs asking more than one node it declines in its answer.
type ranges struct{ windows [][]JobID }

func (ranges) Declines(j Job) bool { return j.Request.MaxNodes > j.Request.MinNodes }

func (p *ranges) Plan(_ context.Context, snap *selectnodes.Snapshot, window []Job, _ time.Time) ([]Decision, error) {
	var ids []JobID
	var out []Decision
	idle := snap.Idle()
	for _, j := range window {
		ids = append(ids, j.ID)
		if j.Request.MinNodes > 1 {
			out = append(out, Decision{Job: j.ID, Decline: true})
			continue
		}
		if i, ok := idle.NextSet(0); ok {
			idle.Clear(i)
			out = append(out, Decision{Job: j.ID, Nodes: []string{snap.Node(int(i)).Name}})
		}
	}
	p.windows = append(p.windows, ids)
	return out, nil
}

var _ Decliner = (*ranges)(nil)

func ranged(lo, hi int) Spec {
	s := nodes(lo, time.Hour)
	s.Request.MaxNodes = hi
	return s
}

// Jobs a planner declines take no place in its window and are placed by
// Schedule's own selection in the same pass, after the planner's starts,
// in queue order; jobs it neither starts nor declines wait as Resources.
func TestPlannerDeclinedJobsAreScheduled(t *testing.T) {
	p := &ranges{}
	s := simple(t, WithPlanner(p, 3))
	var heads []JobID
	for range 3 {
		heads = append(heads, submit(t, s, ranged(1, 2), at(0)))
	}
	one := submit(t, s, nodes(1, time.Hour), at(0))
	two := submit(t, s, nodes(2, time.Hour), at(0)) // declined in the answer
	late := submit(t, s, nodes(1, time.Hour), at(0))
	extra := submit(t, s, nodes(1, time.Hour), at(0)) // beyond the window
	last := submit(t, s, nodes(1, time.Hour), at(0))
	started := func(st []Started) []JobID {
		var ids []JobID
		for _, x := range st {
			ids = append(ids, x.Job)
		}
		return ids
	}
	st := s.Schedule(at(1))
	require.Equal(t, [][]JobID{{one, two, late}}, p.windows, "declined jobs take no window place")
	assert.Equal(t, []JobID{one, late, heads[0], heads[1], heads[2], two}, started(st), "the planner's starts, then the declined in queue order")
	for _, id := range []JobID{extra, last} {
		assert.Equal(t, Pending, state(t, s, id))
	}
	st = s.Schedule(at(2))
	require.Len(t, p.windows, 2)
	assert.Equal(t, []JobID{extra, last}, p.windows[1])
	assert.Equal(t, []JobID{extra}, started(st), "one node was left")
	j, _ := s.Job(last)
	assert.Equal(t, ReasonResources, j.Reason, "the planner's job it did not start")
}

// both gives one job nodes and a layout at once.
type both struct{}

func (both) Plan(_ context.Context, _ *selectnodes.Snapshot, window []Job, _ time.Time) ([]Decision, error) {
	return []Decision{{Job: window[0].ID, Nodes: []string{"n0"}, Layout: []selectnodes.NodeUse{{Node: 1, CPUs: 4}}},
		{Job: window[1].ID, Decline: true, Nodes: []string{"n2"}}}, nil
}

func TestPlannerDecisionWithNodesAndLayoutIsRefused(t *testing.T) {
	s := simple(t, WithPlanner(both{}, 2))
	var rec recorder
	s.Subscribe(rec.on)
	a := submit(t, s, nodes(1, time.Hour), at(0))
	b := submit(t, s, nodes(1, time.Hour), at(0))
	assert.Empty(t, s.Schedule(at(1)))
	var refused []JobID
	for _, e := range rec.events {
		if e.Kind == EventRefused {
			assert.ErrorIs(t, e.Payload.(*RefusedPayload).Err, ErrDecision)
			refused = append(refused, e.Job)
		}
	}
	assert.Equal(t, []JobID{a, b}, refused)
	assert.Equal(t, Pending, state(t, s, a))
}

// failing declines everything in its answer and then fails.
type failing struct{}

func (failing) Declines(Job) bool { return false }
func (failing) Plan(context.Context, *selectnodes.Snapshot, []Job, time.Time) ([]Decision, error) {
	return nil, assert.AnError
}

func TestPlannerErrorStartsNothing(t *testing.T) {
	s := simple(t, WithPlanner(failing{}, 2))
	a := submit(t, s, nodes(1, time.Hour), at(0))
	assert.Empty(t, s.Schedule(at(1)))
	assert.Equal(t, Pending, state(t, s, a))
}
