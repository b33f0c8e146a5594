package selectnodes

import (
	"testing"

	"github.com/hpcsched/hpcsched/internal/shareddata"
	"github.com/hpcsched/hpcsched/slurmconf"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// MostGRES says what the largest of a node's GRES lines of a name says,
// for every node and GRES name of every real site configuration, on the
// cluster and on a snapshot.
func TestMostGRESAsNodeGRES(t *testing.T) {
	fsys := shareddata.SiteConfigs(t)
	for _, file := range shareddata.SlurmConfs() {
		cfg, err := slurmconf.ParseFile(fsys, file)
		require.NoError(t, err)
		c, err := FromConfig(cfg)
		require.NoError(t, err)
		snap := c.Snapshot()
		for i := range c.NodeCount() {
			want := map[string]int64{"nosuch": 0}
			for _, g := range c.Node(i).GRES {
				want[g.Name] = max(want[g.Name], g.Count)
			}
			for name, most := range want {
				require.Equal(t, most, c.MostGRES(i, name), "%s node %d %s", file, i, name)
				require.Equal(t, most, snap.MostGRES(i, name))
			}
		}
		assert.Zero(t, c.MostGRES(-1, "gpu"))
		assert.Zero(t, c.MostGRES(c.NodeCount(), "gpu"))
	}
	c := uniform(t, 1, 4)
	assert.Zero(t, c.MostGRES(0, "gpu"))
}
