package queue

import (
	"testing"
	"time"

	"github.com/hpcsched/hpcsched/selectnodes"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Under FastSchedule 0 nodes count with the CPUs they report, which may be
// more than configured: backfill's "too few nodes to bother" bound must
// use those, or it skips a job that fits (16 CPUs on the 2 free nodes of
// 8 reported CPUs, configured with 4).
func TestBackfillBoundCountsReportedCPUs(t *testing.T) {
	for _, easy := range []bool{false, true} {
		c := cluster(t, "FastSchedule=0\nNodeName=n[0-7] CPUs=4\nPartitionName=batch Nodes=ALL Default=YES\n")
		for i := range 8 {
			n := c.Node(i)
			down, err := c.Register(n.Name, selectnodes.Resources{CPUs: 8, RealMemory: n.RealMemory, TmpDisk: n.TmpDisk})
			require.NoError(t, err)
			require.False(t, down)
		}
		assert.Equal(t, 8, c.MostNodeCPUs())
		s := New(c)
		backfill := func(now time.Time) []Started {
			if easy {
				return NewEASY(s).Backfill(now)
			}
			started, _ := s.Backfill(now)
			return started
		}
		submit(t, s, nodes(6, 2*time.Hour), at(0))
		require.Len(t, s.Schedule(at(0)), 1)
		submit(t, s, nodes(7, time.Hour), at(1))
		wide := Spec{Name: "wide", User: "u", Request: selectnodes.Request{CPUs: 16}, TimeLimit: time.Hour}
		id := submit(t, s, wide, at(1))
		backfill(at(2))
		assert.Equal(t, Running, state(t, s, id), "easy=%v", easy)
		require.NoError(t, c.CheckInvariants())
	}
}
