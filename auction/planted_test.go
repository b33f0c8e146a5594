package auction

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// plantedWindow is a window built in code whose optimum takes every job:
// jobs of equal priority, bids bids each of two nodes, on jobs*2/perNode
// nodes of 16 cores, each node's cores cut in two random parts; one bid
// of each job is a planted perfect packing of those parts, the others
// take parts of the same sizes on random nodes. Equal priorities make
// the LP bound weak and the search wide (CBC proves these in seconds).
func plantedWindow(seed uint64, jobs, bids, perNode int) *Problem {
	r := rand.New(rand.NewPCG(seed, 30))
	nodes := jobs * 2 / perNode
	p := &Problem{Name: "planted", Nodes: make([]Node, nodes), Alpha: 1.0 / 3}
	for i := range p.Nodes {
		p.Nodes[i] = Node{CPUs: 16}
	}
	type slot struct{ node, cores int }
	slots := make([]slot, 0, 2*jobs)
	for i := range nodes {
		c := 3 + r.IntN(11)
		slots = append(slots, slot{i, c}, slot{i, 16 - c})
	}
	r.Shuffle(len(slots), func(a, b int) { slots[a], slots[b] = slots[b], slots[a] })
	for j := range jobs {
		job := Job{ID: int64(j + 1), Priority: 1000}
		a, b := slots[2*j], slots[2*j+1]
		if a.node == b.node {
			b = slots[(2*j+2)%len(slots)]
		}
		planted := r.IntN(bids)
		for k := range bids {
			x, y := a, b
			if k != planted || x.node == y.node {
				x = slot{r.IntN(nodes), a.cores}
				y = slot{(x.node + 1 + r.IntN(nodes-1)) % nodes, b.cores}
			}
			job.Bids = append(job.Bids, Bid{Uses: []Use{{Node: x.node, Cores: x.cores}, {Node: y.node, Cores: y.cores}}, Level: 1, Cost: 1 + r.Float64()})
		}
		p.Jobs = append(p.Jobs, job)
	}
	return p
}

// Fresh planted 30-job, 240-bid windows against CBC: our bound is never
// below CBC's proven optimum, and the objective gap is logged. The goal
// (solve them exactly) is not met: see BENCHMARKS.md "Auction: planted
// 30-job windows".
func TestPlantedWindowsAgainstCBC(t *testing.T) {
	if testing.Short() {
		t.Skip("CBC cross-check is long")
	}
	seed := rand.Uint64()
	t.Logf("seed %d", seed)
	p := plantedWindow(seed, 30, 8, 2)
	require.NoError(t, p.Validate())
	sol, err := Solve(context.Background(), p, Options{MaxNodes: 1_000_000})
	require.NoError(t, err)
	require.True(t, p.Feasible(sol.Selection))
	cbc, optimal := runCBC(t, p, 20)
	t.Logf("ours %.4f (bound %.4f, optimal %v), CBC %.4f (optimal %v): %.2f%% short", sol.Objective, sol.Bound, sol.Optimal, cbc, optimal, 100*(cbc-sol.Objective)/cbc)
	if optimal {
		assert.GreaterOrEqual(t, sol.Bound, cbc-1e-4, "our bound below CBC's optimum")
		assert.LessOrEqual(t, sol.Objective, cbc+1e-4)
		if sol.Optimal {
			assert.InDelta(t, cbc, sol.Objective, 1e-4, "proven, so CBC's optimum")
		}
	}
}
