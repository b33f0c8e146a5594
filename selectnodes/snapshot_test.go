package selectnodes

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestSnapshotWhatIf(t *testing.T) {
	c := uniform(t, 4, 2)
	occupy(t, c, 1, time.Hour, "n0", "n1")
	s := c.Snapshot()
	require.NoError(t, s.Release(1))
	p, err := s.SelectNodes(&Request{MinNodes: 4}, RunNow)
	require.NoError(t, err)
	assert.Len(t, p.Names, 4)
	require.NoError(t, s.Allocate(9, p, t0, t0.Add(2*time.Hour)))
	_, err = s.SelectNodes(&Request{MinNodes: 1}, RunNow)
	assert.ErrorIs(t, err, ErrBusy)
	p, err = s.SelectNodes(&Request{MinNodes: 1}, WillRun)
	require.NoError(t, err)
	assert.Equal(t, t0.Add(2*time.Hour), p.Start)
	// the cluster itself is untouched
	_, err = c.SelectNodes(&Request{MinNodes: 3}, RunNow)
	assert.ErrorIs(t, err, ErrBusy)
	assert.Equal(t, []JobID{1}, c.Running())
	assert.Equal(t, []JobID{9}, s.Jobs())
	require.NoError(t, c.CheckInvariants())
	assert.Error(t, s.Release(1))
	assert.Error(t, s.Allocate(9, p, t0, t0))
}

func TestExcludeNodesIsUnavailability(t *testing.T) {
	c := uniform(t, 4, 2)
	x, err := c.NodeSet([]string{"n0", "n1", "n2"})
	require.NoError(t, err)
	_, err = c.SelectNodes(&Request{MinNodes: 2, ExcludeNodes: x}, RunNow)
	assert.ErrorIs(t, err, ErrPartConfig, "withheld, not misconfigured")
	_, err = c.SelectNodes(&Request{Required: []string{"n0"}, ExcludeNodes: x}, RunNow)
	assert.ErrorIs(t, err, ErrPartConfig)
	p, err := c.SelectNodes(&Request{ExcludeNodes: x}, RunNow)
	require.NoError(t, err)
	assert.Equal(t, []string{"n3"}, p.Names)
}
