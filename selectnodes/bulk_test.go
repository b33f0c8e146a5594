package selectnodes

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// FreeCPUsInto and JobsOnTotal say what FreeCPUs and JobsOn say node by
// node, as random jobs of a few CPUs start and end on shared nodes.
func TestBulkReadsMatchPerNode(t *testing.T) {
	for seed := uint64(1); seed <= 10; seed++ {
		t.Logf("seed %d", seed)
		r := rand.New(rand.NewPCG(seed, 3))
		c := consres(t, 1+r.IntN(130), 8, ShareNo)
		var running []JobID
		var buf []int
		for step := range 60 {
			if len(running) > 0 && r.IntN(3) == 0 {
				k := r.IntN(len(running))
				require.NoError(t, c.Release(running[k]))
				running = append(running[:k], running[k+1:]...)
			} else if p, err := c.SelectNodes(&Request{CPUs: 1 + r.IntN(12)}, RunNow); err == nil {
				id := JobID(step + 1)
				require.NoError(t, c.Allocate(id, p, t0, t0.Add(time.Hour)))
				running = append(running, id)
			}
			buf = c.FreeCPUsInto(buf[:r.IntN(len(buf)+1)])
			require.Len(t, buf, c.NodeCount())
			total := 0
			for i := range c.NodeCount() {
				require.Equal(t, c.FreeCPUs(i), buf[i], "seed %d step %d node %d", seed, step, i)
				total += c.JobsOn(i)
			}
			require.Equal(t, total, c.JobsOnTotal(), "seed %d step %d", seed, step)
		}
	}
}
