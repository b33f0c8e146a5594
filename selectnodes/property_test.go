package selectnodes

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/hpcsched/hpcsched/features"
	"github.com/hpcsched/hpcsched/topology"
	"github.com/stretchr/testify/require"
)

var featurePool = []string{"a", "b", "c"}

// randomCluster makes up to 8 nodes in a few config records, some down or
// drained, and one partition over a random subset of them.
func randomCluster(r *rand.Rand, sel Selector) (*Cluster, []Node, Partition) {
	type conf struct {
		cpus   int
		weight int64
		feats  []string
		gpus   int64
	}
	confs := make([]conf, 1+r.IntN(3))
	for k := range confs {
		var fs []string
		for _, f := range featurePool {
			if r.IntN(2) == 0 {
				fs = append(fs, f)
			}
		}
		confs[k] = conf{cpus: []int{1, 2, 4}[r.IntN(3)], weight: int64(1 + r.IntN(2)), feats: fs, gpus: int64(r.IntN(3))}
	}
	nodes := make([]Node, 2+r.IntN(7))
	var part Partition
	part.Name, part.Default = "p", true
	for i := range nodes {
		cf := confs[r.IntN(len(confs))]
		nodes[i] = Node{Name: fmt.Sprintf("n%d", i), CPUs: cf.cpus, RealMemory: 100, Weight: cf.weight, Features: cf.feats}
		if cf.gpus > 0 {
			nodes[i].GRES = []GRES{{Name: "gpu", Count: cf.gpus}}
		}
		switch r.IntN(10) {
		case 0:
			nodes[i].State = NodeDown
		case 1:
			nodes[i].State = NodeDrain
		}
		if r.IntN(5) > 0 {
			part.Nodes = append(part.Nodes, nodes[i].Name)
		}
	}
	if len(part.Nodes) == 0 {
		part.Nodes = []string{"n0"}
	}
	if r.IntN(4) == 0 {
		part.MaxNodes = 1 + r.IntN(4)
	}
	opts := []Option{WithSelector(sel)}
	if r.IntN(3) == 0 {
		opts = append(opts, WithTopology(randomTree(r, nodes)))
	}
	c, err := New(nodes, []Partition{part}, opts...)
	if err != nil {
		panic(err)
	}
	return c, nodes, part
}

// randomTree puts the nodes under leaves of 1-3 nodes joined by one root,
// so every node is reachable and any feasible request fits in one tree.
func randomTree(r *rand.Rand, nodes []Node) *topology.Tree {
	names := make([]string, len(nodes))
	for i := range nodes {
		names[i] = nodes[i].Name
	}
	var specs []topology.SwitchSpec
	var leaves []string
	for i := 0; i < len(names); {
		end := min(len(names), i+1+r.IntN(3))
		leaf := fmt.Sprintf("leaf%d", len(leaves))
		specs = append(specs, topology.SwitchSpec{Name: leaf, Nodes: names[i:end]})
		leaves = append(leaves, leaf)
		i = end
	}
	specs = append(specs, topology.SwitchSpec{Name: "root", Switches: leaves})
	t, err := topology.New(names, specs)
	if err != nil {
		panic(err)
	}
	return t
}

var exprPool = []string{"", "a", "a&b", "a|b", "(a|c)&b", "[a|b]", "[b|c]", "[a*1&b*1]", "[a*2&c*1]", "[(a&b)*1&c*1]", "b*2", "[a*1&b*2&c*1]"}

func randomRequest(r *rand.Rand, nodes []Node) *Request {
	req := &Request{MinNodes: r.IntN(4)}
	if r.IntN(3) == 0 {
		req.MaxNodes = req.MinNodes + r.IntN(3)
	}
	if r.IntN(3) == 0 {
		req.DesiredNodes = r.IntN(6)
	}
	if r.IntN(3) == 0 {
		req.CPUs = r.IntN(10)
	}
	if r.IntN(4) == 0 {
		req.MinCPUsPerNode = 1 + r.IntN(4)
	}
	if s := exprPool[r.IntN(len(exprPool))]; s != "" {
		req.Features, _ = features.Parse(s)
	}
	if r.IntN(4) == 0 {
		req.GRES = []GRESRequest{{Name: "gpu", Min: 1, Max: int64(1 + r.IntN(2))}}
	}
	if r.IntN(5) == 0 {
		req.Required = []string{nodes[r.IntN(len(nodes))].Name}
	}
	if r.IntN(5) == 0 {
		req.Excluded = []string{nodes[r.IntN(len(nodes))].Name}
		if len(req.Required) > 0 && req.Required[0] == req.Excluded[0] {
			req.Excluded = nil
		}
	}
	// contiguity is honoured, but counted terms are chosen without regard
	// to it, so the two are not drawn together
	if r.IntN(5) == 0 && (req.Features == nil || req.Features.Counts() == nil) {
		req.Contiguous = true
	}
	return req
}

