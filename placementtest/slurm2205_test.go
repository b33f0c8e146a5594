package placementtest_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/hpcsched/hpcsched/internal/shareddata"
	"github.com/hpcsched/hpcsched/placementtest"
)

// The 52 placements a real Slurm 22.05.8 made (../shared/slurm2205) hold
// as an administrator runs them: RunTable in Slurm-compatible mode, one
// subtest a line.
func TestSlurm2205VectorsThroughRunTable(t *testing.T) {
	data := shareddata.Dir()
	if data == "" {
		t.Skip("../shared/data not found; the Slurm 22.05 vectors live beside it")
	}
	path := filepath.Join(data, "..", "slurm2205", "vectors.tsv")
	if _, err := os.Stat(path); err != nil {
		t.Skipf("no Slurm 22.05 vectors: %v", err)
	}
	placementtest.RunTable(t, path, placementtest.SlurmCompat())
}
