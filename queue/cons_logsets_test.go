package queue

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/bits-and-blooms/bitset"
	"github.com/stretchr/testify/require"
)

// requireLogSetsUnshared checks that the node sets the change log reuses
// (see logSet) are held by one entry at most, and a spare one by none.
func requireLogSetsUnshared(t *testing.T, l *skipLog, msg string) {
	t.Helper()
	held := map[*bitset.BitSet]bool{}
	for _, e := range l.entries {
		if e.own {
			if held[e.nodes] {
				t.Fatalf("%s: an entry's own set held twice", msg)
			}
			held[e.nodes] = true
		}
	}
	for _, b := range l.spare {
		if held[b] {
			t.Fatalf("%s: a spare set still held by an entry", msg)
		}
	}
}

// Replays with jobs that end early keep the change log long enough to be
// pruned and started over: the sets of the entries dropped are reused,
// never while an entry still holds them.
func TestLogSetsAreReusedUnshared(t *testing.T) {
	reused := 0
	for seed := uint64(1); seed <= 3; seed++ {
		t.Logf("seed %d", seed)
		r := rand.New(rand.NewPCG(seed, 17))
		n := 32
		s := New(cluster(t, fmt.Sprintf("NodeName=n[0-%d] CPUs=1\nPartitionName=batch Nodes=ALL Default=YES\n", n-1)))
		now := t0
		var running []JobID
		for step := range 600 {
			now = now.Add(time.Duration(1+r.IntN(300)) * time.Second)
			if len(running) > 0 && r.IntN(2) == 0 {
				k := r.IntN(len(running))
				require.NoError(t, s.Finish(running[k], Outcome{Kind: Completed}, now))
				running = append(running[:k], running[k+1:]...)
			} else {
				submit(t, s, nodes(1+r.IntN(n/3), time.Duration(1+r.IntN(120))*time.Minute), now)
			}
			for _, st := range append(s.Schedule(now), s.BackfillStarts(now)...) {
				running = append(running, st.Job)
			}
			if s.kept != nil {
				l := s.kept.skip
				requireLogSetsUnshared(t, l, fmt.Sprintf("seed %d step %d", seed, step))
				if len(l.spare) > 0 {
					reused++
				}
			}
		}
	}
	require.Positive(t, reused, "no set was ever spare")
}

// A prune that keeps some of the log's own entries (a certificate older
// than them stands) spares only the sets of the entries it drops, and the
// sets logSet hands out afterwards are none an entry holds.
func TestPruneSparesOnlyDroppedSets(t *testing.T) {
	l := newSkipLog()
	for i := range pruneAt + 10 {
		b := l.logSet(64, []int{i % 64})
		l.taken(b, int64(i), math.MaxInt64) // (ends after now: kept unless older than every certificate)
		l.owned(b)
	}
	c := &skipCert{seq: l.entries[len(l.entries)*3/4].seq} // (newer than the middle entry)
	l.certs.set(7, c)
	l.prune(0, map[JobID]reservation{7: {}})
	require.NotEmpty(t, l.entries, "entries after the certificate are kept")
	require.NotEmpty(t, l.spare, "entries before it are dropped")
	requireLogSetsUnshared(t, l, "after the prune")
	for i := range 2 * maxSpareSets {
		b := l.logSet(64, []int{i % 64})
		l.taken(b, 0, math.MaxInt64)
		l.owned(b)
		requireLogSetsUnshared(t, l, fmt.Sprintf("set %d after the prune", i))
	}
}

// unionInto is InPlaceUnion, on sets as long and on sets of other
// lengths (random sets, seed logged).
func TestUnionIntoIsInPlaceUnion(t *testing.T) {
	t.Logf("seed 5")
	r := rand.New(rand.NewPCG(5, 8))
	for range 200 {
		a, b := bitset.New(uint(1+r.IntN(200))), bitset.New(uint(1+r.IntN(200)))
		if r.IntN(2) == 0 {
			b = bitset.New(a.Len())
		}
		for range r.IntN(40) {
			a.Set(uint(r.IntN(int(a.Len()))))
			b.Set(uint(r.IntN(int(b.Len()))))
		}
		want := a.Clone()
		want.InPlaceUnion(b)
		unionInto(a, b)
		require.True(t, want.Equal(a), "%v ∪ %v", a, b)
		require.Equal(t, want.Len(), a.Len())
	}
}
