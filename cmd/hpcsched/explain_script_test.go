package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// explain reads a batch script's #SBATCH lines as sbatch does, up to its
// first command; the command line's options override them; a refused
// directive names the script's line, a refused command-line option its
// own argument number.
func TestExplainReadsABatchScript(t *testing.T) {
	conf := filepath.Join("..", "..", "placementtest", "testdata", "site.conf")
	dir := t.TempDir()
	write := func(name, text string) string {
		path := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(path, []byte(text), 0o644))
		return path
	}
	job := write("job.sh", "#!/bin/bash\n#SBATCH -N2 --ntasks-per-node=16  # 32 CPUs\n#SBATCH -C new\n"+
		"module load x\n#SBATCH -N 8\nsrun x\n")

	code, out, errOut := runCmd(t, "explain", "--conf", conf, job)
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, out, "2..2 nodes (desired 2), 32 CPUs")
	assert.Contains(t, out, "do not satisfy new")

	code, out, errOut = runCmd(t, "explain", "--conf", conf, job, "-C", "old", "-N1")
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, out, "1..1 nodes (desired 1), 16 CPUs")
	assert.Contains(t, out, "do not satisfy old")

	bad := write("bad.sh", "#!/bin/sh\n# comment\n#SBATCH -N2\n#SBATCH --nodes=zz\n")
	code, _, errOut = runCmd(t, "explain", "--conf", conf, bad)
	assert.Equal(t, 2, code)
	assert.Contains(t, errOut, bad+`:4: sbatch: "--nodes=zz"`)

	code, _, errOut = runCmd(t, "explain", "--conf", conf, job, "--nodes=zz")
	assert.Equal(t, 2, code)
	assert.Contains(t, errOut, `argument 4 ("--nodes=zz")`)

	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{filepath.Join(dir, "missing.sh")}, "batch script: open"},
		{[]string{job, job}, "one batch script at most"},
		{[]string{write("het.sh", "#SBATCH -N1\n#SBATCH hetjob\n")}, "het.sh:2:1: sbatch: hetjob: heterogeneous jobs are not modelled"},
		{[]string{write("quote.sh", "#SBATCH -J 'x\n")}, "quote.sh:1:1: sbatch: unterminated ' quote"},
	} {
		code, _, errOut := runCmd(t, append([]string{"explain", "--conf", conf}, tc.args...)...)
		assert.Equal(t, 2, code, tc.want)
		assert.Contains(t, errOut, tc.want)
	}
}
