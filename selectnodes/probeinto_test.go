package selectnodes

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/bits-and-blooms/bitset"
	"github.com/hpcsched/hpcsched/internal/shareddata"
	"github.com/hpcsched/hpcsched/internal/testseed"
	"github.com/hpcsched/hpcsched/slurmconf"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// ProbeInto chooses exactly the nodes ProbeNodes chooses, and fails
// exactly when it fails, under random loads and requests: on the
// topology-aware seed-001 cluster (GRES, exclusive jobs, withheld nodes)
// and on the SLAC site's configuration (features, alternatives, counted
// terms, typed GRES).
func TestProbeIntoAgreesWithProbeNodes(t *testing.T) {
	seed := testseed.Draw(t)
	c, err := Seed001()
	require.NoError(t, err)
	probeIntoAgrees(t, c, rand.New(rand.NewPCG(seed, 1)), 4000, nil)

	fsys := shareddata.SiteConfigs(t)
	cfg, err := slurmconf.ParseFile(fsys, "slac_sdf_prod/slurm.conf")
	require.NoError(t, err)
	site, err := FromConfig(cfg)
	require.NoError(t, err)
	exprs := []string{"", "GPU_SKU:V100", "CPU_FRQ:2.10GHz", "[GPU_SKU:RTX2080TI|GPU_SKU:V100]",
		"GPU_SKU:V100|CPU_FRQ:2.10GHz", "[GPU_SKU:V100*1&CPU_FRQ:2.10GHz*2]"}
	probeIntoAgrees(t, site, rand.New(rand.NewPCG(seed, 2)), 300, exprs)
}

func probeIntoAgrees(t *testing.T, c *Cluster, r *rand.Rand, maxCPUs int, exprs []string) {
	n := c.NodeCount()
	for id := JobID(1); id <= 40; id++ { // a random partial load
		req := Request{CPUs: 1 + r.IntN(200)}
		if r.IntN(3) == 0 {
			req = Request{MinNodes: 1 + r.IntN(24), Share: ShareExclusiveJob}
		}
		if p, ok := c.Probe(&req, RunNow); ok {
			require.NoError(t, c.Allocate(id, p, t0, t0.Add(time.Hour)))
		}
	}
	dst := bitset.New(3) // smaller than the cluster: it grows
	fits := 0
	for k := range 300 {
		req := Request{CPUs: 1 + r.IntN(maxCPUs), MinNodes: r.IntN(4)}
		if r.IntN(4) == 0 {
			req = Request{MinNodes: 1 + r.IntN(min(300, c.NodeCount())), Share: ShareExclusiveJob}
		}
		if r.IntN(3) == 0 {
			req.GRES = []GRESRequest{{Name: "gpu", Min: 1, Max: 1 + int64(r.IntN(3))}}
		}
		if r.IntN(3) == 0 { // withhold a random half of the nodes
			req.ExcludeNodes = bitset.New(uint(n))
			for i := range n {
				if r.IntN(2) == 0 {
					req.ExcludeNodes.Set(uint(i))
				}
			}
		}
		if len(exprs) > 0 {
			if e := exprs[r.IntN(len(exprs))]; e != "" {
				req.Features = mustExpr(t, e)
			}
		}
		for _, mode := range []Mode{RunNow, TestOnly, WillRun} {
			name := fmt.Sprintf("%d/%+v/mode=%d", k, req, mode)
			dst.Set(1) // stale content is cleared
			p, ok := c.ProbeNodes(&req, mode)
			require.Equal(t, ok, c.ProbeInto(&req, mode, dst), name)
			if !ok {
				assert.Zero(t, dst.Count(), name)
				continue
			}
			fits++
			assert.Zero(t, p.NodeSet().SymmetricDifferenceCardinality(dst), "%s: %s against %s", name, p.NodeSet(), dst)
		}
	}
	assert.Greater(t, fits, 50, "the requests must exercise fits, not only failures")
	require.NoError(t, c.CheckInvariants())
}

// ProbeInto refuses a nil destination by name and a nil request with false.
func TestProbeIntoMisuse(t *testing.T) {
	c, err := Seed001()
	require.NoError(t, err)
	assert.PanicsWithValue(t, "selectnodes.ProbeInto: dst is nil", func() { c.ProbeInto(&Request{}, RunNow, nil) })
	dst := bitset.New(8)
	dst.Set(2)
	assert.False(t, c.ProbeInto(nil, RunNow, dst))
	assert.Zero(t, dst.Count())

	// a zero-value or short dst grows to the cluster's size, fit or not,
	// so it compares with the cluster's other node sets; a longer one
	// keeps its length
	n := uint(c.NodeCount())
	for _, req := range []*Request{{MinNodes: 1}, {MinNodes: c.NodeCount() + 1}} {
		for _, dst := range []*bitset.BitSet{{}, bitset.New(1), bitset.New(n + 70)} {
			had := dst.Len()
			ok := c.ProbeInto(req, TestOnly, dst)
			assert.Equal(t, max(had, n), dst.Len(), "fits %v, length %d before", ok, had)
			assert.Equal(t, ok, dst.Any())
		}
	}
}
