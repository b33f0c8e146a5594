package auction

import (
	"cmp"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/hpcsched/hpcsched/internal/testseed"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestValueStep(t *testing.T) {
	for _, tt := range []struct {
		name   string
		values []float64
		want   float64
	}{
		{"integers", []float64{3, 1976, 12}, 1},
		{"halves", []float64{1.5, 2}, 0.5},
		{"thirds of 1/1024", []float64{1974.44921875, 1867.9990234375, 1849.6656901041667}, 1.0 / 3072},
		{"none", []float64{0.1}, 0},
		{"irrational", []float64{1, 3.141592653589793}, 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			assert.InDelta(t, tt.want, valueStep(tt.values), 1e-15)
		})
	}
}

// Every clique the model adds is a set of pairwise conflicting bids: a
// valid row. Checked against the capacities directly.
func TestConflictCliquesAreCliques(t *testing.T) {
	p, err := GenerateWindow(WindowSpec{Jobs: 30, Bids: 6, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	m := buildModel(p)
	cliques := m.conflictCliques()
	assert.NotEmpty(t, cliques)
	conflict := func(a, b int32) bool {
		if m.jobOf[a] == m.jobOf[b] {
			return true
		}
		use := map[int]Use{}
		for _, u := range p.Jobs[m.jobs[m.jobOf[a]].orig].Bids[m.origBid[a]].Uses {
			use[u.Node] = u
		}
		for _, u := range p.Jobs[m.jobs[m.jobOf[b]].orig].Bids[m.origBid[b]].Uses {
			if o, ok := use[u.Node]; ok && (o.Cores+u.Cores > p.Nodes[u.Node].CPUs || o.GPUs+u.GPUs > p.Nodes[u.Node].GPUs) {
				return true
			}
		}
		return false
	}
	for _, c := range cliques {
		for i, a := range c {
			for _, b := range c[i+1:] {
				assert.True(t, conflict(a, b), "bids %d and %d do not conflict", a, b)
			}
		}
	}
}

// overfills marks exactly the pairs that overfill the resource, whichever
// way (pair by pair, or prefix sets) it chooses: checked against every
// pair on random resources, from a few small bids (pairwise) to many
// whole-node bids (prefix sets), over bids spread across several words,
// and on resources no pair overfills (it once panicked there).
func TestOverfillsMarksExactlyTheOverfillingPairs(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	for trial := range 400 {
		n := 1 + rng.IntN(300)
		c := int32(1 + rng.IntN(16))
		var us []bidUse
		for b := range int32(n) {
			if rng.IntN(3) > 0 {
				amt := c // a whole node, as the AUCSCHED3 paper's jobs mostly take
				switch {
				case trial%4 == 0: // at most half the resource: no pair overfills
					amt = max(1, c/2)
				case rng.IntN(2) == 0:
					amt = int32(1 + rng.IntN(int(c)))
				}
				us = append(us, bidUse{b, amt})
			}
		}
		slices.SortFunc(us, func(x, y bidUse) int { return cmp.Compare(y.amt, x.amt) })
		got := newBitrows(n)
		overfills(got, us, c, make([]uint64, got.words))
		want := newBitrows(n)
		for i, x := range us {
			for _, y := range us[i+1:] {
				if x.amt+y.amt > c {
					want.set(x.bid, y.bid)
				}
			}
		}
		require.Equal(t, want.bits, got.bits, "trial %d: %d bids, capacity %d", trial, len(us), c)
	}
}

// The conflict graph holds exactly the pairs of bids of one job or that
// overfill some node's cores or GPUs together, checked pair by pair
// against the problem on random windows (and on their merged problems,
// whose resources many bids share).
func TestConflictGraphIsEveryConflictingPair(t *testing.T) {
	seed := testseed.Draw(t)
	rng := rand.New(rand.NewPCG(seed, 31))
	pairs := 0
	// six windows at least, more while they give too few conflicting pairs
	// to mean much (small random windows sometimes do)
	for trial := 0; trial < 6 || pairs <= 1000 && trial < 40; trial++ {
		p, err := GenerateWindow(WindowSpec{Jobs: 10 + rng.IntN(30), Bids: 1 + rng.IntN(8), Seed: rng.Uint64(), Ranges: trial%2 == 1})
		require.NoError(t, err)
		if trial >= 3 {
			if q := mergeNodes(p); q != nil {
				p = q
			}
		}
		m := buildModel(p)
		adj := m.conflictGraph()
		n := int32(len(m.value))
		for a := range n {
			use := map[int]Use{}
			for _, u := range p.Jobs[m.jobs[m.jobOf[a]].orig].Bids[m.origBid[a]].Uses {
				use[u.Node] = u
			}
			for b := range n {
				want := a != b && m.jobOf[a] == m.jobOf[b]
				for _, u := range p.Jobs[m.jobs[m.jobOf[b]].orig].Bids[m.origBid[b]].Uses {
					if o, ok := use[u.Node]; ok && a != b && (o.Cores+u.Cores > p.Nodes[u.Node].CPUs || o.GPUs+u.GPUs > p.Nodes[u.Node].GPUs) {
						want = true
					}
				}
				require.Equal(t, want, adj.has(a, b), "trial %d: bids %d and %d", trial, a, b)
				if want {
					pairs++
				}
			}
		}
	}
	assert.Greater(t, pairs, 1000, "conflicting pairs")
}

// The amount sorter puts a resource's uses largest first, by counting or
// by comparison, each use once.
func TestAmountSorterSortsLargestFirst(t *testing.T) {
	seed := testseed.Draw(t)
	rng := rand.New(rand.NewPCG(seed, 37))
	var s amountSorter
	for trial := range 300 {
		c := int32(1 + rng.IntN([]int{3, 16, 64, 300, 5000}[trial%5]))
		us := make([]bidUse, rng.IntN(200))
		for k := range us {
			us[k] = bidUse{bid: int32(k), amt: 1 + rng.Int32N(c)}
		}
		if trial%7 == 0 && len(us) > 0 {
			us[0].amt = c + 1 // not a use of the resource: sorted all the same
		}
		want := slices.Clone(us)
		slices.SortStableFunc(want, byAmount)
		s.sort(us, c)
		assert.True(t, slices.IsSortedFunc(us, byAmount), "trial %d", trial)
		got := slices.Clone(us)
		slices.SortFunc(got, func(x, y bidUse) int { return cmp.Compare(x.bid, y.bid) })
		slices.SortFunc(want, func(x, y bidUse) int { return cmp.Compare(x.bid, y.bid) })
		require.Equal(t, want, got, "trial %d: the same uses", trial)
	}
}

// setClique marks exactly the pairs of a clique, both ways, as set does
// pair by pair, on random cliques from a few bids (pairwise) to many
// (rows ORed), over matrices already holding other pairs, and leaves
// its scratch cleared.
func TestSetCliqueMarksExactlyItsPairs(t *testing.T) {
	seed := testseed.Draw(t)
	rng := rand.New(rand.NewPCG(seed, 5))
	trials := 200
	if testing.Short() {
		trials = 40
	}
	for range trials {
		n := 1 + rng.IntN(700)
		got, want := newBitrows(n), newBitrows(n)
		for range rng.IntN(3 * n) { // pairs marked before
			a, b := int32(rng.IntN(n)), int32(rng.IntN(n))
			if a != b {
				got.set(a, b)
				want.set(a, b)
			}
		}
		clique := rng.Perm(n)[:min(n, []int{2, 5, 40, 300}[rng.IntN(4)])]
		c := make([]int32, len(clique))
		for k, b := range clique {
			c[k] = int32(b)
		}
		scratch := make([]uint64, got.words)
		got.setClique(c, scratch)
		for i, a := range c {
			for _, b := range c[i+1:] {
				want.set(a, b)
			}
		}
		require.Equal(t, want.bits, got.bits, "clique of %d bids of %d", len(c), n)
		require.Equal(t, make([]uint64, got.words), scratch)
	}
}
