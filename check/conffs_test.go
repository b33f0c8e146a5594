package check

import (
	"path/filepath"
	"testing"

	"github.com/hpcsched/hpcsched/internal/shareddata"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The real SLAC and UNSW Abacus configurations load as shipped: their
// Include lines (a relative name, and /etc/slurm/... paths) resolve
// beside the conf under the collection's site-prefixed names.
func TestSitesWithIncludesLoadAsShipped(t *testing.T) {
	dir := shareddata.Dir()
	if dir == "" {
		t.Skip("../shared/data not found")
	}
	for file, nodes := range map[string]int{"slac_sdf_prod.slurm.conf": 0, "unsw_abacus.slurm.conf": 0} {
		cfg, err := ReadConfig(filepath.Join(dir, "slurm_configs", file))
		require.NoError(t, err, file)
		s, err := NewSite(cfg, Options{})
		require.NoError(t, err, file)
		assert.Greater(t, s.Cluster.NodeCount(), nodes, file)
	}
}
