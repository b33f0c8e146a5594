package auction

import (
	"math/rand/v2"
	"testing"

	"github.com/bits-and-blooms/bitset"
	"github.com/hpcsched/hpcsched/internal/testseed"
	"github.com/stretchr/testify/require"
)

// A run whose room in all is short of a job's cores has no stretch that
// holds it (so bid generation skips it unread): bestWindows finds none
// there, for random runs, rooms and jobs of both kinds, whole nodes or
// not; and it finds some on runs of enough room often enough for the
// check to mean something.
func TestBestWindowsNoneOnShortRuns(t *testing.T) {
	seed := testseed.Draw(t)
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

// eligibleRuns' room on each run is the sum of the room on its nodes,
// for random loads, GPU counts and eligible nodes.
func TestEligibleRunsRooms(t *testing.T) {
	seed := testseed.Draw(t)
	rng := rand.New(rand.NewPCG(seed, 34))
	for range 300 {
		n := 1 + rng.IntN(60)
		nodes := make([]int, n)
		load := Load{CPUs: make([]int, n), GPUs: make([]int, n)}
		room := make([]int, n)
		for k := range nodes {
			nodes[k] = k
			load.CPUs[k], load.GPUs[k] = rng.IntN(17), rng.IntN(4)
			room[k] = rng.IntN(load.CPUs[k] + 1)
		}
		job := WindowJob{Cores: 1}
		if rng.IntN(2) == 0 {
			job.Eligible = bitset.New(uint(n))
			for k := range n {
				if rng.IntN(4) > 0 {
					job.Eligible.Set(uint(k))
				}
			}
		}
		runs, rooms := eligibleRuns(&job, nodes, load, room, rng.IntN(3))
		require.Len(t, rooms, len(runs))
		for x, run := range runs {
			sum := 0
			for _, v := range run {
				sum += room[v]
			}
			require.Equal(t, sum, rooms[x])
		}
	}
}
