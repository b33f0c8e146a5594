package queue

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/bits-and-blooms/bitset"
	"github.com/stretchr/testify/require"
)

// naiveWindow is what profile.window must equal: the intersection of
// every slot's free nodes in [times[i], times[i]+d).
func naiveWindow(p *profile, i int, d time.Duration) *bitset.BitSet {
	w := p.free[i].Clone()
	end := p.times[i].Add(d)
	for j := i + 1; j < len(p.times) && p.times[j].Before(end); j++ {
		w.InPlaceIntersection(p.free[j])
	}
	return w
}

// randomNodes is a set of k random nodes of n (k small or large, so both
// the node-by-node and the word-wise paths of take and give run).
func randomNodes(r *rand.Rand, n, k int) *bitset.BitSet {
	b := bitset.New(uint(n))
	for range k {
		b.Set(uint(r.IntN(n)))
	}
	return b
}

// TestProfileWindowMatchesIntersection drives random profiles through
// takes and gives and checks, after every step, that each slot's count
// is its free set's size, that the changed-word marks cover every word
// that differs from the slot before (so window, which reads only those,
// is exact), and that window equals the plain intersection.
func TestProfileWindowMatchesIntersection(t *testing.T) {
	for seed := uint64(1); seed <= 30; seed++ {
		r := rand.New(rand.NewPCG(seed, 11))
		n := []int{5, 64, 130, 700}[seed%4]
		freeAt := make([]time.Time, n)
		for i := range freeAt {
			if r.IntN(3) > 0 {
				freeAt[i] = t0.Add(time.Duration(r.IntN(600)) * time.Minute)
			}
		}
		never := randomNodes(r, n, r.IntN(3))
		var extra []time.Time
		for range r.IntN(5) {
			extra = append(extra, t0.Add(time.Duration(r.IntN(900))*time.Second*7))
		}
		p := newProfile(t0, freeAt, never, time.Minute, extra, &bfBuffers{})
		type held struct {
			nodes      *bitset.BitSet
			start, end time.Time
		}
		var taken []held
		for step := range 40 {
			if len(taken) > 0 && r.IntN(3) == 0 {
				k := r.IntN(len(taken))
				h := taken[k]
				p.give(h.nodes, h.start, h.end)
				taken = append(taken[:k], taken[k+1:]...)
			} else {
				k := 1 + r.IntN(3)
				if r.IntN(4) == 0 {
					k = n / 2
				}
				// take only nodes free for the whole interval, as Backfill does
				start := p.times[r.IntN(len(p.times))].Add(time.Duration(r.IntN(3)) * 17 * time.Second)
				d := time.Duration(1+r.IntN(300)) * time.Minute
				i := p.split(start)
				w := bitset.New(uint(n))
				p.window(i, d, w)
				nodes := randomNodes(r, n, k).Intersection(w)
				p.take(nodes, start, start.Add(d))
				taken = append(taken, held{nodes, start, start.Add(d)})
			}
			checkProfile(t, p, r, seed, step)
		}
	}
}

func checkProfile(t *testing.T, p *profile, r *rand.Rand, seed uint64, step int) {
	t.Helper()
	require.Len(t, p.at, len(p.times))
	for s := range p.times {
		require.Equal(t, p.times[s].UnixNano(), p.at[s], "seed %d step %d slot %d", seed, step, s)
		require.Equal(t, int(p.free[s].Count()), p.count[s], "seed %d step %d slot %d: count", seed, step, s)
		if s == 0 {
			continue
		}
		require.True(t, p.times[s].After(p.times[s-1]), "seed %d step %d: slots in order", seed, step)
		prev, cur := p.free[s-1].Words(), p.free[s].Words()
		for k := range cur {
			if cur[k] != prev[k] {
				require.NotZero(t, p.changed[s][k/64]&(1<<(k%64)), "seed %d step %d slot %d word %d: unmarked change", seed, step, s, k)
			}
		}
	}
	checkBlocks(t, p, seed, step)
	w := bitset.New(p.free[0].Len())
	for range 5 {
		i := r.IntN(len(p.times))
		d := time.Duration(1+r.IntN(400)) * time.Minute
		p.window(i, d, w)
		require.True(t, naiveWindow(p, i, d).Equal(w), "seed %d step %d: window at slot %d for %v", seed, step, i, d)
	}
}

// checkBlocks checks that every stored block intersection is the plain
// intersection of the free sets of the block's slots, and that no empty
// block is stored.
func checkBlocks(t *testing.T, p *profile, seed uint64, step int) {
	t.Helper()
	for blk, and := range p.blocks.and {
		var want *bitset.BitSet
		for s := range p.at {
			if p.blocks.block(p.at[s]) != blk {
				continue
			}
			if want == nil {
				want = p.free[s].Clone()
			} else {
				want.InPlaceIntersection(p.free[s])
			}
		}
		require.NotNil(t, want, "seed %d step %d: block %d stored without a slot", seed, step, blk)
		require.Equal(t, want.Words(), and, "seed %d step %d: block %d", seed, step, blk)
	}
}

// TestMergeTimesKeepsFirstValue checks that merging boundaries keeps the
// profile's own value of an instant and the first of repeated extras, as
// splitting in that order would.
func TestMergeTimesKeepsFirstValue(t *testing.T) {
	utc := t0.Add(time.Hour)
	other := utc.In(time.FixedZone("X", 3600)) // the same instant, another location
	got := mergeTimes([]time.Time{t0, utc}, []time.Time{t0.Add(3 * time.Hour), other, t0.Add(2 * time.Hour), t0.Add(2 * time.Hour).In(time.FixedZone("Y", 7200))})
	require.Len(t, got, 4)
	require.Equal(t, utc.Location(), got[1].Location(), "the profile's value stands")
	require.Equal(t, time.UTC, got[2].Location(), "the first extra stands")
	require.True(t, got[3].Equal(t0.Add(3*time.Hour)))
}
