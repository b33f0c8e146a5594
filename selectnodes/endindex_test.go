package selectnodes

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/google/btree"
	"github.com/hpcsched/hpcsched/internal/testseed"
)

// oldEndLess is the end index's order as first written: Time.Compare,
// then the ID. The index must keep exactly this order.
func oldEndLess(a, b endKey) bool {
	if c := a.end.Compare(b.end); c != 0 {
		return c < 0
	}
	return a.id < b.id
}

// randomEnd draws ends that exercise every way two ends compare: equal
// instants, equal seconds, other locations, monotonic readings, and far
// ends whose Unix seconds the integer keys cannot hold.
// Without far, the ends are all ones the integer keys order.
func randomEnd(r *rand.Rand, mono time.Time, far bool) time.Time {
	base := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)
	t := base.Add(time.Duration(r.IntN(40)) * time.Minute)
	if r.IntN(3) == 0 {
		t = t.Add(time.Duration(r.IntN(3)) * time.Nanosecond)
	}
	if r.IntN(12) == 0 {
		return t.In(time.FixedZone("x", 3600))
	}
	if !far {
		return t
	}
	switch r.IntN(12) {
	case 1:
		return mono.Add(time.Duration(r.IntN(40)) * time.Minute) // with a monotonic reading
	case 2:
		return time.Unix(1<<62+int64(r.IntN(3)), int64(r.IntN(2)))
	case 3:
		return time.Unix(-1<<62-int64(r.IntN(3)), 0)
	case 4:
		return time.Time{}
	case 5: // seconds past what Time holds: Compare puts it before year 1, Unix wraps it to the latest
		return time.Unix(math.MaxInt64-int64(r.IntN(3)), 0)
	}
	return t
}

func sameKeys(t *testing.T, what string, got *endIndex, want *btree.BTreeG[endKey]) {
	t.Helper()
	var g, w []endKey
	got.Ascend(func(k endKey) bool { g = append(g, k); return true })
	want.Ascend(func(k endKey) bool { w = append(w, k); return true })
	if got.Len() != want.Len() || len(g) != len(w) {
		t.Fatalf("%s: %d keys (Len %d), want %d", what, len(g), got.Len(), len(w))
	}
	for i := range g {
		if g[i].id != w[i].id || g[i].p != w[i].p || g[i].end != w[i].end {
			t.Fatalf("%s: key %d is job %d at %v, want job %d at %v", what, i, g[i].id, g[i].end, w[i].id, w[i].end)
		}
	}
	n := 0
	got.Descend(func(k endKey) bool {
		if k.id != w[len(w)-1-n].id || k.end != w[len(w)-1-n].end {
			t.Fatalf("%s: Descend's key %d is job %d, want %d", what, n, k.id, w[len(w)-1-n].id)
		}
		n++
		return n < len(w)/2+1 // stops early, as EASY's plan does
	})
}

// The end index (a sorted slice below a few hundred keys, a B-tree
// above) answers as a B-tree in the old order would, over random inserts,
// replacements, deletes, lookups and clones that cross the bounds between
// its two forms both ways.
func TestEndIndexMatchesTheOldOrder(t *testing.T) {
	seed := testseed.Draw(t)
	r := rand.New(rand.NewPCG(seed, 0))
	mono := time.Now()
	places := []*Placement{{}, {}, {}}
	var x endIndex
	ref := btree.NewG(8, oldEndLess)
	var clone, copied endIndex
	var refClone *btree.BTreeG[endKey]
	wasTree, backToSlice := false, false
	steps := 6000
	if testing.Short() {
		steps = 3000
	}
	for step := range steps {
		grow := step%1500 < 500 // phases that fill past endSliceMax and drain below endSliceMin
		far := step/1500%2 == 1 // cycles with ends only Compare orders, and without
		k := newEndKey(randomEnd(r, mono, far), JobID(r.IntN(600)), places[r.IntN(len(places))])
		switch op := r.IntN(10); {
		case op < 8 && grow || op < 2:
			x.ReplaceOrInsert(k)
			ref.ReplaceOrInsert(k)
		case op < 9:
			if ref.Len() > 0 && r.IntN(4) > 0 { // mostly a key present
				var keys []endKey
				ref.Ascend(func(k endKey) bool { keys = append(keys, k); return true })
				k = keys[r.IntN(len(keys))]
				k = newEndKey(k.end, k.id, nil)
			}
			x.Delete(k)
			ref.Delete(k)
		default:
			g, gok := x.Get(k)
			w, wok := ref.Get(k)
			if gok != wok || g.p != w.p || g.end != w.end {
				t.Fatalf("step %d: Get(job %d at %v) = %v %v, want %v %v", step, k.id, k.end, g.end, gok, w.end, wok)
			}
		}
		if step%50 == 0 {
			if refClone != nil {
				sameKeys(t, "a clone, after its source changed", &clone, refClone)
				sameKeys(t, "a copy, after its source changed", &copied, refClone)
			}
			clone, copied, refClone = x.Clone(), x.Copy(), ref.Clone()
		}
		if x.tree != nil {
			wasTree = true
		} else if wasTree {
			backToSlice = true
		}
		if step%10 == 0 {
			sameKeys(t, "the index", &x, ref)
		}
	}
	sameKeys(t, "the index at the end", &x, ref)
	if !wasTree || !backToSlice {
		t.Fatalf("the run did not cross both bounds (into a B-tree %v, back %v)", wasTree, backToSlice)
	}
}
