package queue

import (
	"context"
	"testing"
	"time"

	"github.com/hpcsched/hpcsched/selectnodes"
	"github.com/stretchr/testify/require"
)

// twicePlanner starts the first job of its window twice, then asks for
// it on a node named twice.
type twicePlanner struct{}

func (twicePlanner) Plan(_ context.Context, _ *selectnodes.Snapshot, w []Job, _ time.Time) ([]Decision, error) {
	if len(w) < 2 {
		return nil, nil
	}
	return []Decision{{Job: w[0].ID}, {Job: w[0].ID}, {Job: w[1].ID, Nodes: []string{"n1", "n1"}}}, nil
}

// A decision refused because its job already runs reports the job's
// state, not a pending one; a node named twice is refused as such.
func TestRefusedDecisionReportsTheJobsState(t *testing.T) {
	s := simple(t, WithPlanner(twicePlanner{}, 0))
	var rec recorder
	s.Subscribe(rec.on)
	a := submit(t, s, nodes(1, time.Hour), t0)
	b := submit(t, s, nodes(1, time.Hour), t0)
	s.Schedule(t0)
	var refused []Event
	for _, e := range rec.events {
		if e.Kind == EventRefused {
			refused = append(refused, e)
		}
	}
	require.Len(t, refused, 2)
	require.Equal(t, a, refused[0].Job)
	require.Equal(t, Running, refused[0].State)
	require.Equal(t, "batch", refused[0].Partition)
	require.Equal(t, b, refused[1].Job)
	require.ErrorIs(t, refused[1].Payload.(*RefusedPayload).Err, ErrInvalidSpec)
	require.Contains(t, refused[1].Detail, "node n1 is given twice")
}

func TestStartOnANodeGivenTwiceSaysSo(t *testing.T) {
	s := simple(t)
	id := submit(t, s, nodes(1, time.Hour), t0)
	err := s.Start(id, []string{"n2", "n3", "n2"}, t0)
	require.ErrorIs(t, err, ErrInvalidSpec)
	require.ErrorContains(t, err, "node n2 is given twice")
}
