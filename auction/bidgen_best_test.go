package auction

import (
	"cmp"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/hpcsched/hpcsched/internal/testseed"
	"github.com/stretchr/testify/require"
)

// sortedWindows is bestWindows as it was: every stretch that holds the
// job, stably sorted by spare cores, the first windowsPerRun kept.
func sortedWindows(job WindowJob, run []int, room []int) [][2]int {
	var wins []window
	for lo := range run {
		for hi := lo + 1; hi <= len(run); hi++ {
			if job.Nodes > 0 && hi-lo != job.Nodes {
				continue
			}
			sum := 0
			for _, n := range run[lo:hi] {
				sum += room[n]
			}
			if sum >= job.Cores && (job.Nodes > 0 || sum-room[run[hi-1]] < job.Cores) {
				wins = append(wins, window{lo, hi, sum - job.Cores})
			}
		}
	}
	slices.SortStableFunc(wins, func(a, b window) int { return cmp.Compare(a.spare, b.spare) })
	out := make([][2]int, 0, windowsPerRun)
	for _, w := range wins[:min(windowsPerRun, len(wins))] {
		out = append(out, [2]int{w.lo, w.hi})
	}
	return out
}

// bestWindows keeps what sorting every stretch kept, ties and all, on
// random runs (few distinct rooms, so spare cores often tie).
func TestBestWindowsAsSorted(t *testing.T) {
	seed := testseed.Draw(t)
	rng := rand.New(rand.NewPCG(seed, 31))
	for range 3000 {
		n := 1 + rng.IntN(30)
		room := make([]int, n)
		run := make([]int, n)
		for i := range n {
			room[i], run[i] = 1+rng.IntN(4), i
		}
		job := WindowJob{Cores: 1 + rng.IntN(3*n)}
		if rng.IntN(2) == 0 {
			job.Nodes = 1 + rng.IntN(n)
			job.Cores = max(job.Cores, job.Nodes)
		}
		require.Equal(t, sortedWindows(job, run, room), bestWindows(job, run, room), "job %+v room %v", job, room)
	}
}
