package sim

import (
	"math/rand/v2"
	"testing"
	"time"
)

// wallSub is Sub for times a replay makes, the epoch moved by Add: epochs
// in UTC, in a zone, with a monotonic reading (time.Now), at the ends of
// the years; durations small, large, negative and near the 2^33 s where
// wallSub hands over to Sub (random, seed logged).
func TestWallSubIsSub(t *testing.T) {
	seed := rand.Uint64()
	t.Logf("seed %d", seed)
	r := rand.New(rand.NewPCG(seed, 9))
	epochs := []time.Time{time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC), time.Unix(823000000, 0),
		time.Now(), time.Date(1996, 5, 1, 3, 0, 0, 7, time.FixedZone("x", 5*3600)), {},
		time.Date(2261, 12, 31, 0, 0, 0, 0, time.UTC), time.Date(1678, 1, 1, 0, 0, 0, 0, time.UTC)}
	edge := time.Duration(1<<33) * time.Second
	dur := func() time.Duration {
		switch r.IntN(5) {
		case 0:
			return time.Duration(r.Int64N(1 << 40))
		case 1:
			return edge + time.Duration(r.Int64N(3e9)-15e8)
		case 2:
			return -time.Duration(r.Int64N(1 << 62))
		case 3:
			return time.Duration(r.Int64())
		}
		return time.Duration(r.Int64N(1<<32)) * time.Second
	}
	for range 20000 {
		e := epochs[r.IntN(len(epochs))]
		a, b := e.Add(dur()), e.Add(dur())
		if r.IntN(4) == 0 {
			b = a.Add(dur())
		}
		if got, want := wallSub(a, b), a.Sub(b); got != want {
			t.Fatalf("wallSub(%v, %v) = %v, want %v", a, b, got, want)
		}
	}
}
