package selectnodes

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/hpcsched/hpcsched/internal/testseed"
	"github.com/stretchr/testify/require"
)

// countFreeByNode is FreeTotals by FreeCPUs, node by node.
func countFreeByNode(c *Cluster) (cpus, nodes int) {
	for i := range c.NodeCount() {
		if f := c.FreeCPUs(i); f > 0 {
			cpus, nodes = cpus+f, nodes+1
		}
	}
	return cpus, nodes
}

// FreeTotals, kept through starts and ends, is the node-by-node count
// after every change: random allocations (some naming their nodes out of
// order, which Allocate sorts, or twice, which it refuses), releases and
// registrations of smaller nodes, on mixed clusters, asked after every
// step or now and then; a snapshot's changes do not touch the cluster's
// totals. CountFull agrees with FreeCPUs on random lists of nodes.
func TestFreeTotalsKeptThroughChanges(t *testing.T) {
	seed := testseed.Draw(t)
	r := rand.New(rand.NewPCG(seed, 41))
	for iter := range iterations(10, 40) {
		sel := []Selector{Linear{}, ConsRes{}}[iter%2]
		c, nodes := roomCluster(t, r, 60+r.IntN(150), sel, Sharing{Mode: ShareYes, Count: 4}, r.IntN(3))
		every := r.IntN(2) == 0
		for step := range 150 {
			id := JobID(step + 1)
			if r.IntN(8) == 0 {
				// nodes out of order, or one named twice
				i, k := r.IntN(len(nodes)), r.IntN(len(nodes))
				p := &Placement{Partition: "p", Alloc: []NodeAlloc{{Node: max(i, k), CPUs: 1}, {Node: min(i, k), CPUs: 1}}}
				_ = c.Allocate(id, p, t0, t0.Add(time.Hour))
			} else {
				randomLoadStep(r, c, nodes, id)
			}
			if r.IntN(10) == 0 {
				s := c.Snapshot()
				if ids := s.Jobs(); len(ids) > 0 {
					require.NoError(t, s.Release(ids[0]))
				}
			}
			if every || r.IntN(5) == 0 {
				wantCPUs, wantNodes := countFreeByNode(c)
				gotCPUs, gotNodes := c.FreeTotals()
				require.Equal(t, wantCPUs, gotCPUs, "seed %d iter %d step %d: free CPUs", seed, iter, step)
				require.Equal(t, wantNodes, gotNodes, "seed %d iter %d step %d: nodes with a free CPU", seed, iter, step)
			}
			some, full := []int{}, 0
			for i := range nodes {
				if r.IntN(3) == 0 {
					some = append(some, i)
					if c.FreeCPUs(i) <= 0 {
						full++
					}
				}
			}
			require.Equal(t, full, c.CountFull(some), "seed %d iter %d step %d: CountFull", seed, iter, step)
			require.NoError(t, c.CheckInvariants(), "seed %d iter %d step %d", seed, iter, step)
		}
	}
}
