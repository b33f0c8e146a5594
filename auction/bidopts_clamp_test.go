package auction

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/hpcsched/hpcsched/topology"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// BidOptions.MaxBids near math.MaxInt overflowed the count of candidates
// sought (four times it), and the jobs of an idle machine got almost no
// bid; it now means MaxBidsPerJob, as any count past that does.
func TestHugeMaxBidsMeansTheBudget(t *testing.T) {
	_, tree := topology.Seed001()
	load := seed001Load(rand.New(rand.NewPCG(3, 4)), tree.NodeCount())
	var window []WindowJob
	for k := range 30 {
		window = append(window, WindowJob{ID: int64(k + 1), Priority: int64(100 - k), Cores: 1 + k%5})
	}
	want, err := GenerateBids(window, load, tree, BidOptions{MaxBids: MaxBidsPerJob})
	require.NoError(t, err)
	for _, huge := range []int{math.MaxInt, math.MaxInt / 4, MaxBidsPerJob + 1} {
		got, err := GenerateBids(window, load, tree, BidOptions{MaxBids: huge})
		require.NoError(t, err)
		assert.Equal(t, want.Jobs, got.Jobs, "MaxBids %d", huge)
	}
	for _, job := range want.Jobs {
		assert.NotEmpty(t, job.Bids, "job %d", job.ID)
	}
}
