package selectnodes

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/bits-and-blooms/bitset"
	"github.com/hpcsched/hpcsched/features"
	"github.com/hpcsched/hpcsched/internal/testseed"
	"github.com/stretchr/testify/require"
)

// kindsCluster is a random cluster of a few kinds of node (CPUs from 1 to
// 80, memory, features a, b, c), grouped or interleaved, some down or
// drained, under ConsRes or Linear, any FastSchedule, now and then
// SlurmCompat; partition p (the default) holds most nodes and q some,
// with random sharing and now and then a CPU cap per node.
func kindsCluster(t *testing.T, r *rand.Rand) (*Cluster, []Node) {
	t.Helper()
	type kind struct {
		cpus  int
		mem   int64
		feats []string
	}
	kinds := make([]kind, 1+r.IntN(4))
	for k := range kinds {
		kinds[k] = kind{cpus: []int{1, 4, 12, 16, 32, 80}[r.IntN(6)], mem: int64(100 * (1 + r.IntN(8)))}
		for _, f := range []string{"a", "b", "c"} {
			if r.IntN(2) == 0 {
				kinds[k].feats = append(kinds[k].feats, f)
			}
		}
	}
	nodes := make([]Node, 2+r.IntN(150))
	grouped := r.IntN(2) == 0
	var p, q Partition
	for i := range nodes {
		k := kinds[r.IntN(len(kinds))]
		if grouped {
			k = kinds[i*len(kinds)/len(nodes)]
		}
		nodes[i] = Node{Name: fmt.Sprintf("k%03d", i), CPUs: k.cpus, RealMemory: k.mem, Weight: int64(1 + k.cpus%3), Features: k.feats}
		if r.IntN(12) == 0 {
			nodes[i].State = []NodeState{NodeDown, NodeDrain}[r.IntN(2)]
		}
		if r.IntN(6) != 0 || len(p.Nodes) == 0 {
			p.Nodes = append(p.Nodes, nodes[i].Name)
		}
		if r.IntN(3) == 0 || len(q.Nodes) == 0 {
			q.Nodes = append(q.Nodes, nodes[i].Name)
		}
	}
	modes := []ShareMode{ShareNo, ShareYes, ShareExclusive, ShareForce}
	p.Name, p.Default, p.Sharing = "p", true, Sharing{Mode: modes[r.IntN(2)*r.IntN(4)], Count: 1 + r.IntN(3)}
	q.Name, q.Sharing = "q", Sharing{Mode: modes[r.IntN(4)], Count: 1 + r.IntN(3)}
	if r.IntN(6) == 0 {
		q.MaxCPUsPerNode = 1 + r.IntN(16)
	}
	if r.IntN(6) == 0 {
		q.MinNodes = 1 + r.IntN(3)
	}
	opts := []Option{WithSelector([]Selector{ConsRes{}, ConsRes{}, Linear{}, struct{ ConsRes }{}}[r.IntN(4)]), WithFastSchedule(r.IntN(3))}
	if r.IntN(4) == 0 {
		opts = append(opts, WithSlurmCompat())
	}
	c, err := New(nodes, []Partition{p, q}, opts...)
	require.NoError(t, err)
	return c, nodes
}

// loadKinds starts jobs asking a few cores per node until the cluster is
// mostly full, ends some, and has nodes register fewer CPUs now and then.
func loadKinds(t *testing.T, r *rand.Rand, c *Cluster, nodes []Node) {
	t.Helper()
	startUntilFails(t, c, 8, func() Request {
		req := Request{MinNodes: 1 + r.IntN(2), MinCPUsPerNode: 1 + r.IntN(12), Partition: []string{"", "q"}[r.IntN(2)]}
		req.CPUs = req.MinNodes * req.MinCPUsPerNode
		if r.IntN(6) == 0 {
			req.Share = ShareExclusiveJob
		}
		return req
	})
	for _, id := range c.Running() {
		if r.IntN(4) == 0 {
			require.NoError(t, c.Release(id))
		}
	}
	for range r.IntN(len(nodes)/4 + 2) {
		i := r.IntN(len(nodes))
		_, _ = c.Register(nodes[i].Name, Resources{CPUs: 1 + r.IntN(nodes[i].CPUs), RealMemory: nodes[i].RealMemory})
	}
}

