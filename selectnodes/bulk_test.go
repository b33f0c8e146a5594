package selectnodes

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/bits-and-blooms/bitset"
	"github.com/stretchr/testify/require"
)

// FreeCPUsInto and JobsOnTotal say what FreeCPUs and JobsOn say node by
// node, as random jobs of a few CPUs start and end on shared nodes.
func TestBulkReadsMatchPerNode(t *testing.T) {
	for seed := uint64(1); seed <= 10; seed++ {
		t.Logf("seed %d", seed)
		r := rand.New(rand.NewPCG(seed, 3))
		c := consres(t, 1+r.IntN(130), 8, ShareNo)
		var running []JobID
		var buf []int
		for step := range 60 {
			if len(running) > 0 && r.IntN(3) == 0 {
				k := r.IntN(len(running))
				require.NoError(t, c.Release(running[k]))
				running = append(running[:k], running[k+1:]...)
			} else if p, err := c.SelectNodes(&Request{CPUs: 1 + r.IntN(12)}, RunNow); err == nil {
				id := JobID(step + 1)
				require.NoError(t, c.Allocate(id, p, t0, t0.Add(time.Hour)))
				running = append(running, id)
			}
			buf = c.FreeCPUsInto(buf[:r.IntN(len(buf)+1)])
			require.Len(t, buf, c.NodeCount())
			total := 0
			for i := range c.NodeCount() {
				require.Equal(t, c.FreeCPUs(i), buf[i], "seed %d step %d node %d", seed, step, i)
				total += c.JobsOn(i)
			}
			require.Equal(t, total, c.JobsOnTotal(), "seed %d step %d", seed, step)
		}
	}
}

// PartitionNodesInto gives PartitionNodes' set into a set of the right
// length, a new one otherwise, and nothing for an unknown partition.
func TestPartitionNodesIntoMatchesPartitionNodes(t *testing.T) {
	nodes := []Node{{Name: "n0", CPUs: 1, RealMemory: 1, Weight: 1}, {Name: "n1", CPUs: 1, RealMemory: 1, Weight: 1},
		{Name: "n2", CPUs: 1, RealMemory: 1, Weight: 1}}
	c, err := New(nodes, []Partition{{Name: "a", Nodes: []string{"n0", "n2"}, Default: true}, {Name: "b", Nodes: []string{"n1"}}})
	require.NoError(t, err)
	for _, name := range []string{"a", "b"} {
		want, ok := c.PartitionNodes(name)
		require.True(t, ok)
		got, ok := c.PartitionNodesInto(name, nil)
		require.True(t, ok && want.Equal(got), name)
		dst := want.Clone().Complement() // the right length, other nodes
		got, ok = c.PartitionNodesInto(name, dst)
		require.True(t, ok && want.Equal(got) && got == dst, name)
		short := bitset.New(1)
		got, ok = c.PartitionNodesInto(name, short)
		require.True(t, ok && want.Equal(got) && got != short, name)
		got.Flip(1) // the copy is the caller's
		again, _ := c.PartitionNodes(name)
		require.True(t, want.Equal(again), name)
	}
	got, ok := c.PartitionNodesInto("nope", bitset.New(3))
	require.False(t, ok)
	require.Nil(t, got)
}
