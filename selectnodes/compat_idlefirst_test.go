package selectnodes

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A job that may share nodes goes to idle nodes first in compat mode
// (share_over.conf of the recorded topo-share set); one that may not share
// is placed by the usual rules, on the loaded nodes.
func TestCompatSharedJobsPreferIdleNodes(t *testing.T) {
	build := func() *Cluster {
		var nodes []Node
		for _, n := range span("o", 1, 6) {
			nodes = append(nodes, Node{Name: n, CPUs: 16, RealMemory: 32000, Weight: 1})
		}
		for _, n := range span("o", 7, 8) {
			nodes = append(nodes, Node{Name: n, CPUs: 32, RealMemory: 64000, Weight: 3})
		}
		all := span("o", 1, 8)
		c, err := New(nodes, []Partition{{Name: "no", Nodes: all, Default: true},
			{Name: "force", Nodes: all, Sharing: Sharing{Mode: ShareForce, Count: 2}}}, WithSelector(ConsRes{}), WithSlurmCompat())
		require.NoError(t, err)
		place(t, c, 1, "no", 8, "o1")
		place(t, c, 2, "no", 4, "o2")
		place(t, c, 3, "no", 12, "o3")
		return c
	}
	for _, tt := range []struct {
		req  Request
		want string
	}{
		{Request{Partition: "force", MinNodes: 1, MaxNodes: 1}, "o4"},
		{Request{Partition: "force", MinNodes: 1, MaxNodes: 1, CPUs: 16}, "o4"},
		{Request{Partition: "force", MinNodes: 2, MaxNodes: 2, CPUs: 40, Share: ShareOversubscribe}, "o[4,7]"},
		{Request{Partition: "no", MinNodes: 1, MaxNodes: 1}, "o3"}, // the fullest node, as Slurm
	} {
		p, err := build().SelectNodes(&tt.req, RunNow)
		require.NoError(t, err, "%+v", tt.req)
		assert.Equal(t, tt.want, p.Hostlist(), "%+v", tt.req)
	}
}

// Under LLN, a CPU total within only the partition's MaxNodes takes the
// least loaded nodes in turn and is refused when they cannot hold it; with
// a node count of the job's own the last slot still goes to a node that
// completes the total (lln-maxcpus-blind llnpb.conf; lln_a.conf -N1 -n8).
func TestCompatLLNWithinMaxNodes(t *testing.T) {
	var nodes []Node
	for _, n := range span("r", 1, 5) {
		nodes = append(nodes, Node{Name: n, CPUs: 20, RealMemory: 40000, Weight: 1})
	}
	for _, n := range span("r", 6, 7) {
		nodes = append(nodes, Node{Name: n, CPUs: 40, RealMemory: 80000, Weight: 2})
	}
	all := span("r", 1, 7)
	c, err := New(nodes, []Partition{{Name: "work", Nodes: all, Default: true, LLN: true, MaxNodes: 4},
		{Name: "std", Nodes: all, LLN: true}}, WithSelector(ConsRes{}), WithSlurmCompat())
	require.NoError(t, err)
	_, err = c.SelectNodes(&Request{CPUs: 90}, RunNow)
	assert.ErrorIs(t, err, ErrNodeConfig, "r[1-4] hold 80")
	p, err := c.SelectNodes(&Request{CPUs: 90, MinNodes: 1, MaxNodes: 4}, RunNow)
	require.NoError(t, err)
	assert.Equal(t, "r[1-3,6]", p.Hostlist(), "the job's own -N1-4: the last slot to a node that completes it")
	p, err = c.SelectNodes(&Request{Partition: "std", CPUs: 90}, RunNow)
	require.NoError(t, err)
	assert.Equal(t, "r[1-5]", p.Hostlist())
}

// --mem=0 (WholeMemory) needs a node with none of its memory allocated
// where memory is consumable, and takes all of it; in both modes.
func TestWholeMemory(t *testing.T) {
	for _, compat := range []bool{false, true} {
		opts := []Option{WithSelector(ConsRes{})}
		if compat {
			opts = append(opts, WithSlurmCompat())
		}
		c := uniform(t, 4, 16, opts...)
		c.memConsumable = true
		p, err := c.PlaceExact(&Request{Required: []string{"n0"}, MinNodes: 1}, []NodeUse{{Node: 0, CPUs: 2, Memory: 100}})
		require.NoError(t, err)
		require.NoError(t, c.Allocate(1, p, t0, t0.Add(time.Hour)))
		got, err := c.SelectNodes(&Request{MinNodes: 1, MaxNodes: 1, WholeMemory: true}, RunNow)
		require.NoError(t, err)
		assert.Equal(t, "n1", got.Hostlist(), "compat %v: n0 holds memory", compat)
		assert.Equal(t, int64(1000), got.Alloc[0].Memory, "the whole node's memory")
		_, err = c.SelectNodes(&Request{Required: []string{"n0"}, MinNodes: 1, MaxNodes: 1, WholeMemory: true}, RunNow)
		assert.ErrorIs(t, err, ErrBusy)
	}
}
