package selectnodes

import (
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// capCluster is mc_a.conf of the recorded set: eight nodes, six of 16 CPUs
// (weight 1) and two of 32 (weight 2), in a partition capped at 8 CPUs
// per node (the default) and an uncapped one.
func capCluster(t *testing.T, opts ...Option) *Cluster {
	t.Helper()
	var nodes []Node
	for _, n := range span("m", 1, 6) {
		nodes = append(nodes, Node{Name: n, CPUs: 16, RealMemory: 32000, Weight: 1})
	}
	for _, n := range span("m", 7, 8) {
		nodes = append(nodes, Node{Name: n, CPUs: 32, RealMemory: 64000, Weight: 2})
	}
	all := span("m", 1, 8)
	c, err := New(nodes, []Partition{
		{Name: "cap8", Nodes: all, Default: true, MaxCPUsPerNode: 8},
		{Name: "full", Nodes: all},
	}, append([]Option{WithSelector(ConsRes{})}, opts...)...)
	require.NoError(t, err)
	return c
}

// place allocates a job of cpus CPUs on each named node in partition part.
func place(t *testing.T, c *Cluster, id JobID, part string, cpus int, names ...string) {
	t.Helper()
	p, err := c.PlaceExact(&Request{Partition: part, Required: names, MinNodes: len(names)}, nodeUses(c, cpus, names...))
	require.NoError(t, err)
	require.NoError(t, c.Allocate(id, p, t0, t0.Add(time.Hour)))
}

func nodeUses(c *Cluster, cpus int, names ...string) []NodeUse {
	var out []NodeUse
	for _, n := range names {
		i, _ := c.NodeIndex(n)
		out = append(out, NodeUse{Node: i, CPUs: cpus})
	}
	return out
}

// MaxCPUsPerNode is a limit in both modes: what a node may give a job of
// the partition, and what the partition's jobs hold there together.
func TestMaxCPUsPerNode(t *testing.T) {
	for _, compat := range []bool{false, true} {
		var opts []Option
		if compat {
			opts = append(opts, WithSlurmCompat())
		}
		tests := []struct {
			name  string
			req   Request
			nodes int   // placed on this many nodes, or
			class error // refused with this class
		}{
			{"eight on one node", Request{MinNodes: 1, MaxNodes: 1, CPUs: 8}, 1, nil},
			{"nine on one node", Request{MinNodes: 1, MaxNodes: 1, CPUs: 9}, 0, ErrNodeConfig},
			{"a task above the cap", Request{CPUs: 10, MinCPUsPerNode: 10}, 0, ErrNodeConfig},
			{"a whole node above the cap", Request{MinNodes: 1, MaxNodes: 1, Share: ShareExclusiveJob}, 0, ErrNodeConfig},
			{"forty spread", Request{CPUs: 40}, 5, nil},
			{"twenty on two", Request{MinNodes: 2, MaxNodes: 2, CPUs: 20}, 0, ErrNodeConfig},
			{"uncapped", Request{Partition: "full", MinNodes: 1, MaxNodes: 1, CPUs: 16}, 1, nil},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				c := capCluster(t, opts...)
				p, err := c.SelectNodes(&tt.req, RunNow)
				if tt.class != nil {
					require.Error(t, err)
					assert.True(t, errors.Is(err, tt.class), "compat %v: %v", compat, err)
					return
				}
				require.NoError(t, err, "compat %v", compat)
				assert.Equal(t, tt.nodes, p.NodeCount(), "compat %v: %s", compat, p.Hostlist())
				for _, a := range p.Alloc {
					if tt.req.Partition == "" { // cap8
						assert.LessOrEqual(t, a.CPUs, 8)
					}
				}
			})
		}
	}
}

