package selectnodes

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A recycled placement serves the next plain walk of as many nodes, and
// reads exactly as the fresh placement a cluster without it returns: no
// node, memory or total is left from its last job.
func TestRecycledPlacementServesTheNextStart(t *testing.T) {
	for _, n := range []int{2, smallSpare + 6} { // kept by size in a slice, and in a map
		c, fresh := uniform(t, 80, 4), uniform(t, 80, 4)
		old, err := c.SelectNodes(&Request{MinNodes: n}, RunNow)
		require.NoError(t, err)
		require.NoError(t, c.Allocate(1, old, t0, t0.Add(time.Hour)))
		assert.False(t, c.Recycle(old), "still allocated")
		require.NoError(t, c.Release(1))
		require.True(t, c.Recycle(old))
		assert.False(t, c.Recycle(old), "recycled twice")
		assert.ErrorContains(t, c.Allocate(5, old, t0, t0.Add(time.Hour)), "handed back with Recycle")

		other, ok := c.Probe(&Request{MinNodes: n + 1}, RunNow)
		require.True(t, ok)
		assert.NotSame(t, old, other, "another size")
		got, ok := c.Probe(&Request{MinNodes: n}, RunNow)
		require.True(t, ok)
		require.Same(t, old, got, "%d nodes: the recycled placement was not reused", n)
		want, ok := fresh.Probe(&Request{MinNodes: n}, RunNow)
		require.True(t, ok)
		assert.Equal(t, want, got)

		// reused, it is an ordinary placement again: allocated, released,
		// recycled
		require.NoError(t, c.AllocateSelected(2, got, t0, t0.Add(time.Hour)))
		assert.False(t, c.Recycle(got), "still allocated")
		require.NoError(t, c.Release(2))
		assert.True(t, c.Recycle(got))
		require.NoError(t, c.CheckInvariants())
	}
}

// A recycled placement keeps nothing of its job: the memory and GRES a
// consumable-resources selection recorded are gone with the rest.
func TestRecycledPlacementKeepsNothing(t *testing.T) {
	c := uniform(t, 4, 4, WithSelector(ConsRes{}))
	p, err := c.SelectNodes(&Request{MinNodes: 2, MinMemoryPerNode: 300}, RunNow)
	require.NoError(t, err)
	require.Equal(t, int64(300), p.Alloc[0].Memory)
	require.NoError(t, c.Allocate(1, p, t0, t0.Add(time.Hour)))
	require.NoError(t, c.Release(1))
	require.True(t, c.Recycle(p))
	assert.Equal(t, &Placement{Names: make([]string, 2), Alloc: make([]NodeAlloc, 2), pooled: true}, p)
	assert.Equal(t, 2, cap(p.Names))
	assert.Equal(t, 2, cap(p.Alloc))
}

// Recycle refuses what it cannot know to be unread, and what is not a
// selection's placement.
func TestRecycleRefuses(t *testing.T) {
	c := uniform(t, 4, 2)
	assert.False(t, c.Recycle(nil))
	assert.False(t, c.Recycle(&Placement{}))
	p := released(t, c, 1, 1)
	c.Snapshot() // it may hold any placement running when taken
	assert.False(t, c.Recycle(p), "after a snapshot")

	h := uniform(t, 4, 2, WithSelector(&hookRecorder{}))
	assert.False(t, h.Recycle(released(t, h, 1, 1)), "a selector with its own tables")

	// placements of one size beyond the bound are left to the collector
	full := uniform(t, maxSparePerSize+1, 1)
	var ps []*Placement
	for id := range JobID(maxSparePerSize + 1) {
		p, err := full.SelectNodes(&Request{MinNodes: 1}, RunNow)
		require.NoError(t, err)
		require.NoError(t, full.Allocate(id, p, t0, t0.Add(time.Hour)))
		ps = append(ps, p)
	}
	for id := range JobID(len(ps)) {
		require.NoError(t, full.Release(id))
	}
	for _, p := range ps[:maxSparePerSize] {
		require.True(t, full.Recycle(p))
	}
	assert.False(t, full.Recycle(ps[maxSparePerSize]), "beyond the bound")
}

