package queue

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/bits-and-blooms/bitset"
	"github.com/hpcsched/hpcsched/selectnodes"
	"github.com/stretchr/testify/require"
)

// requireKeptEqualsRebuilt brings s's kept profile to now, as a Backfill
// pass at now would, and checks it slot by slot against one built from
// scratch: the same boundaries (instants and values), the same free set
// and count in every slot, changed-word marks that cover every word that
// differs from the slot before, and the same reservations indexed.
func requireKeptEqualsRebuilt(t *testing.T, s *Scheduler, now time.Time, msg string) {
	t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	kept, idx := s.planProfile(now)
	// the kept books hold exactly the standing reservations (planProfile
	// skips syncResv when it can tell they do)
	require.Len(t, s.kept.resv, len(s.resv), msg)
	for id, r := range s.resv {
		kr, ok := s.kept.resv[id]
		require.True(t, ok && sameResv(r, kr), "%s: kept books differ on reservation %d", msg, id)
	}
	fresh, freshIdx := s.buildProfile(now, &bfBuffers{})
	require.Equal(t, len(fresh.times), len(kept.times), "%s: slots\nkept  %v\nfresh %v", msg, kept.at, fresh.at)
	for i := range fresh.times {
		require.True(t, fresh.times[i] == kept.times[i], "%s: slot %d starts %v, rebuilt %v", msg, i, kept.times[i], fresh.times[i])
		require.Equal(t, fresh.at[i], kept.at[i], "%s: slot %d", msg, i)
		require.True(t, fresh.free[i].Equal(kept.free[i]), "%s: slot %d at %v: kept %v, rebuilt %v", msg, i, kept.times[i], kept.free[i], fresh.free[i])
		require.Equal(t, fresh.count[i], kept.count[i], "%s: slot %d count", msg, i)
		if i == 0 {
			continue
		}
		cur, prev := kept.free[i].Words(), kept.free[i-1].Words()
		for k := range cur {
			if cur[k] != prev[k] {
				require.NotZero(t, kept.changed[i][k/64]&(1<<(k%64)), "%s: slot %d word %d differs unmarked", msg, i, k)
			}
		}
	}
	checkBlocks(t, kept, 0, 0)
	w := bitset.New(kept.free[0].Len())
	for i := range kept.times {
		for _, d := range []time.Duration{time.Minute, 47 * time.Minute, 5 * time.Hour} {
			kept.window(i, d, w)
			require.True(t, naiveWindow(kept, i, d).Equal(w), "%s: window at slot %d for %v", msg, i, d)
		}
	}
	require.ElementsMatch(t, sortedResv(freshIdx.resv), sortedResv(idx.resv), msg)
	for id, r := range freshIdx.resv {
		require.True(t, r.Start.Equal(idx.resv[id].Start) && r.End.Equal(idx.resv[id].End), "%s: reservation %d", msg, id)
	}
	// the list before reads holds the same reservations as the map
	require.Len(t, idx.list, len(idx.resv), msg)
	for i, e := range idx.list {
		r, ok := idx.resv[e.id]
		require.True(t, ok && idx.pos[e.id] == i && e.start == r.Start.UnixNano() && e.end == r.End.UnixNano() && e.nodes == r.nodes, "%s: list entry %d", msg, i)
	}
	for _, d := range []time.Duration{0, time.Minute, 90 * time.Minute, 20 * time.Hour} {
		excl, naive := bitset.New(uint(idx.n)), bitset.New(uint(idx.n))
		for _, r := range idx.resv {
			if r.Start.Before(now.Add(d)) {
				naive.InPlaceUnion(r.nodes)
			}
		}
		idx.before(now.Add(d), excl)
		require.True(t, naive.Equal(excl), "%s: before now+%v", msg, d)
	}
}

// TestKeptProfileEqualsRebuilt drives schedulers through random event
// sequences — submissions of node- and CPU-count jobs, schedule and
// backfill passes at uneven times, early ends, cancels, holds, releases,
// requeues, suspends, limit and request updates, nodes going down,
// drained and up — and checks after every event that the profile a
// Backfill pass would start from equals a rebuilt one.
func TestKeptProfileEqualsRebuilt(t *testing.T) {
	iters, steps := 12, 120
	if testing.Short() {
		iters = 6
	}
	for iter := range iters {
		r := rand.New(rand.NewPCG(uint64(iter), 77))
		n := []int{8, 70, 130}[iter%3]
		c := cluster(t, fmt.Sprintf("NodeName=n[0-%d] CPUs=4\nPartitionName=batch Nodes=ALL Default=YES\n", n-1))
		s := New(c, WithBackfillResolution([]time.Duration{time.Minute, 7 * time.Minute, time.Nanosecond}[iter%3]))
		now := t0
		for step := range steps {
			now = now.Add(time.Duration(r.IntN(400)-10) * time.Second) // now and then backwards
			keptEvent(t, s, r, n, now)
			requireKeptEqualsRebuilt(t, s, now, fmt.Sprintf("iter %d step %d", iter, step))
		}
	}
}

