package auction

import (
	"math/rand/v2"
	"testing"

	"github.com/hpcsched/hpcsched/internal/testseed"
	"github.com/hpcsched/hpcsched/topology"
	"github.com/stretchr/testify/require"
)

// ofAscending is commonLevel for ascending nodes, consecutive or with
// gaps, asked again and again of one levels.
func TestLevelsOfAscending(t *testing.T) {
	seed := testseed.Draw(t)
	rng := rand.New(rand.NewPCG(seed, 30))
	_, tree := topology.Seed001()
	l := newLevels(tree)
	n := tree.NodeCount()
	for range 3000 {
		node := rng.IntN(n)
		var uses []Use
		for len(uses) < 60 && node < n {
			uses = append(uses, Use{Node: node})
			node++
			if rng.IntN(30) == 0 {
				node += 1 + rng.IntN(40) // a gap
			}
		}
		require.Equal(t, commonLevel(tree, uses), l.ofAscending(uses), "%v", uses)
	}
}

// The planner's problems, one after another on one arena (which keeps
// the levels of the node ranges), have bids whose nodes ascend and whose
// levels are commonLevel's: random windows of every request kind on
// random loads of the AUCSCHED3 paper's system.
func TestPlannerLevelsAsCommonLevel(t *testing.T) {
	seed := testseed.Draw(t)
	rng := rand.New(rand.NewPCG(seed, 31))
	_, tree := topology.Seed001()
	arena := &useArena{recycle: true}
	bids := 0
	problems := 12
	if testing.Short() {
		problems = 4
	}
	for range problems {
		load := seed001Load(rng, tree.NodeCount())
		var window []WindowJob
		for k := range 30 {
			j := randomWindowJob(rng, int64(k+1)) // of up to a tenth of the machine
			j.Cores = 1 + rng.IntN(1600)
			if j.Nodes > 0 {
				j.Nodes = 1 + rng.IntN(100)
				j.Cores = max(j.Nodes, min(j.Cores, 16*j.Nodes))
			}
			window = append(window, j)
		}
		p, err := generateBids(window, load, tree, BidOptions{MaxBids: 10}, arena)
		require.NoError(t, err)
		for _, j := range p.Jobs {
			for _, b := range j.Bids {
				bids++
				for k := 1; k < len(b.Uses); k++ {
					require.Less(t, b.Uses[k-1].Node, b.Uses[k].Node, "job %d", j.ID)
				}
				require.Equal(t, commonLevel(tree, b.Uses), b.Level, "job %d", j.ID)
			}
		}
	}
	require.Greater(t, bids, 20*problems, "bids checked")
}
