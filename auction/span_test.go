package auction

import (
	"math/rand/v2"
	"testing"

	"github.com/bits-and-blooms/bitset"
	"github.com/hpcsched/hpcsched/internal/testseed"
	"github.com/hpcsched/hpcsched/topology"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A node outside the job's Span (another partition's, here busy) neither
// joins nor breaks its run; a node of the Span that cannot take the job
// now breaks it, as before.
func TestSpanLeavesOtherNodesOutOfRuns(t *testing.T) {
	load := Load{CPUs: []int{8, 8, 0, 8, 8, 0, 8}, GPUs: make([]int, 7)}
	span := bitset.New(7).Set(0).Set(1).Set(3).Set(4).Set(5).Set(6) // node 2 is another partition's
	job := WindowJob{Cores: 32, Nodes: 4, Span: span}
	tree, err := topology.New([]string{"a", "b", "c", "d", "e", "f", "g"}, []topology.SwitchSpec{{Name: "s", Nodes: []string{"a", "b", "c", "d", "e", "f", "g"}}})
	require.NoError(t, err)
	var got [][]int
	for _, set := range nodesets(tree, load, span) {
		got = append(got, set.nodes)
	}
	assert.Equal(t, [][]int{{0, 1, 3, 4}, {6}}, got, "node 5 is the job's, busy: it breaks the run")
	got = nil
	for _, set := range nodesets(tree, load, nil) {
		got = append(got, set.nodes)
	}
	assert.Equal(t, [][]int{{0, 1}, {3, 4}, {6}}, got)
	job.Span, job.ID, job.Priority = span, 1, 1
	p, err := GenerateBids([]WindowJob{job}, load, tree, BidOptions{})
	require.NoError(t, err)
	require.Len(t, p.Jobs[0].Bids, 1, "one bid, across node 2")
	var used []int
	for _, u := range p.Jobs[0].Bids[0].Uses {
		used = append(used, u.Node)
	}
	assert.Equal(t, []int{0, 1, 3, 4}, used)
	assert.True(t, newRunLimits(load).mayBid(job))
	job.Span = nil
	p, err = GenerateBids([]WindowJob{job}, load, tree, BidOptions{})
	require.NoError(t, err)
	assert.Empty(t, p.Jobs[0].Bids, "without the Span, no run holds it")
	assert.False(t, newRunLimits(load).mayBid(job))
}

// randomSpans is nil (every node) and three random Spans of n nodes.
func randomSpans(rng *rand.Rand, n int) []*bitset.BitSet {
	spans := []*bitset.BitSet{nil}
	for range 3 {
		s := bitset.New(uint(n))
		for i := range n {
			if rng.IntN(8) > 0 {
				s.Set(uint(i))
			}
		}
		spans = append(spans, s)
	}
	return spans
}

// A Span's run limits, from its runs and running sums, are the scan of its
// nodes' answer on random loads of the AUCSCHED3 paper's system.
func TestSpanLimitsAgreeWithTheScan(t *testing.T) {
	seed := testseed.Draw(t)
	rng := rand.New(rand.NewPCG(seed, 41))
	_, tree := topology.Seed001()
	n := tree.NodeCount()
	for range 20 {
		rl := newRunLimits(seed001Load(rng, n))
		for _, s := range randomSpans(rng, n)[1:] {
			_ = rl.mayBid(WindowJob{Cores: 1, Span: s}) // makes the span's limits
			sl := rl.bySpan[s]
			require.NotNil(t, sl)
			for range 20 {
				g, m := rng.IntN(4), rng.IntN(40)
				require.Equal(t, sl.stretches(g, m), sl.stretchesOfRuns(g, m), "%d GPUs, %d nodes", g, m)
			}
		}
	}
}
