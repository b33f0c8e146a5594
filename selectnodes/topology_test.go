package selectnodes

import (
	"strings"
	"testing"
	"time"

	"github.com/hpcsched/hpcsched/slurmconf"
	"github.com/hpcsched/hpcsched/topology"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestTopologyAwareSelection(t *testing.T) {
	c, err := Seed001()
	require.NoError(t, err)
	tree := c.Topology()
	require.NotNil(t, tree)
	// occupy the first 8 nodes of every leaf of mid0, so 24 are free in each
	var id JobID
	for leaf := 0; leaf < 8; leaf++ {
		id++
		var req []string
		for k := 0; k < 8; k++ {
			req = append(req, c.Node(leaf*32+k).Name)
		}
		p, err := c.SelectNodes(&Request{Required: req, MinNodes: 8, Share: ShareExclusiveJob}, RunNow)
		require.NoError(t, err)
		require.NoError(t, c.Allocate(id, p, t0, t0.Add(time.Hour)))
	}
	// 20 nodes: the lowest switch is a leaf; best fit picks a 24-free leaf
	// of mid0 over the 32-free leaves of the other middle switches
	p, err := c.SelectNodes(&Request{MinNodes: 20, Share: ShareExclusiveJob}, RunNow)
	require.NoError(t, err)
	lvl, ok := tree.LowestCommonLevel(p.NodeSet())
	require.True(t, ok)
	assert.Equal(t, 0, lvl)
	assert.Equal(t, "node[0008-0027]", p.Hostlist())
	// 40 nodes need two leaves under one middle switch
	p, err = c.SelectNodes(&Request{MinNodes: 40, Share: ShareExclusiveJob}, RunNow)
	require.NoError(t, err)
	lvl, _ = tree.LowestCommonLevel(p.NodeSet())
	assert.Equal(t, 1, lvl)
	// GPU ranges and cores still apply
	p, err = c.SelectNodes(&Request{MinNodes: 2, CPUs: 20, GRES: []GRESRequest{{Name: "gpu", Min: 1, Max: 3}}}, RunNow)
	require.NoError(t, err)
	assert.Equal(t, 20, p.TotalCPUs)
	for _, a := range p.Alloc {
		assert.Equal(t, int64(3), a.GRES[0].Count)
	}
}

func TestTopologyNoSingleTree(t *testing.T) {
	cfg, err := slurmconf.Parse(strings.NewReader("NodeName=n[0-7]\nPartitionName=p Nodes=ALL Default=YES\n"))
	require.NoError(t, err)
	top, err := slurmconf.ParseTopology(strings.NewReader("SwitchName=a Nodes=n[0-3]\nSwitchName=b Nodes=n[4-7]\n"))
	require.NoError(t, err)
	c, err := FromConfig(cfg, WithTopologyConfig(top))
	require.NoError(t, err)
	ex := c.Explain(&Request{MinNodes: 6}, RunNow)
	require.ErrorIs(t, ex.Class, ErrNodeConfig)
	assert.Contains(t, ex.String(), "topology: no single switch tree can hold 6 nodes")

	c, err = FromConfig(cfg, WithTopologyConfig(top, topology.AllowSpanningTrees()))
	require.NoError(t, err)
	p, err := c.SelectNodes(&Request{MinNodes: 6}, RunNow)
	require.NoError(t, err)
	assert.Len(t, p.Names, 6)

	bad, err := slurmconf.ParseTopology(strings.NewReader("SwitchName=a Nodes=n[0-3],x9\n"))
	require.NoError(t, err)
	_, err = FromConfig(cfg, WithTopologyConfig(bad))
	assert.ErrorContains(t, err, "unknown node x9")
	_, tree := topology.Seed001()
	_, err = FromConfig(cfg, WithTopology(tree))
	assert.ErrorContains(t, err, "covers 1024 nodes, the cluster has 8")
}
