package queue

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/hpcsched/hpcsched/internal/testseed"
	"github.com/hpcsched/hpcsched/selectnodes"
	"github.com/stretchr/testify/require"
)

// freeFrom, walking the allocations by end and taking the ends the last
// read rounded from its memo, gives every node the latest of its
// allocations' ends rounded up (now for one past its end), and the
// earliest end after now, as rounding every allocation's end found by ID
// gives them: read after read of one memo, with allocations made,
// released and given new ends (many sharing an end) between reads, and
// now moving on.
func TestFreeFromRoundsEveryEndAsTheAllocationsHoldIt(t *testing.T) {
	seed := testseed.Draw(t)
	r := rand.New(rand.NewPCG(seed, 17))
	for _, res := range []time.Duration{time.Minute, 7 * time.Minute, time.Nanosecond, 0} {
		c := cluster(t, "NodeName=n[0-69] CPUs=2\nPartitionName=batch Nodes=ALL Default=YES\n")
		s := New(c, WithBackfillResolution(res))
		var m endMemo
		var buf []int64
		now, next := t0, selectnodes.JobID(1)
		for step := range 300 {
			now = now.Add(time.Duration(r.IntN(600)) * time.Second)
			for range r.IntN(4) {
				ids := c.Running()
				switch op := r.IntN(3); {
				case op == 0 || len(ids) == 0:
					end := now.Add(time.Duration(r.IntN(40)-5) * 5 * time.Minute) // shared ends, some past
					if p, ok := c.Probe(&selectnodes.Request{MinNodes: 1 + r.IntN(3)}, selectnodes.RunNow); ok {
						require.NoError(t, c.Allocate(next, p, now, end))
						next++
					}
				case op == 1:
					require.NoError(t, c.Release(ids[r.IntN(len(ids))]))
				default:
					end := now.Add(time.Duration(r.IntN(40)-5) * 5 * time.Minute)
					require.NoError(t, c.SetAllocationEnd(ids[r.IntN(len(ids))], end))
				}
			}
			var read nodesRead
			buf, _, read = s.freeFrom(now, buf, nil, &m)
			want, wantNext := roundedFreeTimes(c, now, s.opts.bfResolution)
			require.Equal(t, want, buf, "seed %d resolution %v step %d", seed, res, step)
			require.Equal(t, wantNext, read.nextEnd, "seed %d resolution %v step %d", seed, res, step)
		}
	}
}

// roundedFreeTimes is freeFrom's answer made plainly: every allocation
// looked up by ID and its end rounded afresh.
func roundedFreeTimes(c *selectnodes.Cluster, now time.Time, res time.Duration) ([]int64, int64) {
	out := make([]int64, c.NodeCount())
	for i := range out {
		out[i] = math.MinInt64
	}
	next := int64(math.MaxInt64)
	for _, id := range c.Running() {
		p, _, end, _ := c.Allocation(id)
		at := roundUp(end, now, res).UnixNano()
		if end.After(now) {
			next = min(next, end.UnixNano())
		}
		for _, a := range p.Alloc {
			out[a.Node] = max(out[a.Node], at)
		}
	}
	return out, next
}
