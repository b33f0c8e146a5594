package auction

import (
	"cmp"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/hpcsched/hpcsched/internal/testseed"
	"github.com/stretchr/testify/require"
)

// Ranking by spans' prefix sums keeps what counting every use of every
// candidate kept, candidates laid out or not, of consecutive nodes or not.
func TestRankAsCounted(t *testing.T) {
	seed := testseed.Draw(t)
	rng := rand.New(rand.NewPCG(seed, 37))
	const n = 64
	nodes := make([]int, n)
	for i := range nodes {
		nodes[i] = i
	}
	for range 300 {
		cands := make([][]candidate, 1+rng.IntN(6))
		for j := range cands {
			for range rng.IntN(12) {
				lo := rng.IntN(n)
				c := candidate{stretch: nodes[lo : lo+1+rng.IntN(min(8, n-lo))], level: rng.IntN(3)}
				switch rng.IntN(3) {
				case 0: // laid out: the stretch
					for _, i := range c.stretch {
						c.uses = append(c.uses, Use{Node: i})
					}
				case 1: // laid out, not consecutive
					for _, i := range rng.Perm(n)[:1+rng.IntN(5)] {
						c.uses = append(c.uses, Use{Node: i})
					}
				}
				cands[j] = append(cands[j], c)
			}
		}
		count := make([]int, n)
		for _, cs := range cands {
			for k := range cs {
				cs[k].eachNode(func(i int) { count[i]++ })
			}
		}
		ct := newContention(cands, n)
		for _, cs := range cands {
			want := slices.Clone(cs)
			for k := range want {
				want[k].eachNode(func(i int) { want[k].contention += count[i] })
			}
			slices.SortStableFunc(want, func(a, b candidate) int {
				return cmp.Or(cmp.Compare(a.level, b.level), cmp.Compare(a.contention, b.contention), cmp.Compare(a.size(), b.size()))
			})
			limit := 1 + rng.IntN(6)
			require.Equal(t, want[:min(limit, len(want))], rank(slices.Clone(cs), ct, limit))
		}
	}
}
