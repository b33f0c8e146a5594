package topology

import (
	"testing"

	"github.com/hpcsched/hpcsched/internal/shareddata"
	"github.com/hpcsched/hpcsched/slurmconf"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The real topology.conf files build over their own clusters' nodes. Two
// of them name nodes their slurm.conf does not define; strictly that is
// an error, leniently a warning, as in Slurm.
func TestRealTopologies(t *testing.T) {
	fsys := shareddata.SiteConfigs(t)
	tests := []struct {
		site         string
		roots, level int
		unknown      bool
	}{
		{"bnl_sdcc_nsls2", 4, 0, false},
		{"nstda_tara_test", 1, 1, false},
		{"nvidia_ngc_circe_superpod", 5, 0, true},
		{"ubccr_medium_ubhpc", 1, 1, true},
		{"ubccr_micro", 1, 1, false},
		{"unsw_abacus", 1, 1, false},
	}
	for _, tt := range tests {
		t.Run(tt.site, func(t *testing.T) {
			cfg, err := slurmconf.ParseFile(fsys, tt.site+"/slurm.conf")
			require.NoError(t, err)
			var names []string
			for _, n := range cfg.Nodes {
				names = append(names, n.Names...)
			}
			top, err := slurmconf.ParseTopologyFile(fsys, tt.site+"/topology.conf")
			require.NoError(t, err)
			tr, err := FromConfig(top, names)
			if tt.unknown {
				var te *Error
				require.ErrorAs(t, err, &te)
				assert.Regexp(t, "unknown node|two leaf switches", te.Msg)
				assert.NotEmpty(t, te.Pos, "the error names the line")
				tr, err = FromConfig(top, names, Lenient())
				require.NoError(t, err)
				assert.NotEmpty(t, tr.Warnings)
			} else {
				require.NoError(t, err)
			}
			assert.Len(t, tr.Roots, tt.roots)
			assert.Equal(t, tt.level, tr.MaxLevel)
			// every covered pair of nodes has a lowest common level no
			// higher than the tree's top when they share a root
			covered := tr.Covered()
			got, err := tr.Fit(covered, Request{Nodes: 2})
			if err == nil {
				lvl, ok := tr.LowestCommonLevel(set(tr.NodeCount(), got...))
				require.True(t, ok)
				assert.Equal(t, 0, lvl, "two nodes fit under one leaf in every site")
			}
		})
	}
}
