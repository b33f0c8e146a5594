package selectnodes

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A placement naming a partition the cluster lacks is refused: its limits
// would not count the job. One naming none, or a partition the cluster
// has, is taken.
func TestAllocateRefusesAnUnknownPartition(t *testing.T) {
	c := htCluster(t, false)
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	alloc := []NodeAlloc{{Node: 0, CPUs: 2}}
	err := c.Allocate(1, &Placement{Partition: "alll", Alloc: alloc}, at, at.Add(time.Hour))
	require.ErrorContains(t, err, `unknown partition "alll"`)
	assert.Equal(t, 0, c.JobsOnTotal())
	require.NoError(t, c.Allocate(2, &Placement{Partition: "all", Alloc: alloc}, at, at.Add(time.Hour)))
	require.NoError(t, c.Allocate(3, &Placement{Alloc: alloc}, at, at.Add(time.Hour)))
	require.NoError(t, c.CheckInvariants())
}
