package selectnodes

import (
	"testing"

	"github.com/hpcsched/hpcsched/internal/shareddata"
	"github.com/hpcsched/hpcsched/slurmconf"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Every real site configuration becomes a cluster whose default partition
// can run a one-node job, and whose selector follows SelectType.
func TestRealConfigs(t *testing.T) {
	fsys := shareddata.SiteConfigs(t)
	for _, file := range shareddata.SlurmConfs() {
		t.Run(file, func(t *testing.T) {
			cfg, err := slurmconf.ParseFile(fsys, file)
			require.NoError(t, err)
			c, err := FromConfig(cfg)
			require.NoError(t, err)
			assert.Equal(t, cfg.NodeCount(), c.NodeCount())
			assert.Len(t, c.Partitions(), len(cfg.Partitions))
			switch cfg.SelectType {
			case "select/linear":
				assert.IsType(t, Linear{}, c.Selector())
			default:
				assert.IsType(t, ConsRes{}, c.Selector())
			}
			// a site with accounting and AllowQOS on its default partition
			// (ubccr_medium_ubhpc) refuses a job of the default QOS: ask
			// with one the partition allows
			req := &Request{}
			def, _ := c.Partition(c.DefaultPartition())
			if allow := def.Access.AllowQOS; c.ChecksQOS() && !allowedBy(allow, DefaultQOS) {
				_, err := c.SelectNodes(req, RunNow)
				require.ErrorContains(t, err, "the job's is normal (the default")
				req.QOS = allow[0]
			}
			p, err := c.SelectNodes(req, RunNow)
			require.NoError(t, err)
			assert.Len(t, p.Names, 1)
			// every partition is judged: runnable, or an explained error
			for _, part := range c.Partitions() {
				ex := c.Explain(&Request{Partition: part.Name, MinNodes: 2}, TestOnly)
				if ex.Class != nil {
					assert.NotEmpty(t, ex.Reason, part.Name)
				}
			}
			require.NoError(t, c.CheckInvariants())
		})
	}
}

// The SLAC configuration's key:value features and typed GRES select as
// sites use them.
func TestRealConfigFeatures(t *testing.T) {
	fsys := shareddata.SiteConfigs(t)
	cfg, err := slurmconf.ParseFile(fsys, "slac_sdf_prod/slurm.conf")
	require.NoError(t, err)
	c, err := FromConfig(cfg)
	require.NoError(t, err)
	p, err := c.SelectNodes(&Request{MinNodes: 2, Features: mustExpr(t, "GPU_SKU:V100&CPU_FRQ:2.10GHz"),
		GRES: []GRESRequest{{Name: "gpu", Type: "v100", Min: 4, Max: 4}}}, RunNow)
	require.NoError(t, err)
	// the three V100 lines (nu-gpu[01-03], cryoem-gpu50, ocio-gpu[50-51];
	// weight 127207, the lowest) are configured alike: one record, whose
	// best-fitting run of free nodes is ocio-gpu[50-51]; Slurm 22.05 makes
	// each line a node set and takes the first that suffices
	assert.Equal(t, "ocio-gpu[50-51]", p.Hostlist(), "one record of the alike lines, best fit")
	compat, err := FromConfig(cfg, WithSlurmCompat())
	require.NoError(t, err)
	p, err = compat.SelectNodes(&Request{MinNodes: 2, Features: mustExpr(t, "GPU_SKU:V100&CPU_FRQ:2.10GHz"),
		GRES: []GRESRequest{{Name: "gpu", Type: "v100", Min: 4, Max: 4}}}, RunNow)
	require.NoError(t, err)
	assert.Equal(t, "nu-gpu[01-02]", p.Hostlist(), "a node set per line, the first that suffices")
	_, err = c.SelectNodes(&Request{Features: mustExpr(t, "GPU_SKU:V100"), GRES: []GRESRequest{{Name: "gpu", Min: 5, Max: 5}}}, TestOnly)
	assert.ErrorIs(t, err, ErrNodeConfig)
	p, err = c.SelectNodes(&Request{Partition: "ml", MinNodes: 3, Features: mustExpr(t, "[GPU_SKU:RTX2080TI|GPU_SKU:V100]")}, RunNow)
	require.NoError(t, err)
	assert.Equal(t, "ml-gpu[01-03]", p.Hostlist())
}

// Slurm 22.05 makes every NodeName line a config record and calls
// select/linear at the first node set that gives enough nodes: on a site
// writing a line per node, -N20 takes the first twenty nodes of the file,
// folded lines or not (the default mode, whose records are the folded
// lines, may choose among all of them).
func TestCompatLinearStopsAtTheFirstLinesThatSuffice(t *testing.T) {
	fsys := shareddata.SiteConfigs(t)
	cfg, err := slurmconf.ParseFile(fsys, "imperial_biomedia/slurm.conf")
	require.NoError(t, err)
	c, err := FromConfig(cfg, WithSlurmCompat(), WithSelector(Linear{}))
	require.NoError(t, err)
	p, err := c.SelectNodes(&Request{MinNodes: 20}, RunNow)
	require.NoError(t, err)
	assert.Equal(t, "biomedia[01-02,05-10],roc[01-12]", p.Hostlist())
}
