package queue

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// A pass with no pending job leaves the kept profile as the last pass
// with a job to plan left it: it is brought up to date only when a job
// needs it.
func TestIdlePassLeavesTheKeptProfile(t *testing.T) {
	s := New(cluster(t, onesConf(4)))
	run := submit(t, s, nodes(3, time.Hour), t0)
	s.Schedule(t0)
	blocked := submit(t, s, nodes(4, time.Hour), at(1))
	s.Schedule(at(1))
	s.BackfillStarts(at(1)) // a reservation for blocked: the kept profile is made at 1
	require.NotNil(t, s.kept)
	require.Len(t, s.Reservations(), 1)
	require.NoError(t, s.Cancel(blocked, at(2)))
	require.NoError(t, s.Finish(run, Outcome{Kind: Completed}, at(3)))
	require.Empty(t, s.BackfillStarts(at(4)))
	require.Equal(t, at(1).UnixNano(), s.kept.pr.at[0], "the idle pass did not bring the profile to its time")
	require.Empty(t, s.Reservations())
	// the next job to plan sees the profile of its own pass
	next := submit(t, s, nodes(4, time.Hour), at(5))
	s.BackfillStarts(at(5))
	require.Equal(t, Running, state(t, s, next))
	require.Equal(t, at(5).UnixNano(), s.kept.pr.at[0])
}