// kindsRequest asks cores per node near what some node has free, now and
// then with features (alternatives and counted terms too), nodes
// excluded, required or withheld, memory, exclusivity or sharing.
func kindsRequest(t *testing.T, r *rand.Rand, c *Cluster, nodes []Node) Request {
	t.Helper()
	req := Request{MinNodes: r.IntN(5), MinCPUsPerNode: r.IntN(90), Partition: []string{"", "", "q"}[r.IntN(3)],
		Share: ShareRequest(r.IntN(3))}
	switch r.IntN(3) {
	case 0: // at a node's free CPUs
		req.MinCPUsPerNode = max(c.FreeCPUs(r.IntN(len(nodes)))+r.IntN(3)-1, 0)
	case 1: // at the most any busy node has free, where one CPU decides
		most := 0
		for i := range nodes {
			if !c.use.idle.Test(uint(i)) {
				most = max(most, c.FreeCPUs(i))
			}
		}
		req.MinCPUsPerNode = max(most+r.IntN(3)-1, 0)
	}
	req.CPUs = max(req.MinNodes, 1) * req.MinCPUsPerNode
	if r.IntN(4) == 0 {
		req.CPUs = r.IntN(200)
	}
	if r.IntN(3) == 0 {
		e, err := features.Parse([]string{"a", "a&b", "b|c", "[a|b]", "c", "a*1", "[a*1&b*1]"}[r.IntN(7)])
		require.NoError(t, err)
		req.Features = e
	}
	switch r.IntN(7) {
	case 0:
		req.Excluded = []string{nodes[r.IntN(len(nodes))].Name}
	case 1:
		req.Required = []string{nodes[r.IntN(len(nodes))].Name}
	case 2, 5, 6: // as conservative backfill withholds the nodes busy in a window
		req.ExcludeNodes = bitset.New(uint(len(nodes)))
		for range r.IntN(len(nodes)) {
			req.ExcludeNodes.Set(uint(r.IntN(len(nodes))))
		}
	case 3:
		req.MinMemoryPerNode = int64(r.IntN(600))
	case 4:
		req.MemPerCPU = int64(1 + r.IntN(40))
	}
	return req
}

// Probes that noRoom answers answer as the whole pipeline does (Probe,
// ProbeNodes and ProbeInto, with the shortcut and the plain walks on and
// off), and whenever noRoom says too few nodes can be usable, SelectNodes
// in the same mode fails, in RunNow and TestOnly, on random clusters of
// several kinds of node under random loads.
func TestNoRoomIsThePipelines(t *testing.T) {
	seed := testseed.Draw(t)
	r := rand.New(rand.NewPCG(seed, 41))
	rounds := iterations(150, 600)
	fired := map[Mode]int{}
	for k := range rounds {
		c, nodes := kindsCluster(t, r)
		loadKinds(t, r, c, nodes)
		for q := range 40 {
			req := kindsRequest(t, r, c, nodes)
			mode := []Mode{RunNow, TestOnly}[q%2]
			where := fmt.Sprintf("seed %d round %d: %d nodes, %v, request %+v", seed, k, len(nodes), mode, req)
			type answer struct {
				p  *Placement
				ok bool
			}
			got, want := both(c, func() answer { p, ok := c.Probe(&req, mode); return answer{p, ok} })
			require.Equal(t, want, got, where)
			got, want = both(c, func() answer { p, ok := c.ProbeNodes(&req, mode); return answer{p, ok} })
			require.Equal(t, want, got, where)
			into := func() string { b := bitset.New(0); ok := c.ProbeInto(&req, mode, b); return fmt.Sprint(ok, b) }
			gotInto, wantInto := both(c, into)
			require.Equal(t, wantInto, gotInto, where)
			if job, err := c.Resolve(&req); err == nil && c.noRoom(job, mode) {
				fired[mode]++
				c.noPlainWalk = true
				_, err := c.SelectNodes(&req, mode)
				c.noPlainWalk = false
				require.Error(t, err, where)
				require.False(t, got.ok, where)
			}
		}
	}
	t.Logf("seed %d: noRoom answered %v of %d probes", seed, fired, rounds*40)
	require.Positive(t, fired[RunNow], "noRoom never answered in RunNow")
	require.Positive(t, fired[TestOnly], "noRoom never answered in TestOnly")
}

// A probe that no node can take is answered without a selection: it
// allocates nothing (the pipeline allocated the failure's error and its
// message).
func TestProbeWithoutRoomAllocatesNothing(t *testing.T) {
	nodes, all := make([]Node, 0, 68), make([]string, 0, 68)
	for i := range 68 {
		cpus := 12
		if i < 20 {
			cpus = 80
		}
		nodes = append(nodes, Node{Name: fmt.Sprintf("m%02d", i), CPUs: cpus, RealMemory: 1000, Weight: 1, Features: []string{"x86_64", "nfs4"}})
		all = append(all, nodes[i].Name)
	}
	c, err := New(nodes, []Partition{{Name: "batch", Nodes: all, Default: true}}, WithSelector(ConsRes{}))
	require.NoError(t, err)
	for i := range nodes { // every node keeps 10 cores free
		p := &Placement{Partition: "batch", Alloc: []NodeAlloc{{Node: i, CPUs: nodes[i].CPUs - 10}}}
		require.NoError(t, c.Allocate(JobID(i+1), p, t0, t0.Add(time.Hour)))
	}
	e, err := features.Parse("x86_64&nfs4")
	require.NoError(t, err)
	req := &Request{MinNodes: 1, MinCPUsPerNode: 32, CPUs: 32, Features: e}
	_, ok := c.Probe(req, RunNow)
	require.False(t, ok)
	require.Zero(t, testing.AllocsPerRun(50, func() { c.Probe(req, RunNow) }))
	req.MinCPUsPerNode, req.CPUs = 10, 10 // fits: the pipeline answers
	_, ok = c.Probe(req, RunNow)
	require.True(t, ok)
}
