package selectnodes_test

import (
	"strings"
	"testing"
	"time"

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

// OfferTerms' Span is the nodes a request could ever be given: its partition's
// nodes that meet its per-node constraints, whatever runs and whatever
// the nodes' states; MostCPUs is a node's CPUs with nothing running.
func TestOfferTermsSpanIgnoresTheLoad(t *testing.T) {
	cfg, err := slurmconf.Parse(strings.NewReader(
		"NodeName=a[1-2] CPUs=8 Feature=ib\nNodeName=b1 CPUs=4\nNodeName=a[3-4] CPUs=8 Feature=ib\n" +
			"PartitionName=long Nodes=a[1-4] Default=YES\nPartitionName=short Nodes=b1\n"))
	require.NoError(t, err)
	c, err := selectnodes.FromConfig(cfg)
	require.NoError(t, err)
	req := &selectnodes.Request{CPUs: 20, MinNodes: 3, MaxNodes: 3}
	names := func() []string {
		terms, err := c.OfferTerms(req)
		require.NoError(t, err)
		return c.Names(terms.Span)
	}
	require.Equal(t, []string{"a1", "a2", "a3", "a4"}, names(), "b1 is the other partition's")

	p, err := c.SelectNodes(&selectnodes.Request{CPUs: 16, MinNodes: 2, MaxNodes: 2}, selectnodes.RunNow)
	require.NoError(t, err)
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	require.NoError(t, c.Allocate(1, p, start, start.Add(time.Hour)))
	require.NoError(t, c.SetNodeState("a4", selectnodes.NodeDrain))
	require.Equal(t, []string{"a1", "a2", "a3", "a4"}, names(), "the load and the states aside")
	require.Equal(t, 8, c.MostCPUs(0))
	require.Equal(t, 0, c.FreeCPUs(0))
	require.Equal(t, 4, c.Snapshot().MostCPUs(2))
	require.Zero(t, c.MostCPUs(99))

	ib, err := features.Parse("ib")
	require.NoError(t, err)
	_, err = c.OfferTerms(&selectnodes.Request{Partition: "short", Features: ib})
	require.ErrorIs(t, err, selectnodes.ErrNodeConfig)
	terms, err := c.OfferTerms(&selectnodes.Request{Partition: "long", Features: ib})
	require.NoError(t, err)
	require.Equal(t, []string{"a1", "a2", "a3", "a4"}, c.Names(terms.Span))

	one, err := selectnodes.FromConfig(mustParse(t, "NodeName=a[1-2] CPUs=8\nPartitionName=all Nodes=ALL Default=YES\n"))
	require.NoError(t, err)
	terms, err = one.OfferTerms(&selectnodes.Request{MinNodes: 1})
	require.NoError(t, err)
	require.Nil(t, terms.Span, "every node: no Span")
}

func mustParse(t *testing.T, conf string) *slurmconf.Config {
	cfg, err := slurmconf.Parse(strings.NewReader(conf))
	require.NoError(t, err)
	return cfg
}