// feasible decides by brute force whether some set of nodes satisfies req
// when every node is idle; usable says which nodes may be used at all.
func feasible(nodes []Node, part Partition, req *Request, usable func(i int) bool) bool {
	inPart := map[string]bool{}
	for _, n := range part.Nodes {
		inPart[n] = true
	}
	minN := max(req.MinNodes, 1, part.MinNodes, len(req.Required))
	maxN := req.MaxNodes
	if part.MaxNodes > 0 && (maxN == 0 || part.MaxNodes < maxN) {
		maxN = part.MaxNodes
	}
	if maxN == 0 {
		maxN = len(nodes)
	}
	ok := make([]bool, len(nodes))
	for i, n := range nodes {
		ok[i] = inPart[n.Name] && usable(i) && !slices.Contains(req.Excluded, n.Name) &&
			n.CPUs >= req.MinCPUsPerNode && (req.Features == nil || req.Features.Match(n.Features))
		for _, g := range req.GRES {
			var have int64
			for _, ng := range n.GRES {
				if ng.Name == g.Name {
					have += ng.Count
				}
			}
			ok[i] = ok[i] && have >= g.Min
		}
	}
	for mask := 1; mask < 1<<len(nodes); mask++ {
		if satisfies(nodes, req, mask, ok, minN, maxN) {
			return true
		}
	}
	return false
}

func satisfies(nodes []Node, req *Request, mask int, ok []bool, minN, maxN int) bool {
	count, cpus := 0, 0
	var members [][]string
	lo, hi := -1, -1
	for i := range nodes {
		if mask&(1<<i) == 0 {
			continue
		}
		if !ok[i] {
			return false
		}
		count++
		cpus += nodes[i].CPUs
		members = append(members, nodes[i].Features)
		if lo < 0 {
			lo = i
		}
		hi = i
	}
	for _, name := range req.Required {
		var i int
		fmt.Sscanf(name, "n%d", &i)
		if mask&(1<<i) == 0 {
			return false
		}
	}
	if count < minN || count > maxN || cpus < req.CPUs {
		return false
	}
	if req.Contiguous && hi-lo+1 != count {
		return false
	}
	if req.Features == nil {
		return true
	}
	for _, ct := range req.Features.Counts() {
		have := 0
		for _, fs := range members {
			if ct.Term.Match(fs) {
				have++
			}
		}
		if have < ct.N {
			return false
		}
	}
	if alts := req.Features.Alternatives(); alts != nil {
		for _, alt := range alts {
			all := true
			for _, fs := range members {
				all = all && alt.Match(fs)
			}
			if all {
				return true
			}
		}
		return false
	}
	return true
}

// countsClash: the job's and the partition's node limits leave no count,
// which Slurm reports as a partition error (the Novotný thesis §3.2.2).
func countsClash(part Partition, req *Request) bool {
	minN := max(req.MinNodes, 1, part.MinNodes, len(req.Required))
	maxN := req.MaxNodes
	if part.MaxNodes > 0 && (maxN == 0 || part.MaxNodes < maxN) {
		maxN = part.MaxNodes
	}
	return maxN > 0 && minN > maxN
}

// checkPlacement verifies that p meets every constraint of req.
func checkPlacement(t *testing.T, c *Cluster, part Partition, req *Request, p *Placement) {
	t.Helper()
	count := len(p.Names)
	var members [][]string
	for _, a := range p.Alloc {
		n := c.Node(a.Node)
		require.Contains(t, part.Nodes, n.Name)
		require.NotContains(t, req.Excluded, n.Name)
		require.GreaterOrEqual(t, n.CPUs, req.MinCPUsPerNode)
		if req.Features != nil {
			require.True(t, req.Features.Match(n.Features), "%s lacks %s", n.Name, req.Features)
		}
		for _, g := range req.GRES {
			var got int64
			for _, ga := range a.GRES {
				if ga.Name == g.Name {
					got += ga.Count
				}
			}
			require.True(t, got >= g.Min && got <= g.Max, "GRES %v on %s: %d", g, n.Name, got)
		}
		members = append(members, n.Features)
	}
	for _, r := range req.Required {
		require.Contains(t, p.Names, r)
	}
	require.GreaterOrEqual(t, count, max(req.MinNodes, 1))
	if req.MaxNodes > 0 {
		require.LessOrEqual(t, count, req.MaxNodes)
	}
	require.GreaterOrEqual(t, p.TotalCPUs, req.CPUs)
	if req.Contiguous {
		require.Equal(t, count-1, p.Alloc[count-1].Node-p.Alloc[0].Node, "contiguous")
	}
	if req.Features != nil {
		for _, ct := range req.Features.Counts() {
			have := 0
			for _, fs := range members {
				if ct.Term.Match(fs) {
					have++
				}
			}
			require.GreaterOrEqual(t, have, ct.N, "count %s", ct)
		}
		if alts := req.Features.Alternatives(); alts != nil {
			found := false
			for _, alt := range alts {
				all := true
				for _, fs := range members {
					all = all && alt.Match(fs)
				}
				found = found || all
			}
			require.True(t, found, "no alternative shared by all nodes")
		}
	}
}

