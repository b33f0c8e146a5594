package selectnodes

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/hpcsched/hpcsched/internal/testseed"
	"github.com/stretchr/testify/require"
)

// failCluster is a random plain cluster (one kind of node under
// select/linear) with many nodes down or drained, a partition of some of
// them and now and then partition node or CPU limits, so that failing
// selections of every class are common.
func failCluster(t *testing.T, r *rand.Rand) *Cluster {
	t.Helper()
	cpus := []int{1, 2, 4, 8}[r.IntN(4)]
	nodes := make([]Node, 1+r.IntN(90))
	part := Partition{Name: "p", Default: true, Sharing: Sharing{Mode: []ShareMode{ShareNo, ShareYes, ShareExclusive}[r.IntN(3)]}}
	downRate := []int{0, 3, 8, 30}[r.IntN(4)]
	for i := range nodes {
		nodes[i] = Node{Name: fmt.Sprintf("f%03d", i), CPUs: cpus, RealMemory: 100, Weight: 1}
		if downRate > 0 && r.IntN(downRate) == 0 {
			nodes[i].State = []NodeState{NodeDown, NodeDrain}[r.IntN(2)]
		}
		if r.IntN(4) != 0 || len(part.Nodes) == 0 {
			part.Nodes = append(part.Nodes, nodes[i].Name)
		}
	}
	if r.IntN(5) == 0 {
		part.MaxNodes = 1 + r.IntN(len(nodes)+2)
	}
	if r.IntN(8) == 0 {
		part.MinNodes = 1 + r.IntN(3)
	}
	if r.IntN(6) == 0 {
		part.MaxCPUsPerNode = 1 + r.IntN(cpus)
	}
	all := Partition{Name: "all", Nodes: make([]string, len(nodes))}
	for i := range nodes {
		all.Nodes[i] = nodes[i].Name
	}
	c, err := New(nodes, []Partition{part, all})
	require.NoError(t, err)
	require.True(t, c.plainWalkable())
	return c
}

// failRequest is a plain request near what the cluster holds: nodes,
// CPUs (often more than the idle nodes give), exclusive or not.
func failRequest(r *rand.Rand, c *Cluster) Request {
	n := c.NodeCount()
	req := walkRequest(r, n)
	if r.IntN(2) == 0 {
		req.CPUs = r.IntN(2*n*c.records[0].cpus + 2)
	}
	return req
}

// plainRefused is the class of the failure a plain walk foresees for req
// in mode, or "".
func plainRefused(c *Cluster, req *Request, mode Mode) string {
	sc := c.takeScratch()
	defer c.putScratch(sc)
	job, err := c.resolve(req, sc)
	if err != nil {
		return ""
	}
	if _, _, never := c.plainWalk(job, sc, mode, false, nil); !never {
		return ""
	}
	return ClassName(c.plainFailure(job, sc, false))
}

// A selection a plain walk foresees failing fails as the pipeline's does:
// Try's error (class, reason, cause, no Explanation), SelectNodes' error
// with its Explanation, and Probe's answer, in RunNow and TestOnly.
func TestPlainFailureIsThePipelines(t *testing.T) {
	seed := testseed.Draw(t)
	r := rand.New(rand.NewPCG(seed, 37))
	rounds := 200
	if testing.Short() {
		rounds = 40
	}
	refused := map[string]int{}
	for k := range rounds {
		c := failCluster(t, r)
		loadForWalks(t, r, c)
		for range 25 {
			req := failRequest(r, c)
			for _, mode := range []Mode{RunNow, TestOnly} {
				where := fmt.Sprintf("seed %d round %d: %d nodes, %v, request %+v", seed, k, c.NodeCount(), mode, req)
				type answer struct {
					p   *Placement
					err error
				}
				walk, pipeline := both(c, func() answer { p, err := c.Try(&req, mode); return answer{p, err} })
				require.Equal(t, pipeline, walk, where)
				var e *Error
				if errors.As(walk.err, &e) {
					require.Nil(t, e.Explanation, where)
				}
				walk, pipeline = both(c, func() answer { p, err := c.SelectNodes(&req, mode); return answer{p, err} })
				require.Equal(t, pipeline, walk, where)
				okW, okP := both(c, func() bool { _, ok := c.Probe(&req, mode); return ok })
				require.Equal(t, okP, okW, where)
				if class := plainRefused(c, &req, mode); class != "" {
					require.Error(t, pipeline.err, where)
					refused[class]++
				}
			}
		}
	}
	t.Logf("failures foreseen by class: %v", refused)
	require.Positive(t, refused["busy"], "no busy failure foreseen")
	require.Positive(t, refused["node_config"], "no node_config failure foreseen")
	require.Positive(t, refused["part_config"], "no part_config failure foreseen")
}

// plainNever refuses exactly the counts no whole-node selection meets.
func TestPlainNever(t *testing.T) {
	for _, tc := range []struct {
		n           Counts
		count, cpus int
		never       bool
	}{
		{Counts{Min: 1}, 0, 4, true},
		{Counts{Min: 1}, 1, 4, false},
		{Counts{Min: 3, Desired: 3}, 2, 4, true},
		{Counts{Min: 1, CPUs: 9}, 2, 4, true},
		{Counts{Min: 1, CPUs: 8}, 2, 4, false},
		{Counts{Min: 1, Max: 2, CPUs: 9}, 5, 4, true},
		{Counts{Min: 1, Max: 3, CPUs: 9}, 5, 4, false},
		{Counts{Min: 2, Desired: 5}, 3, 1, false}, // fewer than desired, at least the minimum
	} {
		require.Equal(t, tc.never, plainNever(tc.n, tc.count, tc.cpus), "%+v", tc)
	}
}
