package selectnodes

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/bits-and-blooms/bitset"
	"github.com/hpcsched/hpcsched/internal/testseed"
	"github.com/stretchr/testify/require"
)

// cpusWithinByWalk is cpusWithin's rule node by node: the idle units of
// the nodes of set, the n.Max largest of them when a node limit binds.
func cpusWithinByWalk(c *Cluster, job *Job, set *bitset.BitSet, n Counts) bool {
	if n.CPUs <= 0 {
		return true
	}
	var units []int
	for i, ok := set.NextSet(0); ok; i, ok = set.NextSet(i + 1) {
		units = append(units, c.idleUnits(job, int(i), c.effective(int(i)).CPUs))
	}
	if n.Max > 0 && n.Max < len(units) {
		slices.SortFunc(units, func(a, b int) int { return b - a })
		units = units[:n.Max]
	}
	total := 0
	for _, u := range units {
		total += u
	}
	return total >= n.CPUs
}

// On clusters of one node configuration (FastSchedule 0, 1 and 2, with
// nodes registering smaller), and on mixed ones, cpusWithin answers as
// the walk over the set's nodes does, for random sets, node limits, CPU
// totals right at the bound, partition caps and task layouts.
func TestCPUsWithinAlikeIsTheWalk(t *testing.T) {
	seed := testseed.Draw(t)
	r := rand.New(rand.NewPCG(seed, 13))
	shortcuts := 0
	for iter := range iterations(8, 40) {
		sharing := Sharing{Mode: ShareNo}
		var c *Cluster
		var nodes []Node
		if iter%3 == 2 {
			c, nodes = layoutCluster(t, r, 20+r.IntN(150), sharing, r.IntN(3))
		} else {
			c, nodes = alikeCluster(t, r, 20+r.IntN(150), sharing, r.IntN(3))
		}
		for step := range 40 {
			randomLoadStep(r, c, nodes, JobID(step+1))
			req := &Request{CoreTasks: r.IntN(5) == 0}
			if r.IntN(5) == 0 {
				req.MaxCPUsPerSocket = 1 + r.IntN(8)
			}
			job, err := c.Resolve(req)
			require.NoError(t, err)
			if r.IntN(3) == 0 {
				part := *job.Part
				part.MaxCPUsPerNode = 1 + r.IntN(80)
				job.Part = &part
			}
			set := bitset.New(uint(len(nodes)))
			for i := range nodes {
				set.SetTo(uint(i), r.IntN(3) > 0)
			}
			count := int(set.Count())
			cpus := c.effective(0).CPUs
			n := Counts{Max: []int{0, r.IntN(count + 2), count}[r.IntN(3)]}
			n.CPUs = []int{0, r.IntN(count*cpus + 2), max(n.Max, 1) * capCPUs(job, cpus), count*capCPUs(job, cpus) + r.IntN(3) - 1}[r.IntN(4)]
			if _, ok := c.cpusWithinAlike(job, set, n); ok {
				shortcuts++
			}
			require.Equal(t, cpusWithinByWalk(c, job, set, n), c.cpusWithin(job, set, n),
				"seed %d iter %d step %d counts %+v request %+v cap %d", seed, iter, step, n, req, job.Part.MaxCPUsPerNode)
		}
	}
	require.Positive(t, shortcuts, "no selection took the product")
}
