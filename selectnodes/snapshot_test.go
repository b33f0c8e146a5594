package selectnodes

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestSnapshotWhatIf(t *testing.T) {
	c := uniform(t, 4, 2)
	occupy(t, c, 1, time.Hour, "n0", "n1")
	s := c.Snapshot()
	require.NoError(t, s.Release(1))
	p, err := s.SelectNodes(&Request{MinNodes: 4}, RunNow)
	require.NoError(t, err)
	assert.Len(t, p.Names, 4)
	require.NoError(t, s.Allocate(9, p, t0, t0.Add(2*time.Hour)))
	_, err = s.SelectNodes(&Request{MinNodes: 1}, RunNow)
	assert.ErrorIs(t, err, ErrBusy)
	p, err = s.SelectNodes(&Request{MinNodes: 1}, WillRun)
	require.NoError(t, err)
	assert.Equal(t, t0.Add(2*time.Hour), p.Start)
	// the cluster itself is untouched
	_, err = c.SelectNodes(&Request{MinNodes: 3}, RunNow)
	assert.ErrorIs(t, err, ErrBusy)
	assert.Equal(t, []JobID{1}, c.Running())
	assert.Equal(t, []JobID{9}, s.Jobs())
	require.NoError(t, c.CheckInvariants())
	assert.Error(t, s.Release(1))
	assert.Error(t, s.Allocate(9, p, t0, t0))
}

func TestExcludeNodesIsUnavailability(t *testing.T) {
	c := uniform(t, 4, 2)
	x, err := c.NodeSet([]string{"n0", "n1", "n2"})
	require.NoError(t, err)
	_, err = c.SelectNodes(&Request{MinNodes: 2, ExcludeNodes: x}, RunNow)
	assert.ErrorIs(t, err, ErrPartConfig, "withheld, not misconfigured")
	_, err = c.SelectNodes(&Request{Required: []string{"n0"}, ExcludeNodes: x}, RunNow)
	assert.ErrorIs(t, err, ErrPartConfig)
	p, err := c.SelectNodes(&Request{ExcludeNodes: x}, RunNow)
	require.NoError(t, err)
	assert.Equal(t, []string{"n3"}, p.Names)
}

func TestSnapshotDoesNotSeeLaterChanges(t *testing.T) {
	c := exactCluster(t, WithFastSchedule(0))
	occupy(t, c, 1, time.Hour, "n4")
	s := c.Snapshot()
	before := s.Node(3)
	part, _ := s.Partition("q")

	require.NoError(t, c.SetNodeState("n0", NodeDown))
	_, err := c.Register("n1", Resources{CPUs: 2, RealMemory: 10})
	require.NoError(t, err)
	q := part
	q.Nodes = []string{"n5"}
	q.State = PartitionDown
	require.NoError(t, c.UpdatePartition(q))
	require.NoError(t, c.Release(1))
	occupy(t, c, 2, time.Hour, "n3")

	assert.Equal(t, NodeDown, c.State(0))
	assert.Equal(t, NodeUp, s.State(0))
	assert.Equal(t, NodeUp, s.Node(0).State)
	assert.Equal(t, before, s.Node(3))
	assert.True(t, s.Avail().Test(0))
	assert.Equal(t, 8, s.FreeCPUs(1), "the snapshot keeps the resources n1 had")
	assert.Equal(t, 2, c.FreeCPUs(1))
	got, _ := s.Partition("q")
	assert.Equal(t, part, got)
	nodes, _ := s.PartitionNodes("q")
	assert.Equal(t, []string{"n0", "n1"}, s.Names(nodes))
	assert.Equal(t, []JobID{1}, s.Jobs())
	assert.Equal(t, 15, s.FreeCPUs(4), "job 1 still holds a CPU of n4 in the snapshot")
	assert.Equal(t, 8, s.FreeCPUs(3))
	assert.Equal(t, 7, c.FreeCPUs(3))
	p, err := s.SelectNodes(&Request{Partition: "q", MinNodes: 2}, RunNow)
	require.NoError(t, err, "the snapshot's partition is up with n0-n1")
	assert.Equal(t, []string{"n0", "n1"}, p.Names)
	_, err = c.SelectNodes(&Request{Partition: "q"}, RunNow)
	assert.ErrorIs(t, err, ErrPartConfig)
	require.NoError(t, c.CheckInvariants())
}

func TestSnapshotAccessors(t *testing.T) {
	c := exactCluster(t)
	p, err := c.PlaceExact(&Request{GRES: []GRESRequest{{Name: "gpu", Min: 1, Max: 1}}},
		[]NodeUse{{Node: 2, CPUs: 3, Memory: 100, GRES: gpu(1)}})
	require.NoError(t, err)
	require.NoError(t, c.Allocate(7, p, t0, t0.Add(time.Hour)))
	s := c.Snapshot()
	assert.Equal(t, 6, s.NodeCount())
	i, ok := s.NodeIndex("n2")
	require.True(t, ok)
	assert.Equal(t, 2, i)
	assert.Equal(t, 5, s.FreeCPUs(2))
	assert.Equal(t, int64(900), s.FreeMemory(2))
	assert.Equal(t, int64(1), s.FreeGRES(2, "gpu", ""))
	assert.Equal(t, int64(1), s.FreeGRES(2, "gpu", "v100"))
	assert.Equal(t, int64(0), s.FreeGRES(2, "gpu", "a100"))
	assert.Equal(t, int64(0), s.FreeGRES(4, "gpu", ""))
	assert.Equal(t, 1, s.JobsOn(2))
	assert.False(t, s.Idle().Test(2))
	assert.True(t, s.Idle().Test(1))
	assert.Nil(t, s.Topology())
	assert.Equal(t, "p", s.DefaultPartition())
	assert.Len(t, s.Partitions(), 2)
	_, _, end, ok := s.Allocation(7)
	require.True(t, ok)
	assert.Equal(t, t0.Add(time.Hour), end)
	// the accessors hand out copies
	s.Idle().ClearAll()
	s.Avail().ClearAll()
	assert.True(t, s.Idle().Test(1))
	assert.True(t, s.Avail().Test(1))
}