// The selection pipeline reuses a recycled placement too (a
// consumable-resources cluster never takes the plain walk), and its answer
// reads as a fresh one.
func TestPipelineReusesRecycledPlacement(t *testing.T) {
	c, fresh := uniform(t, 4, 4, WithSelector(ConsRes{})), uniform(t, 4, 4, WithSelector(ConsRes{}))
	old, err := c.SelectNodes(&Request{MinNodes: 2, MinMemoryPerNode: 300}, RunNow)
	require.NoError(t, err)
	require.NoError(t, c.Allocate(1, old, t0, t0.Add(time.Hour)))
	require.NoError(t, c.Release(1))
	require.True(t, c.Recycle(old))
	req := &Request{MinNodes: 2, CPUs: 3}
	got, err := c.SelectNodes(req, RunNow)
	require.NoError(t, err)
	require.Same(t, old, got, "the recycled placement was not reused")
	want, err := fresh.SelectNodes(req, RunNow)
	require.NoError(t, err)
	assert.Equal(t, want, got)
	// a node list alone (ProbeNodes) never takes a recycled placement
	require.NoError(t, c.Allocate(2, got, t0, t0.Add(time.Hour)))
	require.NoError(t, c.Release(2))
	require.True(t, c.Recycle(got))
	nodes, ok := c.ProbeNodes(req, RunNow)
	require.True(t, ok)
	assert.NotEmpty(t, nodes)
	assert.Len(t, c.spare.list(2), 1, "ProbeNodes took the kept placement")
}

// The store of recycled placements is bounded: a placement that would
// pass its bound empties it first (the latest ends are kept), and one
// larger than the whole store is refused.
func TestRecycleStoreIsBounded(t *testing.T) {
	c := uniform(t, maxSpareSlots+1, 1)
	assert.False(t, c.Recycle(released(t, c, 1, maxSpareSlots+1)), "larger than the store")
	first := released(t, c, 2, maxSpareSlots/2+1)
	require.True(t, c.Recycle(first))
	got, ok := c.Probe(&Request{MinNodes: maxSpareSlots/2 + 1}, RunNow)
	require.True(t, ok)
	require.Same(t, first, got) // served: the store stays open when it fills
	require.True(t, c.Recycle(released(t, c, 4, maxSpareSlots/2+1)))
	second := released(t, c, 3, maxSpareSlots/2) // passes the bound: the store starts again
	require.True(t, c.Recycle(second))
	assert.Equal(t, maxSpareSlots/2, c.spare.slots)
	assert.Empty(t, c.spare.list(maxSpareSlots/2+1), "the earlier placement is still kept")
	got, ok = c.Probe(&Request{MinNodes: maxSpareSlots / 2}, RunNow)
	require.True(t, ok)
	assert.Same(t, second, got)
	assert.Zero(t, c.spare.slots)
}

// A store that fills up having served fewer than one in four of the
// placements it took closes: it keeps nothing more.
func TestRecycleStoreClosesWhenItDoesNotServe(t *testing.T) {
	c := uniform(t, maxSpareSlots, 1)
	// sizes never asked for again fill the store
	id, kept := JobID(1), 0
	for n := 1000; kept+n <= maxSpareSlots; n++ {
		require.True(t, c.Recycle(released(t, c, id, n)))
		id, kept = id+1, kept+n
	}
	assert.False(t, c.Recycle(released(t, c, id, 2000)), "it filled up serving none")
	assert.Zero(t, c.spare.slots, "a closed store keeps nothing")
	assert.False(t, c.Recycle(released(t, c, id+1, 1)), "closed for good")
}

// released is a placement of n nodes that job id held on c and released.
func released(t *testing.T, c *Cluster, id JobID, n int) *Placement {
	t.Helper()
	p, err := c.SelectNodes(&Request{MinNodes: n}, RunNow)
	require.NoError(t, err)
	require.NoError(t, c.Allocate(id, p, t0, t0.Add(time.Hour)))
	require.NoError(t, c.Release(id))
	return p
}
