package check

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/hpcsched/hpcsched/internal/shareddata"
	"github.com/stretchr/testify/require"
)

// The 52 placements a real Slurm 22.05.8 made (../shared/slurm2205), run
// through the table path in Slurm-compatible mode: every one must agree.
func TestSlurm2205Vectors(t *testing.T) {
	data := shareddata.Dir()
	if data == "" {
		t.Skip("../shared/data not found; the Slurm 22.05 vectors live beside it")
	}
	dir := filepath.Join(data, "..", "slurm2205")
	f, err := os.Open(filepath.Join(dir, "vectors.tsv"))
	if err != nil {
		t.Skipf("no Slurm 22.05 vectors: %v", err)
	}
	defer f.Close()
	cases, err := ReadTable(f, "vectors.tsv")
	require.NoError(t, err)
	require.Len(t, cases, 52)
	// Lines where compat mode does not yet reproduce Slurm: none since
	// the rules were corrected (bracketed terms fill each from its own nodes, required
	// nodes are completed from the first one up then down, nodes are in
	// name order). The list must stay empty: a gap is a regression.
	known := map[int]bool{}
	r := &Runner{Dir: dir, Options: Options{SlurmCompat: true}}
	for _, c := range cases {
		res := r.Run(c)
		if known[c.Line] {
			if res.Pass {
				t.Errorf("vectors.tsv:%d now agrees with Slurm: remove it from the known gaps", c.Line)
			}
			continue
		}
		if !res.Pass {
			expl := ""
			if res.Answer != nil && res.Answer.Explanation != nil {
				expl = res.Answer.Explanation.String()
			}
			t.Errorf("vectors.tsv:%d: %s | %s | %s: want %s, got %s\n%s", c.Line, c.Conf, c.Load, c.Request, c.Expected, res.Got, expl)
		}
	}
}
