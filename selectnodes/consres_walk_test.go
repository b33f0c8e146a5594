package selectnodes

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/bits-and-blooms/bitset"
	"github.com/hpcsched/hpcsched/internal/testseed"
	"github.com/stretchr/testify/require"
)

// consResWalkCluster is a random cluster under ConsRes where the walk
// mostly applies: nodes of one configuration, partitions of some of them
// in every sharing mode, partition limits, nodes down or drained; now and
// then not (two kinds of node, GRES, the compat mode).
func consResWalkCluster(t *testing.T, r *rand.Rand) *Cluster {
	t.Helper()
	cpus := []int{1, 2, 4, 8, 72}[r.IntN(5)]
	mem := []int64{0, 100, 4000}[r.IntN(3)]
	nodes := make([]Node, 1+r.IntN(130))
	modes := []ShareMode{ShareNo, ShareNo, ShareYes, ShareExclusive, ShareForce}
	part := Partition{Name: "p", Default: true, Sharing: Sharing{Mode: modes[r.IntN(len(modes))], Count: 1 + r.IntN(4)}}
	other := r.IntN(10) == 0
	for i := range nodes {
		nodes[i] = Node{Name: fmt.Sprintf("n%03d", i), CPUs: cpus, RealMemory: mem, Weight: 1}
		if other && r.IntN(3) == 0 {
			nodes[i].CPUs, nodes[i].Weight = cpus*2, 2
		}
		if r.IntN(20) == 0 {
			nodes[i].State = []NodeState{NodeDown, NodeDrain}[r.IntN(2)]
		}
		if r.IntN(5) != 0 || len(part.Nodes) == 0 {
			part.Nodes = append(part.Nodes, nodes[i].Name)
		}
	}
	if r.IntN(12) == 0 {
		nodes[0].GRES = []GRES{{Name: "gpu", Count: 2}}
	}
	if r.IntN(4) == 0 {
		part.MaxNodes = 1 + r.IntN(len(nodes)+2)
	}
	if r.IntN(8) == 0 {
		part.MinNodes = 1 + r.IntN(3)
	}
	if r.IntN(8) == 0 {
		part.MaxCPUsPerNode = 1 + r.IntN(cpus)
	}
	all := Partition{Name: "all", Nodes: make([]string, len(nodes)), Sharing: Sharing{Mode: modes[r.IntN(len(modes))], Count: 2}}
	for i := range nodes {
		all.Nodes[i] = nodes[i].Name
	}
	opts := []Option{WithSelector(ConsRes{})}
	if r.IntN(12) == 0 {
		opts = append(opts, WithSlurmCompat())
	}
	c, err := New(nodes, []Partition{part, all}, opts...)
	require.NoError(t, err)
	c.memConsumable = r.IntN(2) == 0
	return c
}

// consResRequest is a request the walk takes, now and then one it must
// not (features would need node sets; contiguity another picker).
func consResRequest(r *rand.Rand, c *Cluster) Request {
	n := c.NodeCount()
	cpus := c.records[0].cpus
	req := Request{Partition: []string{"", "", "all"}[r.IntN(3)]}
	switch r.IntN(3) {
	case 0:
		req.MinNodes = 1 + r.IntN(max(1, n/3))
	case 1:
		req.CPUs = 1 + r.IntN(max(1, cpus*n/3))
	default:
		req.MinNodes, req.CPUs = 1+r.IntN(3), 1+r.IntN(cpus*3)
	}
	if r.IntN(4) == 0 {
		req.MaxNodes = req.MinNodes + r.IntN(4)
	}
	if r.IntN(6) == 0 {
		req.DesiredNodes = req.MinNodes + r.IntN(4)
	}
	if r.IntN(4) == 0 {
		req.MinCPUsPerNode = 1 + r.IntN(cpus)
	}
	if r.IntN(3) == 0 {
		req.MinMemoryPerNode = int64(r.IntN(200))
	}
	if r.IntN(8) == 0 {
		req.MemPerCPU = int64(1 + r.IntN(30))
	}
	if r.IntN(10) == 0 {
		req.WholeMemory = true
	}
	req.Share = []ShareRequest{ShareDefault, ShareDefault, ShareExclusiveJob, ShareOversubscribe}[r.IntN(4)]
	if r.IntN(6) == 0 {
		req.ExcludeNodes = bitset.New(uint(n))
		for range r.IntN(n/2 + 1) {
			req.ExcludeNodes.Set(uint(r.IntN(n)))
		}
	}
	if r.IntN(20) == 0 {
		req.Contiguous = true
	}
	if r.IntN(20) == 0 {
		req.CoreTasks = true
	}
	return req
}

