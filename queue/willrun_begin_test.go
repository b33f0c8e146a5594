package queue

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// WillRun of a job waiting for its begin time answers no earlier than it,
// as WillRunSpec does for the same Spec.
func TestWillRunWaitsForTheBeginTime(t *testing.T) {
	s := simple(t)
	spec := nodes(2, time.Hour)
	spec.Begin = at(120)
	id := submit(t, s, spec, t0)
	start, where, err := s.WillRun(id, t0)
	require.NoError(t, err)
	require.Equal(t, at(120), start)
	require.Len(t, where, 2)
	startSpec, _, err := s.WillRunSpec(context.Background(), spec, t0)
	require.NoError(t, err)
	require.Equal(t, startSpec, start)

	// past its begin time it answers now
	start, _, err = s.WillRun(id, at(130))
	require.NoError(t, err)
	require.Equal(t, at(130), start)
}
