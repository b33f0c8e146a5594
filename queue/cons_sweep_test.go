package queue

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/bits-and-blooms/bitset"
	"github.com/stretchr/testify/require"
)

// TestUsableSweepMatchesEach: on random profiles (nodes free and busy in
// runs across slots, a reservation of the job's own on some of them),
// the one-pass sweep counts what hasRun node by node counts, for every
// limit, from now or from inside a slot, with the horizon before, inside
// and past the slots.
func TestUsableSweepMatchesEach(t *testing.T) {
	for seed := uint64(1); seed <= 40; seed++ {
		t.Logf("seed %d", seed)
		r := rand.New(rand.NewPCG(seed, 9))
		n := []int{2, 40, 64, 100, 200}[seed%5]
		p := &profile{}
		slots := 1 + r.IntN(30)
		at := t0
		for i := 0; i < slots; i++ {
			p.times, p.at = append(p.times, at), append(p.at, at.UnixNano())
			f := bitset.New(uint(n))
			for k := 0; k < n; k++ {
				busy := i > 0 && !p.free[i-1].Test(uint(k))
				if r.IntN(4) == 0 {
					busy = !busy // runs of a few slots
				}
				if !busy {
					f.Set(uint(k))
				}
			}
			p.free = append(p.free, f)
			at = at.Add(time.Duration(1+r.IntN(40)) * time.Minute)
		}
		for iter := 0; iter < 60; iter++ {
			gained := randomNodes(r, n, 1+r.IntN(n))
			own := &reservation{nodes: randomNodes(r, n, r.IntN(n/2+1))}
			s := p.times[r.IntN(slots)].Add(time.Duration(r.IntN(20)) * time.Minute)
			own.Start, own.End = s, s.Add(time.Duration(r.IntN(200))*time.Minute)
			b := &bfRun{pr: p, nowAt: p.at[0], pass: &bfPass{}}
			if r.IntN(3) == 0 {
				b.nowAt += int64(r.IntN(90)) * int64(time.Minute)
			}
			horizon := b.nowAt + int64(r.IntN(int(at.Sub(t0)/time.Minute)+60))*int64(time.Minute)
			d := time.Duration(1+r.IntN(300)) * time.Minute
			for _, limit := range []int{0, 1, 3, n / 2, n} {
				want := b.usableEach(gained, own, d, horizon, limit)
				got := b.usableSweep(gained, own, d, horizon, limit)
				require.Equal(t, want, got, "seed %d iter %d limit %d d %v", seed, iter, limit, d)
			}
		}
	}
}
