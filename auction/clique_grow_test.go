package auction

import (
	"cmp"
	"math/bits"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/hpcsched/hpcsched/internal/testseed"
	"github.com/stretchr/testify/require"
)

// growClique's one walk of the bids by value picks the members a scan of
// every candidate for the best value picks, in the same order, from
// every conflicting pair of random problems (some with many bids of one
// value, so that ties decide) and of the paper's generated windows.
func TestGrowCliqueAsByScan(t *testing.T) {
	seed := testseed.Draw(t)
	rng := rand.New(rand.NewPCG(seed, 14))
	check := func(p *Problem) {
		t.Helper()
		m := buildModel(p)
		adj := m.conflictGraph()
		order := make([]int32, len(m.value))
		for b := range order {
			order[b] = int32(b)
		}
		slices.SortStableFunc(order, func(a, b int32) int { return cmp.Compare(m.value[b], m.value[a]) })
		cand := make([]uint64, adj.words)
		for u := range int32(len(m.value)) {
			ru := adj.row(u)
			for w, word := range ru {
				for ; word != 0; word &= word - 1 {
					v := int32(w*64 + bits.TrailingZeros64(word))
					want := m.growCliqueByScan(adj, cand, u, v)
					got := m.growClique(adj, cand, order, u, v)
					require.Equal(t, want, got, "pair %d-%d", u, v)
					require.Equal(t, make([]uint64, len(cand)), cand, "cand left cleared")
				}
			}
		}
	}
	rounds := 60
	if testing.Short() {
		rounds = 20
	}
	for k := range rounds {
		p := randomProblem(rng)
		if k%3 == 0 { // ties: every job of one priority, every bid of one cost
			for j := range p.Jobs {
				p.Jobs[j].Priority = 1
				for i := range p.Jobs[j].Bids {
					p.Jobs[j].Bids[i].Cost = 0
				}
			}
			p.Alpha = 0.1
		}
		check(p)
		if k%20 == 0 {
			q, err := GenerateWindow(WindowSpec{Jobs: 10 + rng.IntN(30), Bids: 1 + rng.IntN(8), Seed: rng.Uint64()})
			require.NoError(t, err)
			check(q)
		}
	}
}

// growCliqueByScan is growClique as it was: each pick found by a scan of
// every candidate.
func (m *model) growCliqueByScan(adj bitrows, cand []uint64, u, v int32) []int32 {
	ru, rv := adj.row(u), adj.row(v)
	for w := range cand {
		cand[w] = ru[w] & rv[w]
	}
	clique := []int32{u, v}
	for {
		pick := int32(-1)
		for w, word := range cand {
			for word != 0 {
				b := int32(w*64 + bits.TrailingZeros64(word))
				word &= word - 1
				if pick < 0 || m.value[b] > m.value[pick] {
					pick = b
				}
			}
		}
		if pick < 0 {
			return clique
		}
		clique = append(clique, pick)
		rp := adj.row(pick)
		for w := range cand {
			cand[w] &= rp[w]
		}
	}
}
