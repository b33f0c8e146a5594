package selectnodes

import (
	"testing"
	"time"

	"github.com/bits-and-blooms/bitset"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestMayShareTable21(t *testing.T) {
	// rows: partition setting; columns: no option, --exclusive, --share
	table := map[ShareMode][3]bool{
		ShareExclusive: {false, false, false},
		ShareNo:        {false, false, false},
		ShareYes:       {false, false, true},
		ShareForce:     {true, true, true},
	}
	for mode, row := range table {
		for col, req := range []ShareRequest{ShareDefault, ShareExclusiveJob, ShareOversubscribe} {
			assert.Equal(t, row[col], MayShare(mode, req), "%s / %d", mode, req)
		}
	}
}

// Seed 003: with free runs of 6, 4, 3, 3, 2, 1 and 1 nodes, a 10-node job
// gets the 6 and the 4; with runs of 32 and 16, a 16-node job gets the 16.
func TestLinearConsecutiveRuns(t *testing.T) {
	// free runs (by index) separated by one busy node each
	sizes := []int{1, 3, 6, 2, 4, 3, 1}
	total := 0
	for _, s := range sizes {
		total += s + 1
	}
	c := uniform(t, total, 2)
	pos, id := 0, JobID(1)
	starts := map[int]int{}
	for _, s := range sizes {
		starts[s] = pos
		pos += s
		occupy(t, c, id, time.Hour, names("n", pos)...)
		id++
		pos++
	}
	p, err := c.SelectNodes(&Request{MinNodes: 10}, RunNow)
	require.NoError(t, err)
	want := append(span("n", starts[6], starts[6]+5), span("n", starts[4], starts[4]+3)...)
	assert.ElementsMatch(t, want, p.Names)

	// a 3-node job takes a run of exactly 3 (best fit), the first one
	p, err = c.SelectNodes(&Request{MinNodes: 3}, RunNow)
	require.NoError(t, err)
	assert.Equal(t, span("n", 2, 4), p.Names)

	// a 5-node job fits only in the 6-run and leaves one node of it
	p, err = c.SelectNodes(&Request{MinNodes: 5}, RunNow)
	require.NoError(t, err)
	assert.Equal(t, span("n", starts[6], starts[6]+4), p.Names)

	c2 := uniform(t, 32+1+16, 2)
	occupy(t, c2, 1, time.Hour, "n32")
	p, err = c2.SelectNodes(&Request{MinNodes: 16}, RunNow)
	require.NoError(t, err)
	assert.Equal(t, span("n", 33, 48), p.Names)
}

func TestLinearContiguous(t *testing.T) {
	c := uniform(t, 10, 2)
	occupy(t, c, 1, time.Hour, "n3", "n7")
	// free runs: 0-2, 4-6, 8-9
	p, err := c.SelectNodes(&Request{MinNodes: 3, Contiguous: true}, RunNow)
	require.NoError(t, err)
	assert.Equal(t, span("n", 0, 2), p.Names)
	_, err = c.SelectNodes(&Request{MinNodes: 4, Contiguous: true}, RunNow)
	assert.ErrorIs(t, err, ErrBusy)
	p, err = c.SelectNodes(&Request{MinNodes: 4}, RunNow)
	require.NoError(t, err)
	assert.Len(t, p.Names, 4)
	// required node n5 pulls the window into run 4-6
	p, err = c.SelectNodes(&Request{MinNodes: 2, Contiguous: true, Required: []string{"n5"}}, RunNow)
	require.NoError(t, err)
	assert.Equal(t, []string{"n4", "n5"}, p.Names, "the lowest window holding n5")
	_, err = c.SelectNodes(&Request{MinNodes: 2, Contiguous: true, Required: []string{"n2", "n4"}}, RunNow)
	assert.ErrorIs(t, err, ErrBusy, "n3 between them is busy")
}

func TestDesiredCountFallsBackToMinimum(t *testing.T) {
	c := uniform(t, 6, 2)
	occupy(t, c, 1, time.Hour, "n0", "n1")
	p, err := c.SelectNodes(&Request{MinNodes: 2, DesiredNodes: 6}, RunNow)
	require.NoError(t, err)
	assert.Len(t, p.Names, 4, "desired 6, only 4 free, minimum 2 met")
	p, err = c.SelectNodes(&Request{MinNodes: 2, MaxNodes: 3, DesiredNodes: 6}, RunNow)
	require.NoError(t, err)
	assert.Len(t, p.Names, 3, "desired is capped by the maximum")
}

func TestLinearTotalCPUs(t *testing.T) {
	c := uniform(t, 8, 4)
	p, err := c.SelectNodes(&Request{CPUs: 10}, RunNow)
	require.NoError(t, err)
	assert.Len(t, p.Names, 3, "whole nodes of 4 CPUs: 3 nodes for 10 CPUs")
	assert.Equal(t, 12, p.TotalCPUs)
	_, err = c.SelectNodes(&Request{CPUs: 10, MaxNodes: 2}, RunNow)
	assert.ErrorIs(t, err, ErrNodeConfig)
	_, err = c.SelectNodes(&Request{CPUs: 33}, RunNow)
	assert.ErrorIs(t, err, ErrNodeConfig)
}

func TestLinearWeightFirst(t *testing.T) {
	nodes := []Node{{Name: "heavy0", CPUs: 1, Weight: 10}, {Name: "light0", CPUs: 1, Weight: 1},
		{Name: "heavy1", CPUs: 1, Weight: 10}, {Name: "light1", CPUs: 1, Weight: 1}}
	c, err := New(nodes, []Partition{{Name: "p", Nodes: []string{"heavy0", "light0", "heavy1", "light1"}, Default: true}})
	require.NoError(t, err)
	p, err := c.SelectNodes(&Request{MinNodes: 2}, RunNow)
	require.NoError(t, err)
	assert.Equal(t, []string{"light0", "light1"}, p.Names)
	p, err = c.SelectNodes(&Request{MinNodes: 3}, RunNow)
	require.NoError(t, err)
	assert.Contains(t, p.Names, "light0")
	assert.Contains(t, p.Names, "light1")
}

func TestLinearSharedMinLoad(t *testing.T) {
	c := uniform(t, 4, 2)
	require.NoError(t, c.UpdatePartition(Partition{Name: "p", Nodes: span("n", 0, 3), Default: true, Sharing: Sharing{Mode: ShareForce, Count: 2}}))
	for id := JobID(1); id <= 3; id++ {
		p, err := c.SelectNodes(&Request{MinNodes: 1}, RunNow)
		require.NoError(t, err)
		require.NoError(t, c.Allocate(id, p, t0, t0.Add(time.Hour)))
	}
	// three jobs on the three least loaded nodes: n0, n1, n2 once each
	assert.Equal(t, []int{1, 1, 1, 0}, []int{c.JobsOn(0), c.JobsOn(1), c.JobsOn(2), c.JobsOn(3)})
	p, err := c.SelectNodes(&Request{MinNodes: 2}, RunNow)
	require.NoError(t, err)
	assert.Equal(t, []string{"n0", "n3"}, p.Names, "the idle node first, then the lowest index")
	require.NoError(t, c.Allocate(4, p, t0, t0.Add(time.Hour)))
	// max share 2 leaves n1, n2 and n3 one slot each
	for id := JobID(5); id <= 7; id++ {
		p, err := c.SelectNodes(&Request{MinNodes: 1}, RunNow)
		require.NoError(t, err)
		require.NoError(t, c.Allocate(id, p, t0, t0.Add(time.Hour)))
	}
	_, err = c.SelectNodes(&Request{MinNodes: 1}, RunNow)
	assert.ErrorIs(t, err, ErrBusy)
	require.NoError(t, c.CheckInvariants())
}

func TestLinearExclusiveBlocksSharing(t *testing.T) {
	c := uniform(t, 2, 2)
	require.NoError(t, c.UpdatePartition(Partition{Name: "p", Nodes: span("n", 0, 1), Default: true, Sharing: Sharing{Mode: ShareYes}}))
	p, err := c.SelectNodes(&Request{MinNodes: 2}, RunNow) // no --share: exclusive under YES
	require.NoError(t, err)
	assert.True(t, p.Exclusive)
	require.NoError(t, c.Allocate(1, p, t0, t0.Add(time.Hour)))
	assert.False(t, c.Share().Any())
	_, err = c.SelectNodes(&Request{Share: ShareOversubscribe}, RunNow)
	assert.ErrorIs(t, err, ErrBusy)
}

func consres(t testing.TB, n, cpus int, mode ShareMode) *Cluster {
	nodes := make([]Node, n)
	for i := range nodes {
		nodes[i] = Node{Name: names("c", i)[0], CPUs: cpus, RealMemory: 4000, Weight: 1,
			GRES: []GRES{{Name: "gpu", Type: "v100", Count: 2}, {Name: "gpu", Type: "a100", Count: 1}}}
	}
	c, err := New(nodes, []Partition{{Name: "p", Nodes: span("c", 0, n-1), Default: true, Sharing: Sharing{Mode: mode}}}, WithSelector(ConsRes{}))
	require.NoError(t, err)
	return c
}

func TestConsResSharesNodesByCPU(t *testing.T) {
	c := consres(t, 2, 8, ShareNo)
	for id := JobID(1); id <= 4; id++ {
		p, err := c.SelectNodes(&Request{CPUs: 4}, RunNow)
		require.NoError(t, err)
		require.Len(t, p.Alloc, 1)
		assert.Equal(t, 4, p.Alloc[0].CPUs)
		require.NoError(t, c.Allocate(id, p, t0, t0.Add(time.Duration(id)*time.Hour)))
	}
	assert.Equal(t, 0, c.FreeCPUs(0))
	assert.Equal(t, 0, c.FreeCPUs(1))
	_, err := c.SelectNodes(&Request{CPUs: 1}, RunNow)
	assert.ErrorIs(t, err, ErrBusy)
	p, err := c.SelectNodes(&Request{CPUs: 6}, WillRun)
	require.NoError(t, err)
	assert.Equal(t, t0.Add(2*time.Hour), p.Start, "jobs 1 and 2 (4 CPUs each) must end first")
	assert.False(t, p.Immediate)
	require.NoError(t, c.CheckInvariants())
}

func TestConsResMemoryAndGRES(t *testing.T) {
	c := consres(t, 1, 8, ShareNo)
	p, err := c.SelectNodes(&Request{MinMemoryPerNode: 3000, GRES: []GRESRequest{{Name: "gpu", Min: 1, Max: 3}}}, RunNow)
	require.NoError(t, err)
	require.Len(t, p.Alloc, 1)
	assert.Equal(t, int64(3000), p.Alloc[0].Memory)
	var gpus int64
	for _, g := range p.Alloc[0].GRES {
		gpus += g.Count
	}
	assert.Equal(t, int64(3), gpus, "a range takes its maximum when free")
	require.NoError(t, c.Allocate(1, p, t0, t0.Add(time.Hour)))
	_, err = c.SelectNodes(&Request{MinMemoryPerNode: 2000}, RunNow)
	assert.ErrorIs(t, err, ErrBusy, "1000 MB left")
	_, err = c.SelectNodes(&Request{GRES: []GRESRequest{{Name: "gpu", Min: 1, Max: 1}}}, RunNow)
	assert.ErrorIs(t, err, ErrBusy, "every GPU in use")
	_, err = c.SelectNodes(&Request{GRES: []GRESRequest{{Name: "gpu", Type: "v100", Min: 3, Max: 3}}}, TestOnly)
	assert.ErrorIs(t, err, ErrNodeConfig, "only two v100 per node")
	_, err = c.SelectNodes(&Request{GRES: []GRESRequest{{Name: "fpga", Min: 1, Max: 1}}}, TestOnly)
	assert.ErrorIs(t, err, ErrNodeConfig)
	p, err = c.SelectNodes(&Request{MinMemoryPerNode: 1000}, RunNow)
	require.NoError(t, err)
	assert.Equal(t, []string{"c0"}, p.Names)
}

func TestConsResExclusive(t *testing.T) {
	c := consres(t, 2, 8, ShareNo)
	p, err := c.SelectNodes(&Request{CPUs: 1}, RunNow)
	require.NoError(t, err)
	require.NoError(t, c.Allocate(1, p, t0, t0.Add(time.Hour)))
	p, err = c.SelectNodes(&Request{Share: ShareExclusiveJob}, RunNow)
	require.NoError(t, err)
	assert.Equal(t, []string{"c1"}, p.Names, "the idle node")
	assert.Equal(t, 8, p.TotalCPUs)
	require.NoError(t, c.Allocate(2, p, t0, t0.Add(time.Hour)))
	_, err = c.SelectNodes(&Request{CPUs: 1, Required: []string{"c1"}}, RunNow)
	assert.ErrorIs(t, err, ErrBusy)
	require.NoError(t, c.CheckInvariants())
}

func TestConsResOversubscribe(t *testing.T) {
	c := consres(t, 1, 2, ShareForce) // FORCE:4 by default
	for id := JobID(1); id <= 4; id++ {
		p, err := c.SelectNodes(&Request{CPUs: 2}, RunNow)
		require.NoError(t, err, "job %d", id)
		require.NoError(t, c.Allocate(id, p, t0, t0.Add(time.Hour)))
	}
	_, err := c.SelectNodes(&Request{CPUs: 1}, RunNow)
	assert.ErrorIs(t, err, ErrBusy)
}

type hookRecorder struct {
	Linear
	begun, ended []JobID
}

func (h *hookRecorder) JobBegin(id JobID, _ *Placement) { h.begun = append(h.begun, id) }
func (h *hookRecorder) JobFini(id JobID, _ *Placement)  { h.ended = append(h.ended, id) }

var _ JobHooks = (*hookRecorder)(nil)

func TestJobHooks(t *testing.T) {
	h := &hookRecorder{}
	c := uniform(t, 2, 1, WithSelector(h))
	p, err := c.SelectNodes(&Request{}, RunNow)
	require.NoError(t, err)
	require.NoError(t, c.Allocate(7, p, t0, t0))
	require.NoError(t, c.Release(7))
	assert.Equal(t, []JobID{7}, h.begun)
	assert.Equal(t, []JobID{7}, h.ended)
}

// badSelector breaks the Selector contract in the way its field says.
type badSelector struct {
	Linear
	choice Choice
}

func (b badSelector) JobTest(View, *Job, *bitset.BitSet, Counts) (Choice, bool) {
	return b.choice, true
}

// A selector's choice is checked before it becomes a Placement: a buggy
// selector gives ErrInvalidRequest naming the fault, never a panic or a
// placement outside the available nodes.
func TestSelectorChoiceIsChecked(t *testing.T) {
	gpu := []GRES{{Name: "gpu", Type: "v100", Count: 1}}
	bad := []struct {
		choice Choice
		why    string
	}{
		{Choice{Nodes: []NodeUse{{Node: 9, CPUs: 1}}}, "not among the available nodes"},
		{Choice{Nodes: []NodeUse{{Node: -1, CPUs: 1}}}, "not among the available nodes"},
		{Choice{Nodes: []NodeUse{{Node: 1, CPUs: 1}}}, "not among the available nodes"}, // c1 runs a job; Linear.Filter wants idle nodes
		{Choice{Nodes: []NodeUse{{Node: 0, CPUs: 1}, {Node: 0, CPUs: 1}}}, "chose node c0 twice"},
		{Choice{Nodes: []NodeUse{{Node: 0, CPUs: 9}}}, "outside what it has"},
		{Choice{Nodes: []NodeUse{{Node: 0, CPUs: 1, Memory: -1}}}, "outside what it has"},
		{Choice{Nodes: []NodeUse{{Node: 0, CPUs: 1, GRES: []GRES{{Name: "gpu", Type: "v100", Count: 3}}}}}, "does not have free"},
		{Choice{Nodes: []NodeUse{{Node: 0, CPUs: 1, GRES: []GRES{{Name: "fpga", Count: 1}}}}}, "does not have free"},
	}
	for _, b := range bad {
		c := consres(t, 2, 8, ShareNo)
		occupy(t, c, 1, time.Hour, "c1")
		c.selector = badSelector{choice: b.choice}
		_, err := c.SelectNodes(&Request{}, RunNow)
		require.ErrorIs(t, err, ErrInvalidRequest, b.why)
		assert.Contains(t, err.Error(), b.why)
	}
	c := consres(t, 2, 8, ShareNo)
	c.selector = badSelector{choice: Choice{Nodes: []NodeUse{{Node: 1, CPUs: 3, Memory: 10, GRES: gpu}}, Exclusive: true}}
	p, err := c.SelectNodes(&Request{}, RunNow)
	require.NoError(t, err, "a selector may name GRES itself")
	assert.Equal(t, []string{"c1"}, p.Names)
	assert.Equal(t, []GRESAlloc{{Name: "gpu", Type: "v100", Count: 1, key: 0, slot: 2}}, p.Alloc[0].GRES)
	assert.True(t, p.Exclusive)
	require.NoError(t, c.Allocate(1, p, t0, t0.Add(time.Hour)))
	require.NoError(t, c.CheckInvariants())
}