// The default pipeline agrees with brute force on whether a request can
// ever run (TestOnly), and its placements, under load too, meet every
// constraint and keep the cluster's counters exact.
func TestSelectionAgreesWithBruteForce(t *testing.T) {
	for _, sel := range []Selector{Linear{}, ConsRes{}} {
		r := rand.New(rand.NewPCG(42, 7))
		for iter := range iterations(300, 1500) {
			c, nodes, part := randomCluster(r, sel)
			var id JobID
			for k := 0; k < 6; k++ {
				req := randomRequest(r, nodes)
				desc := fmt.Sprintf("%T iter %d: nodes %+v part %+v req %+v features %v", sel, iter, nodes, part, *req, req.Features)
				_, err := c.SelectNodes(req, TestOnly)
				canRun := feasible(nodes, part, req, func(i int) bool { return nodes[i].State == NodeUp })
				require.Equal(t, canRun, err == nil, "%s: %v", desc, err)
				if err != nil {
					everRun := feasible(nodes, part, req, func(int) bool { return true })
					switch {
					case countsClash(part, req):
						// the node sets are checked before the counts
						require.True(t, errors.Is(err, ErrPartConfig) || errors.Is(err, ErrNodeConfig), "%s: %v", desc, err)
					case everRun:
						require.ErrorIs(t, err, ErrPartConfig, desc)
					default:
						require.ErrorIs(t, err, ErrNodeConfig, desc)
					}
				}
				p, err := c.SelectNodes(req, RunNow)
				if err != nil {
					require.False(t, errors.Is(err, ErrNodeConfig) && canRun, "%s: %v", desc, err)
					continue
				}
				checkPlacement(t, c, part, req, p)
				id++
				require.NoError(t, c.Allocate(id, p, t0, t0.Add(time.Duration(r.IntN(5))*time.Hour)), desc)
				require.NoError(t, c.CheckInvariants(), desc)
				if r.IntN(3) == 0 {
					require.NoError(t, c.Release(c.Running()[r.IntN(len(c.Running()))]))
				}
			}
		}
	}
}

// Random allocations, releases, node state changes and partition updates
// keep the bitmaps and counters equal to a recomputation from scratch.
func TestStateChangesKeepInvariants(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 9))
	for iter := 0; iter < 300; iter++ {
		sel := []Selector{Linear{}, ConsRes{}}[iter%2]
		c, nodes, part := randomCluster(r, sel)
		var id JobID
		for step := 0; step < 40; step++ {
			switch r.IntN(5) {
			case 0, 1:
				req := randomRequest(r, nodes)
				req.Share = ShareRequest(r.IntN(3))
				if p, err := c.SelectNodes(req, RunNow); err == nil {
					id++
					require.NoError(t, c.Allocate(id, p, t0, t0.Add(time.Hour)))
					require.Error(t, c.Allocate(id, p, t0, t0.Add(time.Hour)), "duplicate job ID")
				}
			case 2:
				if ids := c.Running(); len(ids) > 0 {
					require.NoError(t, c.Release(ids[r.IntN(len(ids))]))
				}
			case 3:
				require.NoError(t, c.SetNodeState(nodes[r.IntN(len(nodes))].Name, NodeState(r.IntN(3))))
			case 4:
				p := part
				p.Sharing = Sharing{Mode: ShareMode(r.IntN(4)), Count: r.IntN(3)}
				require.NoError(t, c.UpdatePartition(p))
			}
			require.NoError(t, c.CheckInvariants(), "iter %d step %d", iter, step)
		}
		for _, id := range c.Running() {
			require.NoError(t, c.Release(id))
		}
		require.True(t, c.Idle().All())
		require.True(t, c.Share().All())
		require.NoError(t, c.CheckInvariants())
	}
}