// The cap counts the CPUs the partition's jobs hold on a node, not those
// of other partitions' jobs; Release, snapshots, UpdatePartition and
// WillRun keep the count.
func TestMaxCPUsPerNodeCountsThePartitionsJobs(t *testing.T) {
	c := capCluster(t, WithSlurmCompat())
	place(t, c, 1, "cap8", 6, "m1")
	place(t, c, 2, "cap8", 4, "m2")
	place(t, c, 3, "full", 8, "m3")
	require.NoError(t, c.CheckInvariants())

	p, err := c.SelectNodes(&Request{CPUs: 9}, RunNow)
	require.NoError(t, err)
	assert.Equal(t, "m[1-3]", p.Hostlist(), "m1 gives 2, m2 4, m3 (8 of the full partition's) 3")
	got := map[string]int{}
	for k, a := range p.Alloc {
		got[p.Names[k]] = a.CPUs
	}
	assert.Equal(t, map[string]int{"m1": 2, "m2": 4, "m3": 3}, got)

	_, err = c.SelectNodes(&Request{Required: []string{"m1"}, MinNodes: 1, MaxNodes: 1, CPUs: 4}, RunNow)
	assert.ErrorIs(t, err, ErrBusy, "two CPUs of the cap are left on m1")
	full, err := c.SelectNodes(&Request{Partition: "full", Required: []string{"m1"}, MaxNodes: 1, CPUs: 10}, RunNow)
	require.NoError(t, err, "the uncapped partition has m1's 10 free CPUs")
	assert.Equal(t, "m1", full.Hostlist())

	snap := c.Snapshot()
	require.NoError(t, c.Release(1))
	require.NoError(t, c.CheckInvariants())
	_, err = snap.SelectNodes(&Request{Required: []string{"m1"}, MinNodes: 1, MaxNodes: 1, CPUs: 4}, RunNow)
	assert.ErrorIs(t, err, ErrBusy, "the snapshot keeps its own count")
	_, err = c.SelectNodes(&Request{Required: []string{"m1"}, MinNodes: 1, MaxNodes: 1, CPUs: 8}, RunNow)
	assert.NoError(t, err, "released")

	// a cap set later counts the jobs already running in the partition
	part, _ := c.Partition("full")
	part.MaxCPUsPerNode = 10
	require.NoError(t, c.UpdatePartition(part))
	require.NoError(t, c.CheckInvariants())
	_, err = c.SelectNodes(&Request{Partition: "full", Required: []string{"m3"}, MaxNodes: 1, CPUs: 3}, RunNow)
	assert.ErrorIs(t, err, ErrBusy, "8 of full's 10 are held on m3")

	// WillRun: the cap frees when the partition's job ends
	w, err := c.SelectNodes(&Request{Partition: "full", Required: []string{"m3"}, MaxNodes: 1, CPUs: 3}, WillRun)
	require.NoError(t, err)
	assert.Equal(t, t0.Add(time.Hour), w.Start)
}

func TestMaxCPUsPerNodeNegativeIsRefused(t *testing.T) {
	_, err := New([]Node{{Name: "a", CPUs: 4}}, []Partition{{Name: "p", Nodes: []string{"a"}, MaxCPUsPerNode: -1}})
	assert.Error(t, err)
}

// LLN in compat mode takes the least loaded nodes (the largest idle share)
// within the lowest weight; the default mode packs as before.
func TestCompatLLN(t *testing.T) {
	build := func(compat bool) *Cluster {
		var nodes []Node
		for _, n := range span("l", 1, 4) {
			nodes = append(nodes, Node{Name: n, CPUs: 16, RealMemory: 32000, Weight: 1})
		}
		for _, n := range span("l", 5, 6) {
			nodes = append(nodes, Node{Name: n, CPUs: 32, RealMemory: 64000, Weight: 1})
		}
		for _, n := range span("l", 7, 8) {
			nodes = append(nodes, Node{Name: n, CPUs: 48, RealMemory: 96000, Weight: 5})
		}
		opts := []Option{WithSelector(ConsRes{})}
		if compat {
			opts = append(opts, WithSlurmCompat())
		}
		c, err := New(nodes, []Partition{{Name: "all", Nodes: span("l", 1, 8), Default: true, LLN: true}}, opts...)
		require.NoError(t, err)
		place(t, c, 1, "all", 20, "l5")
		place(t, c, 2, "all", 4, "l1")
		place(t, c, 3, "all", 10, "l2")
		return c
	}
	for _, tt := range []struct {
		req  Request
		want string
	}{
		{Request{CPUs: 1}, "l3"},
		{Request{MinNodes: 3, MaxNodes: 3}, "l[3-4,6]"},
		{Request{CPUs: 70}, "l[1,3-4,6]"},
		{Request{Required: []string{"l1"}, CPUs: 20}, "l[1,3]"},
		{Request{MinNodes: 4, MaxNodes: 4, CPUs: 4}, "l[1,3-4,6]"},
	} {
		p, err := build(true).SelectNodes(&tt.req, RunNow)
		require.NoError(t, err)
		assert.Equal(t, tt.want, p.Hostlist(), "%+v", tt.req)
	}
	p, err := build(false).SelectNodes(&Request{CPUs: 1}, RunNow)
	require.NoError(t, err)
	assert.NotEqual(t, "l3", p.Hostlist(), "the default mode packs: a loaded node first")
}
