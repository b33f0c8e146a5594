package selectnodes

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/bits-and-blooms/bitset"
	"github.com/hpcsched/hpcsched/internal/testseed"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// offerRequest is randomRequest with memory and sharing: per node, per
// CPU or none (the partition's defaults then apply), and --exclusive.
func offerRequest(r *rand.Rand, nodes []Node) *Request {
	req := randomRequest(r, nodes)
	switch r.IntN(4) {
	case 0:
		req.MinMemoryPerNode = int64(r.IntN(60))
	case 1:
		req.MemPerCPU = int64(1 + r.IntN(40))
	}
	if r.IntN(5) == 0 {
		req.Share = ShareExclusiveJob
	}
	return req
}

// loadRandomly starts a few random jobs where the pipeline puts them.
func loadRandomly(r *rand.Rand, c *Cluster, nodes []Node) {
	for id := JobID(1); id <= JobID(r.IntN(5)); id++ {
		req := offerRequest(r, nodes)
		req.Features, req.Required, req.Contiguous = nil, nil, false
		if p, err := c.SelectNodes(req, RunNow); err == nil {
			_ = c.Allocate(id, p, t0, t0.Add(time.Hour))
		}
	}
}

// greedyLayout takes the offered nodes in index order (within the first
// alternative that has nodes, for a matching OR), each as much as the job
// still needs, until the counts and the CPU total are met.
func greedyLayout(o *Offer, req *Request) ([]NodeUse, bool) {
	nodes := o.Nodes()
	if alts := o.Alternatives(); alts != nil {
		nodes = bitset.New(0)
		for _, a := range alts {
			if a.Any() {
				nodes = a
				break
			}
		}
	}
	n := o.Counts()
	var out []NodeUse
	left := req.CPUs
	gres := make([]int64, len(req.GRES))
	for k, g := range req.GRES {
		gres[k] = g.Min
	}
	for i, ok := nodes.NextSet(0); ok && (len(out) < n.Min || left > 0); i, ok = nodes.NextSet(i + 1) {
		cpus := o.CPUs(int(i))
		if !o.Whole() {
			cpus = min(cpus, max(left, o.CPUsPerNode()))
		}
		out = append(out, o.Use(int(i), cpus, gres...))
		left -= cpus
	}
	return out, len(out) > 0 && len(out) >= n.Min && left <= 0 && (n.Max == 0 || len(out) <= n.Max)
}

// An Offer agrees with the pipeline both ways: what a selection takes is
// offered, and a layout built from the offer alone passes PlaceExact.
func TestOfferAgreesWithThePipeline(t *testing.T) {
	seed := testseed.Draw(t)
	r := rand.New(rand.NewPCG(seed, 7))
	built := 0
	for range iterations(600, 6000) {
		sel := []Selector{ConsRes{}, Linear{}}[r.IntN(2)]
		c, nodes, _ := randomCluster(r, sel)
		loadRandomly(r, c, nodes)
		req := offerRequest(r, nodes)
		o, oerr := c.Offer(req)
		p, perr := c.SelectNodes(req, RunNow)
		if oerr != nil {
			require.Error(t, perr, "the offer refused %+v, the pipeline placed it", req)
			continue
		}
		if perr == nil {
			for _, a := range p.Alloc {
				require.True(t, o.Nodes().Test(uint(a.Node)), "selected node %d not offered for %+v", a.Node, req)
				require.LessOrEqual(t, a.CPUs, o.CPUs(a.Node), "node %d for %+v", a.Node, req)
			}
		}
		if req.Required != nil || req.Contiguous || (req.Features != nil && req.Features.Counts() != nil) {
			continue
		}
		if uses, ok := greedyLayout(o, req); ok {
			built++
			_, err := c.PlaceExact(req, uses)
			require.NoError(t, err, "request %+v, layout %+v", req, uses)
		}
	}
	assert.Positive(t, built)
}

func TestOfferMemoryAndExclusive(t *testing.T) {
	c := exactCluster(t)
	p, err := c.SelectNodes(&Request{CPUs: 2, MinMemoryPerNode: 600, Required: []string{"n0"}}, RunNow)
	require.NoError(t, err)
	require.NoError(t, c.Allocate(1, p, t0, t0.Add(time.Hour)))

	o, err := c.Offer(&Request{CPUs: 4, MemPerCPU: 100})
	require.NoError(t, err)
	assert.Equal(t, 4, o.CPUs(0), "400 MB free holds 4 CPUs at 100 MB each")
	assert.Equal(t, 8, o.CPUs(1))
	assert.Equal(t, NodeUse{Node: 0, CPUs: 3, Memory: 300}, o.Use(0, 3))

	ex, err := c.Offer(&Request{CPUs: 4, Share: ShareExclusiveJob})
	require.NoError(t, err)
	assert.False(t, ex.Nodes().Test(0), "n0 is busy: no exclusive job there")
	assert.Equal(t, 8, ex.CPUs(1), "a whole idle node")
	assert.True(t, ex.Whole())

	_, err = c.Offer(&Request{MinMemoryPerNode: 5000})
	assert.ErrorIs(t, err, ErrNodeConfig)
	_, err = c.Offer(nil)
	assert.ErrorIs(t, err, ErrInvalidRequest)

	alt, err := c.Offer(&Request{Features: mustExpr(t, "[a|b]")})
	require.NoError(t, err)
	alts := alt.Alternatives()
	require.Len(t, alts, 2)
	assert.Equal(t, uint(4), alts[0].Count())
	assert.Equal(t, uint(2), alts[1].Count())

	g, err := c.Offer(&Request{MinNodes: 1, GRES: []GRESRequest{{Name: "gpu", Min: 1, Max: 2}}})
	require.NoError(t, err)
	assert.Equal(t, int64(2), g.GRES(0, 0))
	assert.Equal(t, []GRES{{Name: "gpu", Type: "v100", Count: 2}}, g.Use(0, 1, 2).GRES)
	assert.False(t, g.Nodes().Test(4), "n4 has no GPU")
}

func TestOfferZeroValue(t *testing.T) {
	var o Offer
	assert.Zero(t, o.Nodes().Count())
	assert.Zero(t, o.CPUs(0))
	assert.Zero(t, o.GRES(0, 0))
	assert.Nil(t, o.Alternatives())
	assert.Equal(t, NodeUse{Node: 2, CPUs: 3}, o.Use(2, 3))
	assert.Equal(t, 1, o.CPUsPerNode())
}

// An offer reads the load as placements are added to its snapshot.
func TestOfferFollowsTheSnapshot(t *testing.T) {
	c := exactCluster(t)
	snap := c.Snapshot()
	req := &Request{CPUs: 2, MinMemoryPerNode: 600}
	o, err := snap.Offer(req)
	require.NoError(t, err)
	require.Equal(t, 8, o.CPUs(0))
	p, err := snap.PlaceExact(req, []NodeUse{o.Use(0, 2)})
	require.NoError(t, err)
	require.NoError(t, snap.Allocate(1, p, t0, t0.Add(time.Hour)))
	assert.Equal(t, 0, o.CPUs(0), "400 MB left: not the 600 the job needs")
	assert.Equal(t, 8, o.CPUs(1))
	assert.Equal(t, 8, c.FreeCPUs(0), "the cluster itself is untouched")
}
