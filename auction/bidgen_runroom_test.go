package auction

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// A run whose room in all is short of a job's cores has no stretch that
// holds it (so bid generation skips it unread): bestWindows finds none
// there, for random runs, rooms and jobs of both kinds, whole nodes or
// not; and it finds some on runs of enough room often enough for the
// check to mean something.
func TestBestWindowsNoneOnShortRuns(t *testing.T) {
	seed := rand.Uint64()
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 32))
	found := 0
	for range 3000 {
		n := 1 + rng.IntN(40)
		run, room := make([]int, n), make([]int, 64)
		first := rng.IntN(64 - n + 1)
		total := 0
		for k := range run {
			run[k] = first + k
			room[run[k]] = rng.IntN(17)
			total += room[run[k]]
		}
		job := WindowJob{Cores: 1 + rng.IntN(300), Whole: rng.IntN(3) == 0}
		if rng.IntN(2) == 0 {
			job.Nodes = 1 + rng.IntN(n+2)
		}
		ws := bestWindows(job, run, room)
		if total < job.Cores {
			require.Empty(t, ws, "run %v, room %v, job %+v", run, room[first:first+n], job)
		}
		found += len(ws)
	}
	require.Positive(t, found)
}
