package selectnodes

import (
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// checkNodeViews checks that every way of reading a placement's nodes
// agrees with its names and with each other, over every node index.
func checkNodeViews(t *testing.T, c *Cluster, p *Placement, what string) {
	t.Helper()
	var all []int
	for i := range p.All() {
		all = append(all, i)
	}
	require.Len(t, all, p.NodeCount(), what)
	require.Len(t, p.Names, p.NodeCount(), what)
	require.True(t, slices.IsSorted(all), what)
	set := p.NodeSet()
	require.EqualValues(t, c.NodeCount(), set.Len(), "%s: the bitmap is cluster-sized", what)
	require.EqualValues(t, p.NodeCount(), set.Count(), what)
	for k, i := range all {
		require.Equal(t, i, p.Node(k), what)
		require.Equal(t, c.Node(i).Name, p.Names[k], what)
	}
	for i := range c.NodeCount() {
		require.Equal(t, set.Test(uint(i)), p.HasNode(i), "%s: node %d", what, i)
	}
	require.False(t, p.HasNode(-1), what)
	require.False(t, p.HasNode(c.NodeCount()), what)
}

// A selection's placement, a ProbeNodes placement (no Alloc) and a
// WillRun placement read the same nodes through NodeCount, Node, All,
// HasNode and NodeSet; the two selections choose the same nodes.
func TestPlacementNodeViews(t *testing.T) {
	for _, sel := range []Selector{Linear{}, ConsRes{}} {
		c := gresCluster(t, 300, sel, true)
		busy, err := c.SelectNodes(&Request{MinNodes: 70, Share: ShareExclusiveJob}, RunNow)
		require.NoError(t, err)
		require.NoError(t, c.Allocate(1, busy, t0, t0.Add(time.Hour)))
		for _, size := range []int{1, 2, 64, 230} {
			req := &Request{MinNodes: size}
			full, err := c.SelectNodes(req, RunNow)
			require.NoError(t, err)
			checkNodeViews(t, c, full, "select")
			probe, ok := c.ProbeNodes(req, RunNow)
			require.True(t, ok)
			require.Nil(t, probe.Alloc)
			checkNodeViews(t, c, probe, "probe")
			require.Equal(t, slices.Collect(full.All()), slices.Collect(probe.All()))
			require.Zero(t, full.NodeSet().IntersectionCardinality(busy.NodeSet()), "busy nodes are not chosen")
		}
		later, err := c.SelectNodes(&Request{MinNodes: 250}, WillRun)
		require.NoError(t, err)
		checkNodeViews(t, c, later, "willrun")
	}
}

// NodeSet hands out a bitmap the caller owns: changing it changes
// neither the placement nor the next NodeSet. All stops when asked.
func TestPlacementNodeSetIsACopy(t *testing.T) {
	c := gresCluster(t, 100, ConsRes{}, false)
	p, err := c.SelectNodes(&Request{MinNodes: 3}, RunNow)
	require.NoError(t, err)
	set := p.NodeSet()
	set.ClearAll()
	set.Set(99)
	require.Equal(t, []uint{0, 1, 2}, setBits(p))
	require.EqualValues(t, 3, p.NodeSet().Count())
	require.False(t, p.HasNode(99))
	var first []int
	for i := range p.All() {
		first = append(first, i)
		break
	}
	require.Equal(t, []int{0}, first)
}

// A placement built by hand (read back from storage) may list its nodes
// out of order: its NodeSet reaches its highest node, and Allocate keeps
// a copy in node index order, sized to the cluster, whose nodes and names
// agree; a node listed twice is refused wherever it appears.
func TestPlacementBuiltByHand(t *testing.T) {
	c := gresCluster(t, 40, ConsRes{}, false)
	hand := &Placement{Partition: "p", Alloc: []NodeAlloc{{Node: 9, CPUs: 2}, {Node: 3, CPUs: 8}, {Node: 30, CPUs: 1}}}
	require.Equal(t, 3, hand.NodeCount())
	set := hand.NodeSet()
	require.EqualValues(t, 31, set.Len(), "one past the highest node")
	require.Equal(t, []uint{3, 9, 30}, bitsOf(set))
	require.NoError(t, c.Allocate(1, hand, t0, t0.Add(time.Hour)))
	got, _, _, ok := c.Allocation(1)
	require.True(t, ok)
	require.Equal(t, []string{"g3", "g9", "g30"}, got.Names)
	checkNodeViews(t, c, got, "allocated")
	require.Equal(t, 9, hand.Alloc[0].Node, "the caller's placement is not reordered")

	dup := &Placement{Partition: "p", Alloc: []NodeAlloc{{Node: 5, CPUs: 1}, {Node: 7, CPUs: 1}, {Node: 5, CPUs: 1}}}
	require.ErrorContains(t, c.Allocate(2, dup, t0, t0.Add(time.Hour)), "node g5 appears twice")
	require.Zero(t, (&Placement{}).NodeCount())
	require.EqualValues(t, 0, (&Placement{}).NodeSet().Count())
}

func bitsOf(set interface{ NextSet(uint) (uint, bool) }) []uint {
	var out []uint
	for i, ok := set.NextSet(0); ok; i, ok = set.NextSet(i + 1) {
		out = append(out, i)
	}
	return out
}
