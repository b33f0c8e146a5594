package selectnodes

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/bits-and-blooms/bitset"
	"github.com/hpcsched/hpcsched/internal/testseed"
	"github.com/stretchr/testify/require"
)

// walkCluster is a random cluster where plain walks mostly apply: nodes
// of one kind under select/linear, now and then a partition of some of
// them, nodes down or drained, partition node limits; and now and then
// not (ConsRes, two kinds of node, GRES).
func walkCluster(t *testing.T, r *rand.Rand) *Cluster {
	t.Helper()
	cpus := []int{1, 2, 4, 72}[r.IntN(4)]
	nodes := make([]Node, 1+r.IntN(150))
	part := Partition{Name: "p", Default: true, Sharing: Sharing{Mode: []ShareMode{ShareNo, ShareNo, ShareYes, ShareExclusive}[r.IntN(4)]}}
	other := r.IntN(8) == 0
	for i := range nodes {
		nodes[i] = Node{Name: fmt.Sprintf("n%03d", i), CPUs: cpus, RealMemory: 100, Weight: 1}
		if other && r.IntN(3) == 0 {
			nodes[i].Weight = 2
		}
		if r.IntN(20) == 0 {
			nodes[i].State = []NodeState{NodeDown, NodeDrain}[r.IntN(2)]
		}
		if r.IntN(5) != 0 || len(part.Nodes) == 0 {
			part.Nodes = append(part.Nodes, nodes[i].Name)
		}
	}
	if r.IntN(10) == 0 {
		nodes[0].GRES = []GRES{{Name: "gpu", Count: 2}}
	}
	if r.IntN(4) == 0 {
		part.MaxNodes = 1 + r.IntN(len(nodes)+2)
	}
	if r.IntN(8) == 0 {
		part.MinNodes = 1 + r.IntN(3)
	}
	all := Partition{Name: "all", Nodes: make([]string, len(nodes))}
	for i := range nodes {
		all.Nodes[i] = nodes[i].Name
	}
	sel := Selector(Linear{})
	if r.IntN(8) == 0 {
		sel = ConsRes{}
	}
	c, err := New(nodes, []Partition{part, all}, WithSelector(sel))
	require.NoError(t, err)
	return c
}

// startUntilFails starts jobs of the requests draw makes (through Try,
// for an hour from t0) until fails of them find no room.
func startUntilFails(t *testing.T, c *Cluster, fails int, draw func() Request) {
	t.Helper()
	for id := JobID(1); fails > 0; id++ {
		req := draw()
		p, err := c.Try(&req, RunNow)
		if err != nil {
			fails--
			continue
		}
		require.NoError(t, c.Allocate(id, p, t0, t0.Add(time.Hour)))
	}
}

// loadForWalks starts random jobs on c (through the pipeline) until a
// few fail.
func loadForWalks(t *testing.T, r *rand.Rand, c *Cluster) {
	n := c.NodeCount()
	startUntilFails(t, c, 3, func() Request {
		return Request{MinNodes: 1 + r.IntN(max(1, n/4)), Partition: []string{"", "all"}[r.IntN(2)]}
	})
	// free some again, so the idle nodes come in runs of every length
	for id := JobID(1); id < JobID(n); id++ {
		if r.IntN(3) == 0 {
			_ = c.Release(id)
		}
	}
}

// walkRequest is a plain request, now and then with nodes withheld or
// another partition.
func walkRequest(r *rand.Rand, n int) Request {
	req := plainRequestFor(r, n)
	if r.IntN(2) == 0 {
		req.CPUs = r.IntN(n + 1)
	}
	if r.IntN(4) == 0 {
		req.ExcludeNodes = bitset.New(uint(n))
		for range r.IntN(n/2 + 1) {
			req.ExcludeNodes.Set(uint(r.IntN(n)))
		}
	}
	if r.IntN(5) == 0 {
		req.Partition = "all"
	}
	return req
}

// both answers a question with plain walks on and off.
func both[T any](c *Cluster, f func() T) (walk, pipeline T) {
	walk = f()
	c.noPlainWalk = true
	pipeline = f()
	c.noPlainWalk = false
	return walk, pipeline
}

// Try, in RunNow and TestOnly, answers with plain walks exactly as the
// pipeline does: the same Placement, field for field, or the same error.
func TestTryPlainIsTry(t *testing.T) {
	seed := testseed.Draw(t)
	r := rand.New(rand.NewPCG(seed, 23))
	rounds := 300
	if testing.Short() {
		rounds = 15
	}
	walked := 0
	for k := range rounds {
		c := walkCluster(t, r)
		loadForWalks(t, r, c)
		for range 20 {
			req := walkRequest(r, c.NodeCount())
			for _, mode := range []Mode{RunNow, TestOnly} {
				type answer struct {
					p   *Placement
					err error
				}
				walk, pipeline := both(c, func() answer { p, err := c.Try(&req, mode); return answer{p, err} })
				where := fmt.Sprintf("seed %d round %d: %d nodes, %T, %v, request %+v", seed, k, c.NodeCount(), c.Selector(), mode, req)
				require.Equal(t, pipeline.err, walk.err, where)
				require.Equal(t, pipeline.p, walk.p, where)
				walked += plainWalked(c, &req, mode)
			}
		}
	}
	require.Greater(t, walked, rounds*2, "too few plain walks")
	t.Logf("%d plain walks", walked)
}

