package selectnodes

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// ConfigChanges moves with node states, reported resources and
// partitions, and stays put under allocations, their ends and releases
// (which move Changes alone).
func TestConfigChangesLeaveTheLoadOut(t *testing.T) {
	c := uniform(t, 4, 4)
	part, _ := c.Partition("p")
	cfg := c.ConfigChanges()
	p, err := c.SelectNodes(&Request{CPUs: 2}, RunNow)
	require.NoError(t, err)
	require.NoError(t, c.Allocate(2, p, t0, t0.Add(time.Hour)))
	require.NoError(t, c.SetAllocationEnd(2, t0.Add(2*time.Hour)))
	require.NoError(t, c.Release(2))
	q, err := c.SelectNodes(&Request{CPUs: 1}, RunNow)
	require.NoError(t, err)
	require.NoError(t, c.AllocateSelected(3, q, t0, t0.Add(time.Hour)))
	assert.Equal(t, cfg, c.ConfigChanges(), "the load alone moved")
	for _, tc := range []struct {
		name string
		do   func() error
	}{
		{"SetNodeState", func() error { return c.SetNodeState("n3", NodeDrain) }},
		{"Register", func() error { _, err := c.Register("n2", Resources{CPUs: 4, RealMemory: 1000}); return err }},
		{"UpdatePartition", func() error { return c.UpdatePartition(part) }},
	} {
		before, all := c.ConfigChanges(), c.Changes()
		require.NoError(t, tc.do(), tc.name)
		assert.Greater(t, c.ConfigChanges(), before, "%s must bump ConfigChanges", tc.name)
		assert.Equal(t, c.ConfigChanges()-before, c.Changes()-all, "%s: a config change is a change", tc.name)
	}
}