// keptEvent applies one random event to s at now.
func keptEvent(t *testing.T, s *Scheduler, r *rand.Rand, n int, now time.Time) {
	jobs := s.Jobs()
	pick := func() JobID {
		if len(jobs) == 0 {
			return 1
		}
		return jobs[r.IntN(len(jobs))].ID
	}
	switch r.IntN(15) {
	case 0, 1, 2:
		spec := nodes(1+r.IntN(max(n/3, 2)), time.Duration(1+r.IntN(90))*time.Minute)
		if r.IntN(3) == 0 {
			spec.Request = selectnodes.Request{CPUs: 1 + r.IntN(4*n/2)}
		}
		if r.IntN(4) == 0 {
			spec.Request.Share = selectnodes.ShareExclusiveJob
		}
		_, _ = s.Submit(spec, now)
	case 3:
		s.Schedule(now)
	case 4, 5, 6:
		_, _ = s.Backfill(now)
	case 7:
		_ = s.Finish(pick(), Outcome{Kind: Completed}, now)
	case 8:
		_ = s.Cancel(pick(), now)
	case 9:
		_ = s.Hold(pick(), now)
		_ = s.Release(pick(), now)
	case 10:
		_ = s.SetNodeState(fmt.Sprintf("n%d", r.IntN(n)), selectnodes.NodeState(r.IntN(3)), now)
	case 11:
		_ = s.Requeue(pick(), now)
	case 12:
		_ = s.Suspend(pick(), now)
		_ = s.Resume(pick(), now)
	case 13:
		_ = s.Update(pick(), Update{TimeLimit: time.Duration(1+r.IntN(120)) * time.Minute}, now)
	case 14:
		// an allocation made on the cluster behind the scheduler's back
		c, id := s.Cluster(), selectnodes.JobID(1_000_000+r.IntN(3))
		if c.Release(id) != nil {
			if p, ok := c.Probe(&selectnodes.Request{MinNodes: 1}, selectnodes.RunNow); ok {
				require.NoError(t, c.Allocate(id, p, now, now.Add(time.Duration(1+r.IntN(90))*time.Minute)))
			}
		}
	}
	require.NoError(t, s.Cluster().CheckInvariants())
}

// TestKeptProfileFoldsAndDropsBoundaries checks the two ways a kept
// profile loses slots: time passing (slots before now fold into slot 0)
// and a reservation given back (its boundaries go when nothing else
// references them).
func TestKeptProfileFoldsAndDropsBoundaries(t *testing.T) {
	s := simple(t)
	running := submit(t, s, nodes(8, 60*time.Minute), at(0))
	require.Len(t, s.Schedule(at(0)), 1)
	blocked := submit(t, s, nodes(4, 30*time.Minute), at(0))
	_, resv := s.Backfill(at(0))
	require.Len(t, resv, 1)
	requireKeptEqualsRebuilt(t, s, at(0), "reserved")
	require.Equal(t, []int64{at(0).UnixNano(), at(60).UnixNano(), at(90).UnixNano()}, s.kept.pr.at)

	// the running job ends early: its end is no boundary any more, and
	// the blocked job's reservation moves to now
	require.NoError(t, s.Finish(running, Outcome{}, at(10)))
	require.NoError(t, s.Cancel(blocked, at(10)))
	requireKeptEqualsRebuilt(t, s, at(10), "ended")
	require.Equal(t, []int64{at(10).UnixNano()}, s.kept.pr.at)
	require.True(t, slices.Equal(s.kept.pr.free[0].Words(), simpleFull()), "all free")
}

func simpleFull() []uint64 { return []uint64{0xff} }

// Slots a regrid drops are reused by later splits and regrids, and a set
// or a mark slice is never in two places at once: in two slots, or in a
// slot and the spares (each pass's kept profile also equals a rebuilt
// one, TestKeptProfileEqualsRebuilt).
func TestSpareSlotsAreReusedUnshared(t *testing.T) {
	// a dropped boundary's slot is a spare; a split takes it, as a copy
	freeAt := []time.Time{at(30), at(60), t0, t0}
	p := newProfile(t0, freeAt, nil, time.Minute, nil, &bfBuffers{})
	require.Len(t, p.at, 3)
	dropped := p.free[1]
	p.regrid(t0, []slotTime{{at: at(60).UnixNano(), t: at(60)}})
	require.Equal(t, []*bitset.BitSet{dropped}, p.spareSets)
	i := p.split(at(45))
	require.Same(t, dropped, p.free[i], "the spare")
	require.True(t, p.free[i].Equal(p.free[i-1]), "a copy of the slot split")
	require.Empty(t, p.spareSets)

	s := New(cluster(t, onesConf(16)))
	r := rand.New(rand.NewPCG(41, 7))
	t.Logf("seed 41")
	now := t0
	for step := range 400 {
		now = now.Add(time.Duration(r.IntN(400)) * time.Second)
		keptEvent(t, s, r, 16, now)
		if s.kept != nil {
			requireUnshared(t, s.kept.pr, fmt.Sprintf("step %d", step))
		}
	}
}

// requireUnshared checks that no set or marks slice of p is in two slots,
// or in a slot and the spares.
func requireUnshared(t *testing.T, p *profile, msg string) {
	t.Helper()
	sets := map[*bitset.BitSet]bool{}
	marks := map[*uint64]bool{}
	add := func(f *bitset.BitSet, m []uint64, what string, i int) {
		require.False(t, sets[f], "%s: %s %d's set is held twice", msg, what, i)
		sets[f] = true
		if len(m) > 0 {
			require.False(t, marks[&m[0]], "%s: %s %d's marks are held twice", msg, what, i)
			marks[&m[0]] = true
		}
	}
	for i := range p.free {
		add(p.free[i], p.changed[i], "slot", i)
	}
	for i := range p.spareSets {
		add(p.spareSets[i], p.spareMarks[i], "spare", i)
	}
}