// plainWalked is 1 when a plain walk answers req in mode, else 0.
func plainWalked(c *Cluster, req *Request, mode Mode) int {
	if !c.plainWalkable() {
		return 0
	}
	sc := c.takeScratch()
	defer c.putScratch(sc)
	job, err := c.resolve(req, sc)
	if err != nil {
		return 0
	}
	if _, ok, _ := c.plainWalk(job, sc, mode, false, nil); ok {
		return 1
	}
	return 0
}

// Probe, ProbeNodes and ProbeInto answer with plain walks exactly as the
// pipeline does.
func TestProbePlainIsProbe(t *testing.T) {
	seed := testseed.Draw(t)
	r := rand.New(rand.NewPCG(seed, 29))
	rounds := 200
	if testing.Short() {
		rounds = 10
	}
	for k := range rounds {
		c := walkCluster(t, r)
		loadForWalks(t, r, c)
		n := c.NodeCount()
		for range 20 {
			req := walkRequest(r, n)
			where := fmt.Sprintf("seed %d round %d: %d nodes, %T, request %+v", seed, k, n, c.Selector(), req)
			type answer struct {
				p  *Placement
				ok bool
			}
			for _, mode := range []Mode{RunNow, TestOnly} {
				walk, pipeline := both(c, func() answer { p, ok := c.Probe(&req, mode); return answer{p, ok} })
				require.Equal(t, pipeline, walk, where)
				walk, pipeline = both(c, func() answer { p, ok := c.ProbeNodes(&req, mode); return answer{p, ok} })
				require.Equal(t, pipeline, walk, where)
				// each answer in a bitmap of its own (both would write the
				// pipeline's over the walk's)
				w, p := bitset.New(uint(n)), bitset.New(uint(n))
				okW := c.ProbeInto(&req, mode, w)
				c.noPlainWalk = true
				okP := c.ProbeInto(&req, mode, p)
				c.noPlainWalk = false
				require.Equal(t, okP, okW, where)
				require.True(t, p.Equal(w), "%s: %v against %v", where, w, p)
			}
		}
	}
}

// FreeTotals sums what FreeCPUs says node by node.
func TestFreeTotals(t *testing.T) {
	seed := testseed.Draw(t)
	r := rand.New(rand.NewPCG(seed, 31))
	for range 30 {
		c := walkCluster(t, r)
		loadForWalks(t, r, c)
		cpus, nodes := 0, 0
		for i := range c.NodeCount() {
			if f := c.FreeCPUs(i); f > 0 {
				cpus, nodes = cpus+f, nodes+1
			}
		}
		gotCPUs, gotNodes := c.FreeTotals()
		require.Equal(t, cpus, gotCPUs, "seed %d", seed)
		require.Equal(t, nodes, gotNodes, "seed %d", seed)
		require.Equal(t, nodes > 0, c.HasFreeCPU(), "seed %d", seed)
	}
}

// HasFreeCPU says whether some node has a free CPU, on clusters filled to
// the last CPU, then emptied job by job (idle nodes, nodes with a CPU left
// beside a job, nodes reported smaller than configured).
func TestHasFreeCPU(t *testing.T) {
	seed := testseed.Draw(t)
	r := rand.New(rand.NewPCG(seed, 37))
	full, free := 0, 0
	for range 30 {
		c := walkCluster(t, r)
		loadForWalks(t, r, c)
		// fill every node to its last CPU, one job a node
		id := JobID(1 << 20)
		for i := range c.NodeCount() {
			if f := c.FreeCPUs(i); f > 0 {
				p := &Placement{Alloc: []NodeAlloc{{Node: i, CPUs: f}}}
				if c.Allocate(id, p, time.Time{}, time.Time{}) == nil {
					id++
				}
			}
		}
		for _, job := range c.Running() {
			want := false
			for i := range c.NodeCount() {
				want = want || c.FreeCPUs(i) > 0
			}
			require.Equal(t, want, c.HasFreeCPU(), "seed %d", seed)
			if want {
				free++
			} else {
				full++
			}
			require.NoError(t, c.Release(job))
		}
	}
	require.Positive(t, full, "no cluster was full")
	require.Positive(t, free, "no cluster had a free CPU")
}
