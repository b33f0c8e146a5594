package queue

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// Room freed on more nodes than the certificate's bound allows, but on
// nodes that join no window together with enough others, keeps the
// reservation after counting again: a full plan would rule out every
// start by count as before.
func TestReservationKeptAfterCountingAgain(t *testing.T) {
	fast, full := New(cluster(t, onesConf(12))), New(cluster(t, onesConf(12)), fullPlans)
	both := []*Scheduler{fast, full}
	var c, x JobID
	for _, s := range both {
		submit(t, s, nodes(6, 60*time.Minute), at(0))
		submit(t, s, nodes(4, 120*time.Minute), at(0))
		c = submit(t, s, nodes(2, 300*time.Minute), at(0))
		require.Len(t, s.Schedule(at(0)), 3)
		x = submit(t, s, nodes(8, 120*time.Minute), at(0))
		submit(t, s, nodes(2, 60*time.Minute), at(0)) // before x on two of the first six
		s.BackfillStarts(at(0))
	}
	requireSameDecisions(t, fast, full, "planned")
	resv := fast.Reservations()
	require.Len(t, resv, 2)
	require.Equal(t, x, resv[1].Job)
	require.True(t, resv[1].Start.Equal(at(120)))
	k0, r0 := fast.kept.skip.kept, fast.kept.skip.recounted
	for _, s := range both {
		require.NoError(t, s.Finish(c, Outcome{Kind: Completed}, at(10)))
		s.BackfillStarts(at(10))
	}
	requireSameDecisions(t, fast, full, "minute 10")
	require.Equal(t, 1, fast.kept.skip.kept-k0, "x kept without a plan")
	require.Equal(t, 1, fast.kept.skip.recounted-r0, "after counting again")
	require.Equal(t, Pending, state(t, fast, x))
}
