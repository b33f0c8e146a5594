package selectnodes

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// htCluster is ht_coremem.conf's shape: four nodes of 2 sockets x 4 cores
// x 2 threads (16 CPUs).
func htCluster(t *testing.T, compat bool) *Cluster {
	var nodes []Node
	for _, n := range span("h", 1, 4) {
		nodes = append(nodes, Node{Name: n, Sockets: 2, CoresPerSocket: 4, Threads: 2, RealMemory: 32000, Weight: 1})
	}
	opts := []Option{WithSelector(ConsRes{})}
	if compat {
		opts = append(opts, WithSlurmCompat())
	}
	c, err := New(nodes, []Partition{{Name: "all", Nodes: span("h", 1, 4), Default: true}}, opts...)
	require.NoError(t, err)
	return c
}

// CoreTasks counts cores and allocates their threads; MaxCPUsPerSocket
// bounds a node by its sockets; in both modes.
func TestTaskLayouts(t *testing.T) {
	for _, compat := range []bool{false, true} {
		for _, tt := range []struct {
			req   Request
			nodes int
			cpus  int // allocated in all
		}{
			{Request{CPUs: 9, CoreTasks: true}, 2, 18},
			{Request{CPUs: 8, CoreTasks: true}, 1, 16},
			{Request{CPUs: 8}, 1, 8},
			{Request{CPUs: 5, MaxCPUsPerSocket: 2}, 2, 5},
			{Request{CPUs: 16, MaxCPUsPerSocket: 2}, 4, 16},
		} {
			p, err := htCluster(t, compat).SelectNodes(&tt.req, RunNow)
			require.NoError(t, err, "%+v", tt.req)
			assert.Equal(t, tt.nodes, p.NodeCount(), "compat %v %+v: %s", compat, tt.req, p.Hostlist())
			total := 0
			for _, a := range p.Alloc {
				total += a.CPUs
			}
			assert.Equal(t, tt.cpus, total, "compat %v %+v", compat, tt.req)
		}
		_, err := htCluster(t, compat).SelectNodes(&Request{CPUs: 9, MinNodes: 1, MaxNodes: 1, CoreTasks: true}, RunNow)
		assert.ErrorIs(t, err, ErrNodeConfig, "8 cores a node")
		_, err = htCluster(t, compat).SelectNodes(&Request{CPUs: 1, MaxCPUsPerSocket: -1}, RunNow)
		assert.ErrorIs(t, err, ErrInvalidRequest)
	}
}
