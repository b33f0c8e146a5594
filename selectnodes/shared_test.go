package selectnodes_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/hpcsched/hpcsched/features"
	"github.com/hpcsched/hpcsched/selectnodes"
	"github.com/hpcsched/hpcsched/slurmconf"
)

// The feature index a cluster hands out is its own and frozen: a holder
// that adds to it is stopped, instead of changing which nodes the
// cluster's constraints match.
func TestClusterFeatureIndexIsFrozen(t *testing.T) {
	cfg, err := slurmconf.Parse(strings.NewReader(
		"NodeName=n1 CPUs=4 Feature=ib\nNodeName=n2 CPUs=4\nPartitionName=p Nodes=ALL Default=YES\n"))
	require.NoError(t, err)
	c, err := selectnodes.FromConfig(cfg)
	require.NoError(t, err)
	ix := c.FeatureIndex()
	require.True(t, ix.Frozen())
	require.Panics(t, func() { ix.Add(1, "ib") })
	ib, err := features.Parse("ib")
	require.NoError(t, err)
	req := &selectnodes.Request{MinNodes: 2, Features: ib}
	_, err = c.SelectNodes(req, selectnodes.RunNow)
	require.ErrorIs(t, err, selectnodes.ErrNodeConfig, "n2 still lacks ib")
}
