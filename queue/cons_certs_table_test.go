package queue

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// The certificate table answers as a map under random sets, deletes and
// walks: IDs mostly in a window moving up, some below it and some far
// past it, a walk deleting some of what it meets.
func TestCertTableIsAMap(t *testing.T) {
	for seed := uint64(1); seed <= 8; seed++ {
		t.Logf("seed %d", seed)
		r := rand.New(rand.NewPCG(seed, 41))
		var tab certTable
		want := map[JobID]*skipCert{}
		lo := JobID(1 + r.IntN(1000))
		for step := range 4000 {
			id := lo + JobID(r.IntN(60))
			switch r.IntN(20) {
			case 0:
				id = lo - JobID(1+r.IntN(int(min(lo, 50)))) // below the window
			case 1:
				id = lo + JobID(3000+r.IntN(5000)) // far past it
			}
			switch op := r.IntN(10); {
			case op < 4:
				c := &skipCert{seq: uint64(step)}
				tab.set(id, c)
				want[id] = c
			case op < 8:
				tab.del(id)
				delete(want, id)
			case op < 9:
				lo += JobID(r.IntN(8)) // the oldest start
			default:
				seen := map[JobID]bool{}
				tab.each(func(id JobID, c *skipCert) {
					require.False(t, seen[id], "seed %d step %d: job %d met twice", seed, step, id)
					seen[id] = true
					require.Same(t, want[id], c, "seed %d step %d: job %d", seed, step, id)
					if r.IntN(3) == 0 {
						tab.del(id)
						delete(want, id)
					}
				})
				for id := range want {
					require.True(t, seen[id], "seed %d step %d: job %d not met", seed, step, id)
				}
			}
			require.Equal(t, len(want), tab.n, "seed %d step %d", seed, step)
			for k := id - 70; k < id+70; k++ {
				if want[k] != tab.get(k) {
					t.Fatalf("seed %d step %d: job %d: %p, as a map %p", seed, step, k, tab.get(k), want[k])
				}
			}
		}
	}
}
