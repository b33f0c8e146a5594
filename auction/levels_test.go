package auction

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/hpcsched/hpcsched/internal/testseed"
	"github.com/hpcsched/hpcsched/topology"
	"github.com/stretchr/testify/require"
)

// The kept levels are commonLevel's, asked again and again, for bids of
// consecutive nodes and others, on the AUCSCHED3 paper's tree and on one
// whose leaves interleave the nodes (so consecutive nodes span switches).
func TestLevelsAsCommonLevel(t *testing.T) {
	seed := testseed.Draw(t)
	rng := rand.New(rand.NewPCG(seed, 29))
	_, paper := topology.Seed001()
	names := make([]string, 64)
	for i := range names {
		names[i] = fmt.Sprintf("n%d", i)
	}
	var specs []topology.SwitchSpec
	for leaf := range 4 {
		var nodes []string
		for i := leaf; i < 64; i += 4 {
			nodes = append(nodes, names[i])
		}
		specs = append(specs, topology.SwitchSpec{Name: fmt.Sprintf("leaf%d", leaf), Nodes: nodes})
	}
	specs = append(specs, topology.SwitchSpec{Name: "a", Switches: []string{"leaf0", "leaf1"}},
		topology.SwitchSpec{Name: "b", Switches: []string{"leaf2", "leaf3"}}, topology.SwitchSpec{Name: "top", Switches: []string{"a", "b"}})
	interleaved, err := topology.New(names, specs)
	require.NoError(t, err)
	for _, tree := range []*topology.Tree{paper, interleaved} {
		l := newLevels(tree)
		n := tree.NodeCount()
		for range 2000 {
			first := rng.IntN(n)
			uses := make([]Use, 1+rng.IntN(min(40, n-first)))
			for k := range uses {
				uses[k].Node = first + k
			}
			if rng.IntN(4) == 0 {
				uses[len(uses)-1].Node = rng.IntN(n) // not consecutive
			}
			require.Equal(t, commonLevel(tree, uses), l.of(uses), "%v", uses)
		}
	}
}
