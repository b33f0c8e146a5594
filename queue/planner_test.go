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
