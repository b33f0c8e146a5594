package check

import (
	"os"
	"path/filepath"
	"testing"
)

// Sets recorded on a real Slurm 22.05.8 beyond the space the earlier ones
// drew from: partitions with MaxCPUsPerNode, SelectTypeParameters CR_LLN
// and partition LLN=YES. lln-maxcpus-fit and lln-probe are the sets the
// rules were written from (fitted); lln-maxcpus-blind was recorded with
// lln-maxcpus-fit, before any rule of these, and left unread until the
// rules were written: its first replay is in the folder's README.
var (
	llnFitGaps   = map[int]string{}
	llnProbeGaps = map[int]string{}
	llnBlindGaps = map[int]string{}
)

func TestSlurm2205CPUCapAndLLN(t *testing.T) {
	for _, set := range []struct {
		dir  string
		gaps map[int]string
	}{
		{"lln-maxcpus-fit", llnFitGaps}, {"lln-probe", llnProbeGaps}, {"lln-maxcpus-blind", llnBlindGaps},
	} {
		t.Run(set.dir, func(t *testing.T) {
			dir := filepath.Join("testdata", "slurm2205-own", set.dir)
			if !fileExists(filepath.Join(dir, "recorded.tsv")) {
				t.Skip("not recorded yet")
			}
			replayOwn(t, dir, set.gaps)
		})
	}
}

func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}
