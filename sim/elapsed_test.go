package sim

import (
	"cmp"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/hpcsched/hpcsched/internal/testseed"
	"github.com/hpcsched/hpcsched/queue"
)

// wallSub is Sub, and wallBefore Before, for times a replay makes, the epoch moved by Add: epochs
// in UTC, in a zone, with a monotonic reading (time.Now), at the ends of
// the years; durations small, large, negative and near the 2^33 s where
// wallSub hands over to Sub (random, seed logged).
func TestWallSubIsSub(t *testing.T) {
	seed := testseed.Draw(t)
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
		if r.IntN(8) == 0 {
			b = a // equal times
		}
		if wallBefore(a, b) != a.Before(b) || wallBefore(b, a) != b.Before(a) {
			t.Fatalf("wallBefore(%v, %v) = %v, Before %v", a, b, wallBefore(a, b), a.Before(b))
		}
	}
}

// The end events pop in the order of their times, then IDs, as a sort by
// Compare gives it: random times of one replay (many in one second, many
// equal), seed logged.
func TestEndHeapPopsInTimeOrder(t *testing.T) {
	seed := testseed.Draw(t)
	r := rand.New(rand.NewPCG(seed, 11))
	epoch := time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)
	for round := range 200 {
		var h endHeap
		var all []endEvent
		for k := range 1 + r.IntN(60) {
			at := epoch.Add(time.Duration(r.IntN(4))*time.Second + time.Duration(r.IntN(3))*time.Nanosecond*time.Duration(1+r.IntN(400000000)))
			e := endEvent{at: at, id: queue.JobID(r.IntN(20)*100 + k)}
			all = append(all, e)
			h.push(e)
			if r.IntN(5) == 0 { // pops between pushes, as a replay does
				top := h.pop()
				all = slices.DeleteFunc(all, func(x endEvent) bool { return x == top })
				for _, x := range all {
					if c := x.at.Compare(top.at); c < 0 || c == 0 && x.id < top.id {
						t.Fatalf("round %d: popped %v before %v", round, top, x)
					}
				}
			}
		}
		slices.SortFunc(all, func(a, b endEvent) int {
			if c := a.at.Compare(b.at); c != 0 {
				return c
			}
			return cmp.Compare(a.id, b.id)
		})
		for _, want := range all {
			if got := h.pop(); got != want {
				t.Fatalf("round %d: popped %v, want %v", round, got, want)
			}
		}
	}
}
