package queue

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Jobs whose request breaks their partition's limits start nowhere: an
// EASY pass passes over them without counting them against its depth or
// making one the head, and says which limit holds each. A queue front of
// more such jobs than the depth used to keep every job behind it waiting
// for ever (a trace replayed on a site with MaxTime).
func TestEASYPassesOverJobsHeldByPartitionLimits(t *testing.T) {
	c := cluster(t, "NodeName=n[0-3] CPUs=4\nPartitionName=batch Nodes=ALL Default=YES MaxTime=60 MaxNodes=2\n")
	s := New(c, WithBackfillDepth(5))
	easy := NewEASY(s)
	var held []JobID
	for k := range 8 {
		spec := nodes(1, 2*time.Hour) // over MaxTime
		if k%2 == 1 {
			spec = nodes(3, 30*time.Minute) // over MaxNodes
		}
		held = append(held, submit(t, s, spec, at(0)))
	}
	small := submit(t, s, nodes(2, 30*time.Minute), at(0))
	wide := submit(t, s, nodes(2, 50*time.Minute), at(0))
	late := submit(t, s, nodes(2, 20*time.Minute), at(0)) // no room left: the head
	st := easy.Backfill(at(1))
	require.Len(t, st, 2, "%+v", st)
	assert.Equal(t, []JobID{small, wide}, []JobID{st[0].Job, st[1].Job})
	for k, id := range held {
		j, _ := s.Job(id)
		want := ReasonPartitionTimeLimit
		if k%2 == 1 {
			want = ReasonPartitionNodeLimit
		}
		assert.Equal(t, want, j.Reason, "job %d", id)
	}
	j, _ := s.Job(late)
	assert.Equal(t, ReasonResources, j.Reason)
}
