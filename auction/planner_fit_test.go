package auction

import (
	"math/rand/v2"
	"testing"

	"github.com/hpcsched/hpcsched/internal/testseed"
	"github.com/hpcsched/hpcsched/topology"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// On random loads of the AUCSCHED3 paper's system, a job mayBid rules out
// never gets a bid from GenerateBids, whatever its Span (every node, or
// random ones), and the rule does rule some out and keeps others.
func TestMayBidHidesNoBid(t *testing.T) {
	seed := testseed.Draw(t)
	rng := rand.New(rand.NewPCG(seed, 9))
	_, tree := topology.Seed001()
	out, in := 0, 0
	for range 30 {
		load := seed001Load(rng, tree.NodeCount())
		rl := newRunLimits(load)
		spans := randomSpans(rng, tree.NodeCount())
		for k := range 40 {
			job := randomWindowJob(rng, int64(k+1))
			job.Span = spans[rng.IntN(len(spans))]
			if rl.mayBid(job) {
				in++
				continue
			}
			out++
			p, err := GenerateBids([]WindowJob{job}, load, tree, BidOptions{MaxBids: 20})
			require.NoError(t, err)
			assert.Empty(t, p.Jobs[0].Bids, "job %+v", job)
		}
	}
	assert.Positive(t, out)
	assert.Positive(t, in)
}

// randomWindowJob is a job of the AUCSCHED3 paper's types A-E, of up to
// the whole machine.
func randomWindowJob(rng *rand.Rand, id int64) WindowJob {
	j := WindowJob{ID: id, Priority: 1, Cores: 1 + rng.IntN(16384)}
	if rng.IntN(5) > 0 {
		lo := (j.Cores + 15) / 16
		j.Nodes = min(lo+rng.IntN(j.Cores-lo+1), 1024)
		j.Cores = min(j.Cores, 16*j.Nodes)
		j.GPUsMin = rng.IntN(4)
		j.GPUsMax = j.GPUsMin + rng.IntN(4-j.GPUsMin)
	}
	return j
}

// The limits by hand: runs [0,1] and [3,6] (node 2 has no free core),
// node 3 without GPUs.
func TestMayBidStretches(t *testing.T) {
	rl := newRunLimits(Load{CPUs: []int{16, 16, 0, 16, 4, 4, 4}, GPUs: []int{3, 3, 3, 0, 3, 3, 3}})
	for _, tc := range []struct {
		cores, nodes, gpus int
		want               bool
	}{
		{32, 0, 0, true},  // run [0,1]
		{33, 0, 0, false}, // no run has 33 cores free
		{28, 0, 0, true},  // run [3,6]
		{32, 2, 0, true},  // nodes 0-1
		{25, 3, 0, false}, // three nodes: 24 at most (nodes 3-5)
		{24, 3, 0, true},  //
		{12, 3, 1, true},  // with a GPU: nodes 4-6
		{13, 3, 1, false}, //
		{8, 3, 3, true},   //
		{4, 5, 0, false},  // no run of five
		{32, 1, 0, false}, // one node: 16 at most
		{16, 1, 3, true},  //
		{33, 0, 1, false}, // with a GPU: runs [0,1] and [4,6]
	} {
		got := rl.mayBid(WindowJob{Cores: tc.cores, Nodes: tc.nodes, GPUsMin: tc.gpus, GPUsMax: tc.gpus})
		assert.Equal(t, tc.want, got, "%+v", tc)
	}
}

// The shortcut by total free cores never changes mayBid's answer: it is
// the scan of stretches' answer on random loads and jobs.
func TestMayBidTotalsAgreeWithStretches(t *testing.T) {
	seed := testseed.Draw(t)
	rng := rand.New(rand.NewPCG(seed, 13))
	_, tree := topology.Seed001()
	cut := 0
	for range 30 {
		load := seed001Load(rng, tree.NodeCount())
		rl := newRunLimits(load)
		for k := range 40 {
			job := randomWindowJob(rng, int64(k+1))
			want := rl.stretches(job.GPUsMin, job.Nodes) >= job.Cores
			require.Equal(t, want, rl.mayBid(job), "job %+v", job)
			if rl.total[job.GPUsMin] < job.Cores {
				cut++
			}
		}
	}
	assert.Positive(t, cut, "some jobs are ruled out by the totals alone")
}

// stretchesOfRuns, from the runs of a GPU count and running sums, is the
// scan of every node's answer, for every node count (0, each, and more
// than any run), on random loads.
func TestStretchesOfRunsAgreeWithTheScan(t *testing.T) {
	seed := testseed.Draw(t)
	rng := rand.New(rand.NewPCG(seed, 17))
	_, tree := topology.Seed001()
	for range 20 {
		load := seed001Load(rng, tree.NodeCount())
		rl := newRunLimits(load)
		for range 60 {
			g, n := rng.IntN(4), rng.IntN(40)
			if rng.IntN(8) == 0 {
				n = rng.IntN(tree.NodeCount() + 2)
			}
			require.Equal(t, rl.stretches(g, n), rl.stretchesOfRuns(g, n), "%d GPUs, %d nodes", g, n)
		}
		require.Equal(t, -1, rl.stretchesOfRuns(0, -1))
	}
}
