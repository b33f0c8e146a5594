package auction

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/hpcsched/hpcsched/internal/testseed"
	"github.com/stretchr/testify/require"
)

// fractionalScan is the bound over a plain order, stepping over the
// decided jobs (k < d): what fractional over an openOrder must equal.
func (q *quickSearch) fractionalScan(order []int, d, cores, gpus int, byCores bool, base, target float64) float64 {
	room := gpus
	if byCores {
		room = cores
	}
	sum := 0.0
	for _, k := range order {
		it := q.items[k]
		if k < d || it.cores > cores || it.gpus > gpus {
			continue
		}
		w := it.gpus
		if byCores {
			w = it.cores
		}
		if w <= room {
			room -= w
			sum += it.value
			if base+sum > target {
				return sum
			}
			continue
		}
		return sum + it.value*float64(room)/float64(w)
	}
	return sum
}

// The bound over the list the search takes decided jobs out of is the
// bound over the whole order stepping over them, at every depth going
// down and coming back, and the list is whole again once every job is
// back.
func TestOpenOrderBoundIsTheScan(t *testing.T) {
	seed := testseed.Draw(t)
	rng := rand.New(rand.NewPCG(seed, 43))
	for range 50 {
		n := rng.IntN(30)
		q := &quickSearch{items: make([]item, n)}
		for k := range q.items {
			q.items[k] = item{value: rng.Float64() * 100, cores: rng.IntN(50), gpus: rng.IntN(4)}
		}
		for _, byCores := range []bool{true, false} {
			order := byDensity(q.items, func(it item) int { return it.cores })
			if !byCores {
				order = byDensity(q.items, func(it item) int { return it.gpus })
			}
			o := newOpenOrder(order)
			check := func(d int) {
				for range 5 {
					cores, gpus := rng.IntN(500), rng.IntN(20)
					base, target := rng.Float64()*50, rng.Float64()*400
					if rng.IntN(3) == 0 {
						target = math.Inf(1)
					}
					want := q.fractionalScan(order, d, cores, gpus, byCores, base, target)
					require.Equal(t, want, q.fractional(o, d, cores, gpus, byCores, base, target), "depth %d of %d", d, n)
				}
			}
			for d := range n { // going down
				check(d)
				o.remove(d)
			}
			check(n)
			for d := n - 1; d >= 0; d-- { // coming back
				o.restore(d)
				check(d)
			}
			walk := []int{}
			for x := o.next[o.head()]; x != o.head(); x = o.next[x] {
				walk = append(walk, o.order[x])
			}
			require.Equal(t, order, walk)
		}
	}
}
