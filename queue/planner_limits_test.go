package queue

import (
	"context"
	"testing"
	"time"

	"github.com/hpcsched/hpcsched/selectnodes"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// declineAll records each window and declines every job of it, as an
// auction declines the requests it cannot bid for.
type declineAll struct{ windows [][]JobID }

func (p *declineAll) Plan(_ context.Context, _ *selectnodes.Snapshot, window []Job, _ time.Time) ([]Decision, error) {
	var ids []JobID
	var out []Decision
	for _, j := range window {
		ids = append(ids, j.ID)
		out = append(out, Decision{Job: j.ID, Decline: true})
	}
	p.windows = append(p.windows, ids)
	return out, nil
}

// Jobs left pending for their partition's limits take no window place
// after the pass that found it: a window full of them used to hold every
// job behind them back for ever (a site's partition MaxNodes under the
// auction). Once the limit is lifted, the queue's selection starts them.
func TestPlannerWindowSkipsJobsHeldByLimits(t *testing.T) {
	c := cluster(t, "NodeName=n[0-7] CPUs=4\nPartitionName=batch Nodes=ALL Default=YES MaxNodes=2\n")
	p := &declineAll{}
	s := New(c, WithPlanner(p, 2))
	big1 := submit(t, s, nodes(3, time.Hour), at(0))
	big2 := submit(t, s, nodes(4, time.Hour), at(0))
	small := submit(t, s, nodes(1, time.Hour), at(0))
	s.Schedule(at(1))
	require.Equal(t, [][]JobID{{big1, big2}}, p.windows)
	for _, id := range []JobID{big1, big2} {
		j, _ := s.Job(id)
		require.Equal(t, ReasonPartitionNodeLimit, j.Reason)
	}
	st := s.Schedule(at(2))
	require.Equal(t, []JobID{small}, p.windows[1], "the held jobs make way")
	require.Len(t, st, 1)
	assert.Equal(t, small, st[0].Job)

	part, ok := c.Partition("batch")
	require.True(t, ok)
	part.MaxNodes = 4
	require.NoError(t, s.UpdatePartition(part, at(3)))
	st = s.Schedule(at(3))
	require.Len(t, st, 2, "the limit lifted, both start: %+v", st)
	assert.Equal(t, []JobID{big1, big2}, []JobID{st[0].Job, st[1].Job})
}
