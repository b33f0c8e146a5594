package selectnodes

import (
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/bits-and-blooms/bitset"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Issue 11: on BNL's chx partition (OverSubscribe=FORCE) `-n 2800 -N 1` was
// runnable on a 56-CPU node. Sharing lets several jobs share a node; no
// one job exceeds it.
func TestConsResOversubscribeOneJobNeverExceedsANode(t *testing.T) {
	for _, mode := range []ShareMode{ShareForce, ShareYes} {
		c := consres(t, 1, 56, mode)
		req := &Request{CPUs: 2800, MaxNodes: 1, Share: ShareOversubscribe}
		for _, m := range []Mode{TestOnly, RunNow, WillRun} {
			_, err := c.SelectNodes(req, m)
			require.ErrorIs(t, err, ErrNodeConfig, "%s %s", mode, m)
		}
		_, err := c.SelectNodes(&Request{CPUs: 57, MaxNodes: 1, Share: ShareOversubscribe}, TestOnly)
		require.ErrorIs(t, err, ErrNodeConfig, "one CPU above the node")
		for id := JobID(1); id <= 4; id++ { // FORCE:4 / YES:4: four whole-node jobs share it
			p, err := c.SelectNodes(&Request{CPUs: 56, Share: ShareOversubscribe}, RunNow)
			require.NoError(t, err, "job %d", id)
			assert.Equal(t, 56, p.TotalCPUs)
			require.NoError(t, c.Allocate(id, p, t0, t0.Add(time.Hour)))
		}
		_, err = c.SelectNodes(&Request{CPUs: 1, Share: ShareOversubscribe}, RunNow)
		require.ErrorIs(t, err, ErrBusy)
		big := &Placement{Partition: "p", Alloc: []NodeAlloc{{Node: 0, CPUs: 112}}}
		require.NoError(t, c.Release(1))
		require.ErrorContains(t, c.Allocate(9, big, t0, t0), "gives one job 112 CPUs")
		require.NoError(t, c.CheckInvariants())
	}
}

// Issue 11: an ExcludeNodes bitmap of the wrong length was silently
// ignored and the job ran on the withheld nodes.
func TestExcludeNodesOfTheWrongLengthIsRejected(t *testing.T) {
	c := uniform(t, 4, 2)
	for _, n := range []uint{0, 3, 5, 64} {
		x := bitset.New(n)
		x.SetAll()
		req := &Request{ExcludeNodes: x}
		for _, run := range []func() error{
			func() error { _, err := c.SelectNodes(req, RunNow); return err },
			func() error { _, err := c.Try(req, TestOnly); return err },
			func() error { _, err := c.PlaceExact(req, []NodeUse{{Node: 0, CPUs: 2}}); return err },
			func() error { _, err := c.Snapshot().SelectNodes(req, WillRun); return err },
		} {
			err := run()
			require.ErrorIs(t, err, ErrInvalidRequest, "length %d", n)
			var le *BitmapLengthError
			require.ErrorAs(t, err, &le)
			assert.Equal(t, BitmapLengthError{Field: "Request.ExcludeNodes", Len: n, Want: 4}, *le)
		}
		_, ok := c.Probe(req, RunNow)
		assert.False(t, ok)
	}
	x := bitset.New(4)
	x.SetAll()
	_, err := c.SelectNodes(&Request{ExcludeNodes: x}, RunNow)
	assert.ErrorIs(t, err, ErrPartConfig, "the right length withholds every node")
}

// Issue 11: the GRES capacity table was nodes x distinct GRES keys, so
// 20,000 node lines with one GRES each exhausted memory. It is now one
// slot per configured GRES.
func TestGRESTableIsProportionalToTheConfig(t *testing.T) {
	const n = 20000
	nodes := make([]Node, n)
	all := make([]string, n)
	for i := range nodes {
		nodes[i] = Node{Name: fmt.Sprintf("n%d", i), CPUs: 4, GRES: []GRES{{Name: fmt.Sprintf("g%d", i), Count: 1}}}
		all[i] = nodes[i].Name
	}
	c, err := New(nodes, []Partition{{Name: "p", Nodes: all, Default: true}}, WithSelector(ConsRes{}))
	require.NoError(t, err)
	assert.Len(t, c.gres.keys, n)
	assert.Len(t, c.gres.cap, n, "one slot per configured GRES")
	assert.Len(t, c.use.gres, n)
	p, err := c.SelectNodes(&Request{GRES: []GRESRequest{{Name: "g12345", Min: 1, Max: 1}}}, RunNow)
	require.NoError(t, err)
	assert.Equal(t, []string{"n12345"}, p.Names)
	require.NoError(t, c.Allocate(1, p, t0, t0.Add(time.Hour)))
	assert.Equal(t, int64(0), c.FreeGRES(12345, "g12345", ""))
	_, err = c.SelectNodes(&Request{GRES: []GRESRequest{{Name: "g12345", Min: 1, Max: 1}}}, RunNow)
	assert.ErrorIs(t, err, ErrBusy)
	require.NoError(t, c.CheckInvariants())
}

// Two entries of one GRES on a node are summed; a sum above MaxInt64 is an
// error, not a negative capacity.
func TestGRESSumOverflowIsAnError(t *testing.T) {
	two := []Node{{Name: "a", CPUs: 1, GRES: []GRES{{Name: "gpu", Count: 2}, {Name: "gpu", Count: 3}}}}
	c, err := New(two, nil)
	require.NoError(t, err)
	assert.Equal(t, []int64{5}, c.gres.cap)
	_, err = New([]Node{{Name: "a", CPUs: 1, GRES: []GRES{{Name: "gpu", Count: math.MaxInt64}, {Name: "gpu", Count: 2}}}}, nil)
	assert.ErrorContains(t, err, "totals more than")
}

// Issue 11: Allocate accepted CPUs: MaxInt64-1 and drove usage negative.
func TestAllocateRejectsAbsurdCPUs(t *testing.T) {
	c := consres(t, 2, 8, ShareForce)
	absurd := []NodeAlloc{
		{Node: 0, CPUs: math.MaxInt64 - 1},
		{Node: 0, CPUs: -1},
		{Node: 0, CPUs: 1, Memory: math.MaxInt64},
		{Node: 0, CPUs: 1, Memory: -5},
		{Node: 0, CPUs: 1, GRES: []GRESAlloc{{Name: "gpu", Type: "v100", Count: math.MaxInt64}}},
		{Node: 0, CPUs: 1, GRES: []GRESAlloc{{Name: "gpu", Type: "v100", Count: -1}}},
		{Node: 7, CPUs: 1},
	}
	s := c.Snapshot()
	for k, a := range absurd {
		p := &Placement{Partition: "p", Alloc: []NodeAlloc{a}}
		assert.Error(t, c.Allocate(JobID(k+1), p, t0, t0), "%+v", a)
		assert.Error(t, s.Allocate(JobID(k+1), p, t0, t0), "snapshot %+v", a)
		_, err := s.Simulate(JobID(k+1), p, t0, t0)
		assert.Error(t, err, "simulate %+v", a)
	}
	assert.Empty(t, c.Running())
	assert.Empty(t, s.Jobs())
	assert.Equal(t, 8, c.FreeCPUs(0))
	assert.Equal(t, 8, s.FreeCPUs(0))
	require.NoError(t, c.CheckInvariants())
	// and a release never drives usage negative: each job releases what it took
	p := &Placement{Partition: "p", Alloc: []NodeAlloc{{Node: 0, CPUs: 8}}}
	require.NoError(t, c.Allocate(1, p, t0, t0))
	require.NoError(t, c.Release(1))
	assert.Error(t, c.Release(1))
	assert.Equal(t, 8, c.FreeCPUs(0))
	require.NoError(t, c.CheckInvariants())
}

// Issue 11: New computed Boards*Sockets*Cores*Threads before checking it,
// so 2^30 x 2^30 gave a negative CPU count.
func TestNewChecksTheCPUProductBeforeComputingIt(t *testing.T) {
	bad := []Node{
		{Name: "a", Boards: 1 << 30, Sockets: 1 << 30},
		{Name: "a", Boards: math.MaxInt, Sockets: 2, CoresPerSocket: 2, Threads: 2},
		{Name: "a", Sockets: 1 << 12, CoresPerSocket: 1 << 12, Threads: 2},
		{Name: "a", CPUs: MaxNodeCPUs + 1},
		{Name: "a", Boards: -1, Sockets: 4},
	}
	for _, n := range bad {
		_, err := New([]Node{n}, nil)
		assert.Error(t, err, "%+v", n)
	}
	c, err := New([]Node{{Name: "a", Boards: 2, Sockets: 2, CoresPerSocket: 16, Threads: 2}, {Name: "b", Sockets: 1 << 12, CoresPerSocket: 1 << 12}}, nil)
	require.NoError(t, err)
	assert.Equal(t, 128, c.Node(0).CPUs)
	assert.Equal(t, MaxNodeCPUs, c.Node(1).CPUs)
	_, err = c.Register("a", Resources{CPUs: math.MaxInt})
	assert.Error(t, err)
}

// FromConfig turns every OverSubscribe mode of slurm.conf into the model's
// own Sharing (selectnodes does not re-export slurmconf's types).
func TestFromConfigSharing(t *testing.T) {
	c := confCluster(t, `
NodeName=a[1-2] CPUs=4
PartitionName=no Nodes=ALL Default=YES
PartitionName=yes Nodes=ALL OverSubscribe=YES:3
PartitionName=ex Nodes=ALL OverSubscribe=EXCLUSIVE
PartitionName=force Nodes=ALL OverSubscribe=FORCE:2
`)
	want := map[string]Sharing{"no": {ShareNo, 1}, "yes": {ShareYes, 3}, "ex": {ShareExclusive, 1}, "force": {ShareForce, 2}}
	for name, s := range want {
		p, ok := c.Partition(name)
		require.True(t, ok)
		assert.Equal(t, s.Mode, p.Sharing.Mode, name)
		if s.Mode == ShareYes || s.Mode == ShareForce {
			assert.Equal(t, s.Count, p.Sharing.Count, name)
		}
	}
	assert.Equal(t, "FORCE", ShareForce.String())
	assert.Equal(t, "ShareMode(9)", ShareMode(9).String())
	_, err := New([]Node{{Name: "a", CPUs: 1}}, []Partition{{Name: "p", Nodes: []string{"a"}, Sharing: Sharing{Mode: 9}}})
	assert.ErrorContains(t, err, "unknown OverSubscribe mode")
}
