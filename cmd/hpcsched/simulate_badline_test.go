package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hpcsched/hpcsched/sim"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A bad line is named with its trace wherever it stands: the first job is
// read when the trace is opened, later ones as the replay submits them.
func TestSimulateNamesTheTraceOfABadLine(t *testing.T) {
	good := "1 0 0 10 2 -1 -1 2 60 -1 1 1 1 -1 1 -1 -1 -1\n"
	bad := "9 6 0 99999999999999999999 2 -1 -1 2 60 -1 1 1 1 -1 1 -1 -1 -1\n"
	for _, tc := range []struct {
		name, body string
		line       string
	}{
		{"first", "; MaxNodes: 4\n" + bad, "swf: line 2:"},
		{"later", "; MaxNodes: 4\n" + good + good + bad, "swf: line 4:"},
		// submitted before a job ReorderWindow lines earlier
		{"out of order", "; MaxNodes: 4\n" + strings.Repeat("1 99 0 10 2 -1 -1 2 60 -1 1 1 1 -1 1 -1 -1 -1\n", sim.ReorderWindow+1) + good, "sim: line 1027:"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "t.swf")
			require.NoError(t, os.WriteFile(path, []byte(tc.body), 0o600))
			code, _, errOut := runCmd(t, "simulate", "--workload", path, "-q")
			assert.Equal(t, 2, code)
			assert.Contains(t, errOut, path+": "+tc.line)
		})
	}
}

// A header or a machines file that sizes the cluster over its budget, or
// a --machines that cannot be opened, is named in the error: the
// header's trace, or --machines.
func TestSimulateNamesWhatSizedTheCluster(t *testing.T) {
	dir := t.TempDir()
	job := "1 0 0 10 2 -1 -1 2 60 -1 1 1 1 -1 1 -1 -1 -1\n"
	huge := filepath.Join(dir, "huge.swf")
	require.NoError(t, os.WriteFile(huge, []byte("; MaxNodes: 99999999999999\n"+job), 0o600))
	plain := filepath.Join(dir, "plain.swf")
	require.NoError(t, os.WriteFile(plain, []byte(job), 0o600))
	for _, tc := range []struct {
		name  string
		args  []string
		wants string
	}{
		{"a header over the budget", []string{"--workload", huge}, "simulate: " + huge + ": swf: line 1: header MaxNodes"},
		{"a missing --machines", []string{"--workload", plain, "--machines", filepath.Join(dir, "none")}, "simulate: --machines: open " + filepath.Join(dir, "none")},
	} {
		code, _, errOut := runCmd(t, append([]string{"simulate", "-q"}, tc.args...)...)
		assert.Equal(t, 2, code, tc.name)
		assert.Contains(t, errOut, tc.wants, tc.name)
	}
}

// A run that fails half way leaves no --jobs file and no temporary one
// beside it; with --force, the file it would have replaced stays as it
// was. A run that ends well writes its file in full.
func TestSimulateFailedRunKeepsTheOldJobsFile(t *testing.T) {
	dir := t.TempDir()
	good := "1 0 0 10 2 -1 -1 2 60 -1 1 1 1 -1 1 -1 -1 -1\n"
	bad := "9 6 0 99999999999999999999 2 -1 -1 2 60 -1 1 1 1 -1 1 -1 -1 -1\n"
	trace := filepath.Join(dir, "t.swf")
	require.NoError(t, os.WriteFile(trace, []byte("; MaxNodes: 4\n"+good+good+bad), 0o600))
	jobs := filepath.Join(dir, "jobs.csv")

	code, _, errOut := runCmd(t, "simulate", "--workload", trace, "-q", "--jobs", jobs)
	assert.Equal(t, 2, code, errOut)
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	assert.Len(t, entries, 1, "only the trace: no jobs file, no temporary file")

	require.NoError(t, os.WriteFile(jobs, []byte("an earlier run's\n"), 0o600))
	code, _, errOut = runCmd(t, "simulate", "--workload", trace, "-q", "--jobs", jobs, "--force")
	assert.Equal(t, 2, code, errOut)
	data, err := os.ReadFile(jobs)
	require.NoError(t, err)
	assert.Equal(t, "an earlier run's\n", string(data))
	entries, err = os.ReadDir(dir)
	require.NoError(t, err)
	assert.Len(t, entries, 2, "the trace and the earlier file")

	require.NoError(t, os.WriteFile(trace, []byte("; MaxNodes: 4\n"+good+good), 0o600))
	code, _, errOut = runCmd(t, "simulate", "--workload", trace, "-q", "--jobs", jobs, "--force")
	require.Equal(t, 0, code, errOut)
	data, err = os.ReadFile(jobs)
	require.NoError(t, err)
	assert.Len(t, strings.Split(strings.TrimSpace(string(data)), "\n"), 3, "the header and two jobs")
	st, err := os.Stat(jobs)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o644), st.Mode().Perm())
}

// --svg and --out files are written whole: a regular file through a
// temporary one renamed over it (nothing left beside it), a link to a
// device in place, its error said.
func TestWriteWholeReplacesOrWritesInPlace(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "chart.svg")
	require.NoError(t, os.WriteFile(path, []byte("an earlier chart, longer than the new one\n"), 0o600))
	require.NoError(t, writeWhole(path, []byte("new\n")))
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, "new\n", string(data))
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	assert.Len(t, entries, 1, "no temporary file left")

	if _, err := os.Stat("/dev/full"); err != nil {
		t.Skip("no /dev/full")
	}
	full := filepath.Join(dir, "full.svg")
	require.NoError(t, os.Symlink("/dev/full", full))
	assert.ErrorContains(t, writeWhole(full, []byte("x")), "no space left")
	st, err := os.Lstat(full)
	require.NoError(t, err)
	assert.NotZero(t, st.Mode()&os.ModeSymlink, "the link is written through, not replaced")
}

// A --ledger that is not one whole JSON object is refused with where it
// went wrong: a second ledger pasted after the first was dropped unseen,
// and an empty or cut file said only "EOF".
func TestSimulateLedgerFileMistakes(t *testing.T) {
	dir := t.TempDir()
	ledger := `{"projects": [{"name": "p", "gid": 1, "credit": 100000000}], "default": "p"}`
	for _, tc := range []struct {
		name, body, want string
	}{
		{"a second object after it", ledger + "\n" + ledger, "line 2: more after the ledger's JSON object"},
		{"garbage after it", ledger + " x", "line 1: more after the ledger's JSON object"},
		{"empty", "", "empty; want a JSON object of projects"},
		{"cut short", ledger[:30], "the JSON object ends early"},
		{"a wrong type on line 3", "{\n\"projects\": [],\n\"users\": {\"a\": 5}}", "line 3: json: cannot unmarshal number"},
	} {
		path := filepath.Join(dir, "ledger.json")
		require.NoError(t, os.WriteFile(path, []byte(tc.body), 0o644))
		code, out, errOut := runCmd(t, "simulate", "-q", "--workload", "aucsched:1", "--limit", "3", "--ledger", path)
		assert.Equal(t, 2, code, tc.name)
		assert.Empty(t, out, tc.name)
		assert.Contains(t, errOut, "--ledger "+path+": "+tc.want, tc.name)
	}
	path := filepath.Join(dir, "ledger.json")
	require.NoError(t, os.WriteFile(path, []byte(ledger+"\n\n"), 0o644))
	code, _, errOut := runCmd(t, "simulate", "-q", "--workload", "aucsched:1", "--limit", "3", "--ledger", path)
	assert.Equal(t, 0, code, "blank lines after it are no more: %s", errOut)
}
