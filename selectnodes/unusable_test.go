package selectnodes

import (
	"math/rand/v2"
	"testing"

	"github.com/bits-and-blooms/bitset"
	"github.com/stretchr/testify/require"
)

// UnusableInto equals the complement of Up ∩ Avail, on clusters of sizes
// around word boundaries with random nodes down or drained, into a set of
// the right length, of another length, or nil.
func TestUnusableIntoIsComplementOfUpAndAvail(t *testing.T) {
	for seed := uint64(1); seed <= 24; seed++ {
		t.Logf("seed %d", seed)
		r := rand.New(rand.NewPCG(seed, 5))
		n := []int{1, 63, 64, 65, 130, 200}[seed%6]
		nodes := make([]Node, n)
		for i := range nodes {
			nodes[i] = Node{Name: names("u", i)[0], CPUs: 2, RealMemory: 1000, Weight: 1}
		}
		c, err := New(nodes, []Partition{{Name: "p", Nodes: span("u", 0, n-1), Default: true}})
		require.NoError(t, err)
		for range r.IntN(n + 1) {
			st := []NodeState{NodeDown, NodeDrain, NodeUp}[r.IntN(3)]
			require.NoError(t, c.SetNodeState(nodes[r.IntN(n)].Name, st))
		}
		want := c.Up()
		want.InPlaceIntersection(c.Avail())
		want = want.Complement()
		for _, dst := range []*bitset.BitSet{nil, c.Up(), c.Up().Complement()} {
			got := c.UnusableInto(dst)
			require.True(t, want.Equal(got), "seed %d n %d: want %v got %v", seed, n, want, got)
		}
		other := c.UnusableInto(nil)
		other.Set(uint(n + 70)) // grows: another length
		require.True(t, want.Equal(c.UnusableInto(other)), "seed %d: a set of another length", seed)
	}
}
