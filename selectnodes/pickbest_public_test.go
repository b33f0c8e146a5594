package selectnodes

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The pipeline's stages are public: PickBestNodes and ReqFeatures run
// outside SelectNodes' call, without its scratch space, in both modes.
func TestPickBestNodesOnItsOwn(t *testing.T) {
	for _, compat := range []bool{false, true} {
		var opts []Option
		if compat {
			opts = append(opts, WithSlurmCompat())
		}
		c := confCluster(t, `
SelectType=select/cons_tres
NodeName=a[1-2] CPUs=4 RealMemory=1000 Weight=1
NodeName=b[1-3] CPUs=8 RealMemory=1000 Weight=5
PartitionName=p Nodes=a[1-2],b[1-3] Default=YES
`, opts...)
		job, err := c.Resolve(&Request{MinNodes: 3, MaxNodes: 3})
		require.NoError(t, err)
		sets, err := c.BuildNodeSets(job)
		require.NoError(t, err)
		n, err := c.NodeCounts(job)
		require.NoError(t, err)
		for _, mode := range []Mode{RunNow, TestOnly} {
			p, err := c.PickBestNodes(job, sets, n, mode)
			require.NoError(t, err, "compat %v mode %v", compat, mode)
			assert.Equal(t, 3, p.NodeCount())
			assert.Subset(t, p.Names, []string{"a1", "a2"}, "the weight-1 nodes first")
			p, err = c.ReqFeatures(job, sets, n, mode)
			require.NoError(t, err, "compat %v mode %v", compat, mode)
			assert.Equal(t, 3, p.NodeCount())
		}
	}
}
