package selectnodes

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/hpcsched/hpcsched/internal/testseed"
	"github.com/stretchr/testify/require"
)

// HasFreeCPU answers from the kept free totals when they are known and
// by a look at the nodes otherwise; either way it says whether some node
// has a free CPU, on small clusters filled and emptied at random, with
// the totals asked now and then (made known) and nodes registering
// (which drops them), under FastSchedule 0 (reported CPUs count) and 1.
func TestHasFreeCPUAsNodeByNode(t *testing.T) {
	seed := testseed.Draw(t)
	r := rand.New(rand.NewPCG(seed, 43))
	full, free := 0, 0
	for iter := range 40 {
		n := 1 + r.IntN(6)
		nodes := make([]Node, n)
		names := make([]string, n)
		for i := range nodes {
			names[i] = fmt.Sprintf("h%d", i)
			nodes[i] = Node{Name: names[i], CPUs: 1 + r.IntN(3), RealMemory: 100}
		}
		c, err := New(nodes, []Partition{{Name: "p", Nodes: names, Default: true, State: PartitionUp}}, WithFastSchedule(r.IntN(2)))
		require.NoError(t, err)
		var running []JobID
		for step := range 60 {
			switch k := r.IntN(10); {
			case k < 5:
				i := r.IntN(n)
				p := &Placement{Partition: "p", Alloc: []NodeAlloc{{Node: i, CPUs: 1}}}
				if c.Allocate(JobID(step+1), p, t0, t0.Add(time.Hour)) == nil {
					running = append(running, JobID(step+1))
				}
			case k < 8 && len(running) > 0:
				x := r.IntN(len(running))
				require.NoError(t, c.Release(running[x]))
				running = append(running[:x], running[x+1:]...)
			case k == 8:
				c.FreeTotals()
			default:
				_, _ = c.Register(names[r.IntN(n)], Resources{CPUs: 1 + r.IntN(3), RealMemory: 100})
			}
			_, want := countFreeByNode(c)
			require.Equal(t, want > 0, c.HasFreeCPU(), "seed %d iter %d step %d", seed, iter, step)
			if want > 0 {
				free++
			} else {
				full++
			}
		}
	}
	require.Positive(t, full)
	require.Positive(t, free)
}
