package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// --from-slurm loads a live cluster's state (the files slurmstate.Command
// writes; here the ones recorded on a real Slurm 22.05.8) at the moment
// nodes.txt was written: jobs, a drained and a down node, and a
// reservation on f09 two hours ahead, so a 30-minute job gets f[08-09] as
// Slurm gave it and a 3-hour one waits.
func TestExplainFromSlurm(t *testing.T) {
	if _, off := time.Now().Zone(); off != 0 {
		t.Skip("the fixtures' times are UTC and --from-slurm reads local time")
	}
	src := "../../slurmstate/testdata/emu"
	dir := t.TempDir()
	for _, f := range []string{"nodes.txt", "jobs.txt", "reservations.txt"} {
		b, err := os.ReadFile(filepath.Join(src, f))
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(dir, f), b, 0o644))
	}
	when, err := os.ReadFile(filepath.Join(src, "now.txt"))
	require.NoError(t, err)
	at, err := time.Parse("2006-01-02T15:04:05", strings.TrimSpace(string(when)))
	require.NoError(t, err)
	require.NoError(t, os.Chtimes(filepath.Join(dir, "nodes.txt"), at, at))
	conf := filepath.Join(src, "site.conf")

	code, out, errOut := runCmd(t, "explain", "--conf", conf, "--slurm-compat", "--json", "-t", "30", "-C", "b", "-N2", "--from-slurm", dir)
	require.Equal(t, 0, code, "%s%s", out, errOut)
	var got explainJSON
	require.NoError(t, json.Unmarshal([]byte(out), &got))
	assert.Equal(t, "f[08-09]", got.Nodes)

	code, out, errOut = runCmd(t, "explain", "--conf", conf, "--slurm-compat", "-t", "3:00:00", "-C", "b", "-N2", "--from-slurm="+dir)
	assert.Equal(t, 1, code, "the reservation and the load keep it waiting: %s%s", out, errOut)

	code, _, _ = runCmd(t, "explain", "--conf", conf, "--slurm-compat", "-t", "3:00:00", "-C", "b", "-N2")
	assert.Equal(t, 0, code, "runnable on the idle cluster")

	require.NoError(t, os.WriteFile(filepath.Join(dir, "jobs.txt"), []byte("1|main|RUNNING|1|4|OK|N/A\n"), 0o644))
	code, out, errOut = runCmd(t, "explain", "--conf", conf, "--json", "-N1", "--from-slurm", dir)
	assert.Equal(t, 2, code)
	assert.Empty(t, out)
	assert.Contains(t, errOut, "jobs.txt:1:1")
	code, _, errOut = runCmd(t, "explain", "--conf", conf, "-N1", "--from-slurm", filepath.Join(dir, "missing"))
	assert.Equal(t, 2, code)
	assert.Contains(t, errOut, "--from-slurm")
}