// loadForConsRes starts random jobs that share nodes (through the
// pipeline) until a few fail, then ends some of them again.
func loadForConsRes(t *testing.T, r *rand.Rand, c *Cluster) {
	c.noConsResWalk = true
	defer func() { c.noConsResWalk = false }()
	startUntilFails(t, c, 4, func() Request {
		req := consResRequest(r, c)
		req.Contiguous = false
		return req
	})
	for _, id := range c.Running() {
		if r.IntN(3) == 0 {
			require.NoError(t, c.Release(id))
		}
	}
}

// withConsResWalk answers f with the ConsRes walk on, then off.
func withConsResWalk[T any](c *Cluster, f func() T) (walk, pipeline T) {
	walk = f()
	c.noConsResWalk = true
	pipeline = f()
	c.noConsResWalk = false
	return walk, pipeline
}

// consResWalked is 1 when the walk answers req in mode, else 0.
func consResWalked(c *Cluster, req *Request, mode Mode) int {
	if !c.consResWalkable() {
		return 0
	}
	sc := c.takeScratch()
	defer c.putScratch(sc)
	job, err := c.resolve(req, sc)
	if err != nil {
		return 0
	}
	if _, ok, _ := c.consResWalk(job, sc, mode, callOptions{quick: true}); ok {
		return 1
	}
	return 0
}

// Try, Probe, ProbeNodes and ProbeInto in RunNow and TestOnly answer with
// the ConsRes walk exactly as the pipeline does: the same Placement, node
// for node and CPU for CPU, or the same error.
func TestConsResWalkIsThePipeline(t *testing.T) {
	seed := testseed.Draw(t)
	r := rand.New(rand.NewPCG(seed, 41))
	rounds := 250
	if testing.Short() {
		rounds = 20
	}
	if longTests() {
		rounds = 2500
	}
	walked, placed := 0, 0
	for k := range rounds {
		c := consResWalkCluster(t, r)
		loadForConsRes(t, r, c)
		n := c.NodeCount()
		for range 25 {
			req := consResRequest(r, c)
			for _, mode := range []Mode{RunNow, TestOnly} {
				where := fmt.Sprintf("seed %d round %d: %d nodes, %v, request %+v", seed, k, n, mode, req)
				type answer struct {
					p   *Placement
					err error
				}
				walk, pipeline := withConsResWalk(c, func() answer { p, err := c.Try(&req, mode); return answer{p, err} })
				require.Equal(t, pipeline.err, walk.err, where)
				require.Equal(t, pipeline.p, walk.p, where)
				type probe struct {
					p  *Placement
					ok bool
				}
				pw, pp := withConsResWalk(c, func() probe { p, ok := c.Probe(&req, mode); return probe{p, ok} })
				require.Equal(t, pp, pw, where)
				pw, pp = withConsResWalk(c, func() probe { p, ok := c.ProbeNodes(&req, mode); return probe{p, ok} })
				require.Equal(t, pp, pw, where)
				w, p := bitset.New(uint(n)), bitset.New(uint(n))
				okW := c.ProbeInto(&req, mode, w)
				c.noConsResWalk = true
				okP := c.ProbeInto(&req, mode, p)
				c.noConsResWalk = false
				require.Equal(t, okP, okW, where)
				require.True(t, p.Equal(w), "%s: %v against %v", where, w, p)
				if k := consResWalked(c, &req, mode); k > 0 {
					walked++
					if walk.err == nil {
						placed++
					}
				}
			}
		}
	}
	// the draws must reach the walk, and its successes, often
	require.Greater(t, walked, rounds*10, "too few walks")
	require.Greater(t, placed, rounds*3, "too few placements by walks")
	t.Logf("%d walks, %d placed", walked, placed)
}
