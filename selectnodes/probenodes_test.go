package selectnodes

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// ProbeNodes answers exactly as Probe does, on the topology-aware seed-001
// cluster under a random load, only without the allocation records.
func TestProbeNodesAgreesWithProbe(t *testing.T) {
	c, err := Seed001()
	require.NoError(t, err)
	r := rand.New(rand.NewPCG(18, 18))
	for id := JobID(1); id <= 40; id++ { // a random partial load of shared and exclusive jobs
		req := Request{CPUs: 1 + r.IntN(200)}
		if r.IntN(3) == 0 {
			req = Request{MinNodes: 1 + r.IntN(24), Share: ShareExclusiveJob}
		}
		if p, ok := c.Probe(&req, RunNow); ok {
			require.NoError(t, c.Allocate(id, p, t0, t0.Add(time.Hour)))
		}
	}
	fits := 0
	for k := range 200 {
		req := Request{CPUs: 1 + r.IntN(4000), MinNodes: r.IntN(4)}
		if r.IntN(4) == 0 {
			req = Request{MinNodes: 1 + r.IntN(300), Share: ShareExclusiveJob}
		}
		if r.IntN(3) == 0 {
			req.GRES = []GRESRequest{{Name: "gpu", Min: 1, Max: 1 + int64(r.IntN(3))}}
		}
		for _, mode := range []Mode{RunNow, TestOnly} {
			name := fmt.Sprintf("%d/%+v/mode=%d", k, req, mode)
			full, okFull := c.Probe(&req, mode)
			nodes, ok := c.ProbeNodes(&req, mode)
			require.Equal(t, okFull, ok, name)
			if !ok {
				continue
			}
			fits++
			assert.Nil(t, nodes.Alloc, name)
			assert.True(t, full.NodeSet().Equal(nodes.NodeSet()), name)
			assert.Equal(t, full.Names, nodes.Names, name)
			assert.Equal(t, full.TotalCPUs, nodes.TotalCPUs, name)
			assert.Equal(t, full.Weight, nodes.Weight, name)
			assert.Equal(t, full.Partition, nodes.Partition, name)
			assert.Equal(t, full.Exclusive, nodes.Exclusive, name)
		}
	}
	assert.Greater(t, fits, 50, "the requests must exercise fits, not only failures")
}
