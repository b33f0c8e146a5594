package queue

import (
	"testing"
	"time"

	"github.com/bits-and-blooms/bitset"
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

// On a cluster where the starts can be counted again, gained nodes past
// the bound are counted at once, not weighed node by node first: the
// count is exact where the weighing only bounds. Here no gained node has
// a run of the job's length starting by the last start tried, so the
// weighing would keep the reservation with the certificate's loose
// bound; the count keeps it with the exact one (and makes no sweep).
func TestGainedRoomIsCountedAgainBeforeItIsWeighed(t *testing.T) {
	s := New(cluster(t, onesConf(2)))
	// node 0 free over [100, 110); the reservation holds both nodes over
	// [120, 150); both free from 150
	p := &profile{}
	free := map[int][]uint{100: {0}, 150: {0, 1}}
	for _, m := range []int{0, 100, 110, 120, 150} {
		set := bitset.New(2)
		for _, n := range free[m] {
			set.Set(n)
		}
		p.times, p.at, p.free = append(p.times, at(m)), append(p.at, at(m).UnixNano()), append(p.free, set)
		p.count = append(p.count, int(set.Count()))
	}
	k := &keptPlan{}
	b := &bfRun{s: s, pr: p, now: at(0), nowAt: at(0).UnixNano(), horizon: at(0).Add(s.opts.bfWindow), pass: k.newPass(2),
		open: bitset.New(2), skip: newSkipLog()}
	r := reservation{Reservation: Reservation{Start: at(120), End: at(150)}, nodes: bitset.New(2).Set(0).Set(1)}
	// a bound written on an earlier profile, where one node joined a window
	c := &skipCert{resv: r, d: 30 * time.Minute, most: 1}
	gained := bitset.New(2).Set(0).Set(1)
	require.True(t, b.weigh(c, gained, "batch", c.d, 2, at(119)))
	require.Equal(t, 0, c.most, "the exact count, not the bound")
	require.Equal(t, 1, b.skip.recounted)
	require.Zero(t, b.skip.narrowed)
	require.Nil(t, p.sweep.active, "no node weighed")
}

// A recount that finds a start reaching the job's need hands the full
// plan that follows the place it came to: the plan starts its search
// there and reserves the job where a plan from the first slot does.
func TestFullPlanCarriesOnWhereTheRecountStopped(t *testing.T) {
	fast, full, _, b, c, x := wholeClusterBehindThree(t)
	both := []*Scheduler{fast, full}
	requireSameDecisions(t, fast, full, "planned")
	r0 := fast.kept.skip.resumed
	for _, s := range both { // b and c now end by minute 60: x fits there
		require.NoError(t, s.Update(b, Update{TimeLimit: 60 * time.Minute}, at(10)))
		require.NoError(t, s.Update(c, Update{TimeLimit: 60 * time.Minute}, at(10)))
		s.BackfillStarts(at(10))
	}
	requireSameDecisions(t, fast, full, "limits cut")
	require.Equal(t, 1, fast.kept.skip.resumed-r0, "one plan carried on from the recount")
	resv := fast.Reservations()
	require.Len(t, resv, 1)
	require.Equal(t, x, resv[0].Job)
	require.True(t, resv[0].Start.Equal(at(60)), "reserved from %v", resv[0].Start)
}
