package check

import (
	"bytes"
	"testing"
	"time"

	"github.com/hpcsched/hpcsched/queue"
	"github.com/hpcsched/hpcsched/selectnodes"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestRunAfterALoadPutOnTheCluster: Run picks an ID above the jobs already
// on the Cluster, so a restored queue state (explain --state) followed by
// a running spec (--running) loads both; the spec's job was refused as
// "job 1 is already allocated".
func TestRunAfterALoadPutOnTheCluster(t *testing.T) {
	src := smallSite(t)
	q := queue.New(src.Cluster)
	for range 2 {
		_, err := q.Submit(queue.Spec{Request: selectnodes.Request{MinNodes: 1, CPUs: 4}, TimeLimit: time.Hour}, src.Now())
		require.NoError(t, err)
	}
	require.Len(t, q.Schedule(src.Now()), 2)
	var state bytes.Buffer
	require.NoError(t, q.Snapshot(&state))

	s := smallSite(t)
	_, err := queue.Restore(&state, s.Cluster)
	require.NoError(t, err)
	require.NoError(t, s.Run("n3"))
	require.NoError(t, s.Run("n4:cpus=2"))
	assert.Len(t, s.Cluster.Running(), 4)
	a, err := s.Ask("-N1")
	require.NoError(t, err)
	assert.ErrorIs(t, a.Err, selectnodes.ErrBusy)
}
