package slurmconf

import (
	"testing"
	"time"

	"github.com/hpcsched/hpcsched/internal/shareddata"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestRealSlurmConfigs(t *testing.T) {
	fsys := shareddata.SiteConfigs(t)
	tests := []struct {
		file              string
		nodes, parts      int
		selectType        string
		files             int
		defaultPartition  string
		firstNodeFeatures []string
	}{
		{"bnl_sdcc_nsls2/slurm.conf", 39, 6, "select/cons_tres", 1, "normal", []string{"ib"}},
		{"imperial_biomedia/slurm.conf", 28, 4, "select/cons_res", 1, "long", nil},
		{"nstda_tara_test/slurm.conf", 10, 5, "select/cons_res", 1, "debug", nil},
		{"nvidia_ngc_circe_superpod/slurm.conf", 98, 8, "select/linear", 1, "batch", nil},
		{"slac_sdf_prod/slurm.conf", 36, 6, "select/cons_tres", 2, "shared",
			[]string{"CPU_GEN:SKX", "CPU_SKU:4110", "CPU_FRQ:2.10GHz", "GPU_GEN:VLT", "GPU_SKU:V100", "GPU_MEM:32GB", "GPU_CC:7.0"}},
		{"ubccr_medium_ubhpc/slurm.conf", 217, 2, "select/cons_tres", 1, "general-compute", []string{"CPU-Gold-6130", "OPA"}},
		{"ubccr_micro/slurm.conf", 10, 2, "select/cons_tres", 1, "normal", []string{"IB", "CPU-N"}},
		{"unsw_abacus/slurm.conf", 13, 4, "select/cons_res", 4, "debug", nil},
		// fragments of a site whose slurm.conf is not in the set
		{"unsw_rocks_master_a624f92/nodenames.conf", 32, 0, "", 1, "", []string{"rack-0", "8CPUs"}},
		{"unsw_rocks_master_a624f92/partitions.conf", 0, 5, "", 1, "debug", nil},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			c, err := ParseFile(fsys, tt.file)
			require.NoError(t, err)
			assert.Equal(t, tt.nodes, c.NodeCount(), "nodes")
			assert.Len(t, c.Partitions, tt.parts, "partitions")
			assert.Equal(t, tt.selectType, c.SelectType)
			assert.Len(t, c.Files, tt.files)
			if tt.nodes > 0 {
				assert.Equal(t, tt.firstNodeFeatures, c.Nodes[0].Features)
			}
			var def string
			for _, p := range c.Partitions {
				if p.Default {
					def = p.Name
				}
			}
			assert.Equal(t, tt.defaultPartition, def)
			if tt.nodes > 0 && tt.parts > 0 {
				assert.NoError(t, c.Validate())
			}
		})
	}
}

func TestRealSlurmConfigDetails(t *testing.T) {
	fsys := shareddata.SiteConfigs(t)
	c, err := ParseFile(fsys, "ubccr_medium_ubhpc/slurm.conf")
	require.NoError(t, err)
	g, ok := c.Node("g003")
	require.True(t, ok)
	assert.Equal(t, 40, g.CPUs)
	assert.Equal(t, int64(190), g.Weight)
	assert.Equal(t, []Gres{{Name: "gpu", Type: "tesla_v100-pcie-32gb", Count: 2}}, g.Gres)
	b, _ := c.Node("b024")
	assert.Equal(t, int64(754000), b.RealMemory)
	assert.Equal(t, int64(160), b.Weight)
	n, _ := c.Node("n001")
	assert.Equal(t, 32, n.CPUs, "2 sockets x 16 cores from the first DEFAULT line")
	assert.Equal(t, slurmDuration(t, "72:00:00"), c.Partitions[0].MaxTime)

	c, err = ParseFile(fsys, "bnl_sdcc_nsls2/slurm.conf")
	require.NoError(t, err)
	assert.Equal(t, Sharing{ShareForce, 50}, c.Partitions[4].Sharing)
	assert.Equal(t, "bf_window=2880", c.SchedulerParameters[2])
	assert.Equal(t, int64(253440), c.PriorityWeights["qos"])

	c, err = ParseFile(fsys, "nvidia_ngc_circe_superpod/slurm.conf")
	require.NoError(t, err)
	assert.Equal(t, 2, c.Partitions[0].PriorityTier)
	assert.Equal(t, ShareExclusive, c.Partitions[0].Sharing.Mode)
	assert.Len(t, c.Partitions[0].Nodes, 92)
}

func slurmDuration(t *testing.T, s string) time.Duration {
	d, err := ParseDuration(s)
	require.NoError(t, err)
	return d
}

func TestRealTopologyAndGres(t *testing.T) {
	fsys := shareddata.SiteConfigs(t)
	topo := map[string]int{
		"bnl_sdcc_nsls2/topology.conf": 4, "nstda_tara_test/topology.conf": 5,
		"nvidia_ngc_circe_superpod/topology.conf": 5, "ubccr_medium_ubhpc/topology.conf": 4,
		"ubccr_micro/topology.conf": 4, "unsw_abacus/topology.conf": 5,
	}
	for file, switches := range topo {
		top, err := ParseTopologyFile(fsys, file)
		require.NoError(t, err, file)
		assert.Len(t, top.Switches, switches, file)
	}
	gres := map[string]int{
		"imperial_biomedia/monal01.gres.conf": 8, "slac_sdf_prod/gres.conf": 7,
		"ubccr_medium_ubhpc/gres.conf": 2, "ubccr_micro/gres.conf": 1,
	}
	for file, lines := range gres {
		g, err := ParseGresFile(fsys, file)
		require.NoError(t, err, file)
		assert.Len(t, g.Lines, lines, file)
	}
	g, err := ParseGresFile(fsys, "slac_sdf_prod/gres.conf")
	require.NoError(t, err)
	assert.Equal(t, int64(8), g.Lines[1].Count)
	assert.Len(t, g.Lines[1].Files, 8)
}
