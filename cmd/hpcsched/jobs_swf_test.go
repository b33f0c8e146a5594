package main

import (
	"encoding/csv"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hpcsched/hpcsched/sim"
)

// partsSWF is a trace of two partitions, one job in each and one in the
// default.
const partsSWF = `; Version: 2.2
; MaxNodes: 4
; MaxProcs: 8
; Partition: 1 batch
; Partition: 2 debug
    1        0   10   100    2   -1   -1    2   200   -1  1   1   1  -1 -1  1 -1 -1
    2        5    0    50    8   -1   -1    8    -1   -1  1   2   1  -1 -1  2 -1 -1
    3       20    0   100    4   -1   -1    4   100   -1  1   4   1  -1 -1 -1 -1 -1
`

// An SWF written by --jobs names each job's partition (field 16, with the
// cluster's partitions in the header), so the file replays on the same
// partitions and prints the same row; it used to leave field 16 unknown,
// and every job fell into the default partition.
func TestJobsSWFKeepsThePartitions(t *testing.T) {
	dir := t.TempDir()
	trace, out := filepath.Join(dir, "parts.swf"), filepath.Join(dir, "out.swf")
	require.NoError(t, os.WriteFile(trace, []byte(partsSWF), 0o644))
	code, rowIn, errOut := runCmd(t, "simulate", "--workload", trace, "--backfill", "-q", "--csv", "--jobs", out)
	require.Equal(t, 0, code, errOut)

	tr, err := sim.OpenSWF(os.DirFS(dir), "out.swf", sim.SWFOptions{})
	require.NoError(t, err)
	require.Len(t, tr.Jobs, 3)
	var names []string
	for _, j := range tr.Jobs {
		names = append(names, tr.Partitions[j.Partition])
	}
	assert.Equal(t, []string{"batch", "debug", ""}, names)

	code, rowOut, errOut := runCmd(t, "simulate", "--workload", out, "--backfill", "-q", "--csv")
	require.Equal(t, 0, code, errOut)
	assert.Equal(t, figures(t, rowIn), figures(t, rowOut), "the replay of the written file prints the same row")
}

// figures is a one-row --csv output's fields after the workload and the
// cluster's names.
func figures(t *testing.T, out string) []string {
	recs, err := csv.NewReader(strings.NewReader(out)).ReadAll()
	require.NoError(t, err)
	require.Len(t, recs, 2)
	return recs[1][2:]
}
