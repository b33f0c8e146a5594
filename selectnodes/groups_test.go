package selectnodes_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/hpcsched/hpcsched/selectnodes"
	"github.com/hpcsched/hpcsched/slurmconf"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A NodeName line per node makes a config record, and a node set, per
// node; Groups merges the sets of equal weight and features (features
// compared as sets) into one, in set order, with the figures summed.
func TestGroupsOfManyLines(t *testing.T) {
	var b strings.Builder
	const n = 3000
	for i := 1; i <= n; i++ {
		feats := "a,b"
		if i%2 == 0 {
			feats = "b,a"
		}
		weight := 1
		if i > n-10 {
			weight = 2 // a second group, of heavier nodes
		}
		fmt.Fprintf(&b, "NodeName=n%d CPUs=4 Weight=%d Feature=%s Gres=gpu:t%d:1\n", i, weight, feats, i)
	}
	b.WriteString("PartitionName=p Nodes=ALL Default=YES\n")
	cfg, err := slurmconf.Parse(strings.NewReader(b.String()))
	require.NoError(t, err)
	c, err := selectnodes.FromConfig(cfg)
	require.NoError(t, err)
	ex := c.Explain(&selectnodes.Request{MinNodes: 2}, selectnodes.RunNow)
	require.Len(t, ex.Sets, n)
	groups := ex.Groups()
	require.Len(t, groups, 2)
	assert.Equal(t, fmt.Sprintf("n[1-%d]", n-10), groups[0].Nodes)
	assert.Equal(t, n-10, groups[0].Total)
	assert.Equal(t, n-10, groups[0].Usable)
	assert.Equal(t, fmt.Sprintf("n[%d-%d]", n-9, n), groups[1].Nodes)
	assert.Equal(t, 10, groups[1].Candidates)
	assert.Contains(t, ex.String(), fmt.Sprintf("node set n[1-%d] (weight 1, features a,b, %d nodes)", n-10, n-10))
}
