package queue

import (
	"testing"
	"time"

	"github.com/hpcsched/hpcsched/selectnodes"
	"github.com/stretchr/testify/require"
)

// A pass reads each partition's MaxTime once, not once a plan: a job
// planned after one of another partition still meets its own
// partition's limit, and one over it pends with PartitionTimeLimit.
func TestPassReadsEachPartitionsMaxTime(t *testing.T) {
	s := New(cluster(t, "NodeName=n[0-3] CPUs=1\nPartitionName=long Nodes=ALL Default=YES\n"+
		"PartitionName=short Nodes=ALL MaxTime=00:30:00\n"))
	long := submit(t, s, nodes(1, time.Hour), t0)
	over := submit(t, s, Spec{Request: selectnodes.Request{Partition: "short", MinNodes: 1}, TimeLimit: time.Hour}, t0)
	within := submit(t, s, Spec{Request: selectnodes.Request{Partition: "short", MinNodes: 1}, TimeLimit: 20 * time.Minute}, t0)
	after := submit(t, s, nodes(1, time.Hour), t0)
	started, res := s.Backfill(t0)
	require.Len(t, started, 3)
	require.Empty(t, res)
	for _, id := range []JobID{long, within, after} {
		require.Equal(t, Running, state(t, s, id))
	}
	j, _ := s.Job(over)
	require.Equal(t, Pending, j.State)
	require.Equal(t, ReasonPartitionTimeLimit, j.Reason)
}
