package auction

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/hpcsched/hpcsched/internal/testseed"
	"github.com/stretchr/testify/require"
)

// reducedAbove says what reduced > floor says, with reduced's value when
// it is above, at random prices (some zero, some huge) and floors, on
// random problems and the paper's generated windows.
func TestReducedAboveAsReduced(t *testing.T) {
	seed := testseed.Draw(t)
	rng := rand.New(rand.NewPCG(seed, 13))
	check := func(p *Problem) {
		t.Helper()
		m := buildModel(p)
		s := newSolver(context.Background(), m, Options{}.withDefaults(len(m.jobs), false))
		for range 5 {
			for r := range s.price {
				switch rng.IntN(4) {
				case 0:
					s.price[r] = 0
				case 1:
					s.price[r] = rng.Float64() * 1e6
				default:
					s.price[r] = rng.Float64()
				}
			}
			for b := range int32(len(m.value)) {
				want := s.reduced(b)
				for _, floor := range []float64{0, want, math.Nextafter(want, math.Inf(-1)), want - rng.Float64(), m.value[b] * rng.Float64()} {
					v, ok := s.reducedAbove(b, floor)
					require.Equal(t, want > floor, ok, "bid %d, floor %v", b, floor)
					if ok {
						require.Equal(t, math.Float64bits(want), math.Float64bits(v))
					}
				}
			}
		}
	}
	rounds := 100
	if testing.Short() {
		rounds = 40
	}
	for k := range rounds {
		check(randomProblem(rng))
		if k%20 == 0 {
			p, err := GenerateWindow(WindowSpec{Jobs: 10 + rng.IntN(40), Bids: 1 + rng.IntN(10), Seed: rng.Uint64()})
			require.NoError(t, err)
			check(p)
		}
	}
}