func TestSnapshotSimulateAndRevert(t *testing.T) {
	c := exactCluster(t)
	s := c.Snapshot()
	req := &Request{MinNodes: 4, Features: mustExpr(t, "a"), Share: ShareExclusiveJob}
	p, err := s.SelectNodes(req, RunNow)
	require.NoError(t, err)
	revert, err := s.Simulate(1, p, t0, t0.Add(time.Hour))
	require.NoError(t, err)
	_, err = s.SelectNodes(&Request{Features: mustExpr(t, "a")}, RunNow)
	assert.ErrorIs(t, err, ErrBusy, "the what-if holds every a node")
	w, err := s.SelectNodes(&Request{Features: mustExpr(t, "a")}, WillRun)
	require.NoError(t, err)
	assert.Equal(t, t0.Add(time.Hour), w.Start)
	_, err = s.Simulate(2, p, t0, t0)
	assert.Error(t, err, "the same nodes cannot be taken twice")
	_, err = s.Simulate(1, p, t0, t0)
	assert.Error(t, err, "duplicate job")
	revert()
	revert() // a second call does nothing
	assert.Empty(t, s.Jobs())
	_, err = s.SelectNodes(req, RunNow)
	require.NoError(t, err)
	assert.Empty(t, c.Running(), "the cluster never saw the what-if")
	// Simulate checks what Allocate checks
	down := c.Snapshot()
	require.NoError(t, c.SetNodeState("n0", NodeDown))
	after := c.Snapshot()
	_, err = after.Simulate(3, p, t0, t0)
	assert.ErrorContains(t, err, "n0 is down")
	_, err = down.Simulate(3, p, t0, t0)
	assert.NoError(t, err, "the earlier snapshot still has n0 up")
}

// Two goroutines use two snapshots of one cluster while the cluster
// changes; run with -race.
func TestSnapshotsConcurrent(t *testing.T) {
	c := benchCluster(t, 512, ConsRes{})
	halfLoad(t, c)
	snapshotsConcurrent(t, c)
	tree, err := Seed001() // topology-aware selection reads the tree
	require.NoError(t, err)
	halfLoad(t, tree)
	snapshotsConcurrent(t, tree)
}

func snapshotsConcurrent(t *testing.T, c *Cluster) {
	snaps := []*Snapshot{c.Snapshot(), c.Snapshot()}
	want := snaps[0].Jobs()
	done := make(chan error, len(snaps))
	for g, s := range snaps {
		go func() {
			for k := range 50 {
				p, err := s.SelectNodes(&Request{MinNodes: 1 + k%7, Features: nil}, RunNow)
				if err != nil {
					done <- err
					return
				}
				revert, err := s.Simulate(JobID(1_000_000+g*100+k), p, t0, t0.Add(time.Minute))
				if err != nil {
					done <- err
					return
				}
				// the node may have room left or not; only the reads matter here
				_, _ = s.PlaceExact(&Request{}, []NodeUse{{Node: p.Alloc[0].Node, CPUs: 1}})
				_ = s.FreeCPUs(k) + s.JobsOn(k)
				revert()
			}
			done <- nil
		}()
	}
	for k := range 40 {
		name := c.Node(k).Name
		require.NoError(t, c.SetNodeState(name, NodeDown))
		p := c.Partitions()[0]
		p.MaxNodes = 100 + k
		require.NoError(t, c.UpdatePartition(p))
		if ids := c.Running(); len(ids) > 0 {
			require.NoError(t, c.Release(ids[0]))
		}
	}
	for range snaps {
		require.NoError(t, <-done)
	}
	for _, s := range snaps {
		assert.Equal(t, want, s.Jobs())
		assert.Equal(t, NodeUp, s.State(0))
	}
	require.NoError(t, c.CheckInvariants())
}

// Moving an allocation's end on the cluster leaves a snapshot's copy of it
// as it was (the record is replaced, not written).
func TestSetAllocationEndLeavesSnapshots(t *testing.T) {
	c := uniform(t, 2, 2)
	occupy(t, c, 1, time.Hour, "n0")
	s := c.Snapshot()
	require.NoError(t, c.SetAllocationEnd(1, t0.Add(5*time.Hour)))
	_, _, end, ok := c.Allocation(1)
	require.True(t, ok)
	assert.Equal(t, t0.Add(5*time.Hour), end)
	got, ok := s.End(1)
	require.True(t, ok)
	assert.Equal(t, t0.Add(time.Hour), got)
	assert.Error(t, c.SetAllocationEnd(7, t0))
}
