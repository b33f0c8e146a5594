package main

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestAuctionGenSolveLP(t *testing.T) {
	code, out, errOut := runCmd(t, "auction", "gen", "--jobs", "12", "--bids", "4", "--seed", "2")
	require.Equal(t, 0, code, errOut)
	path := filepath.Join(t.TempDir(), "w.json")
	require.NoError(t, os.WriteFile(path, []byte(out), 0o644))

	code, out, errOut = runCmd(t, "auction", "solve", "--time-limit", "2s", "--json", path)
	require.Equal(t, 0, code, errOut)
	var got map[string]any
	require.NoError(t, json.Unmarshal([]byte(out), &got), out)
	for _, k := range []string{"objective", "bound", "optimal", "gap", "selection"} {
		assert.Contains(t, got, k)
	}
	assert.GreaterOrEqual(t, got["bound"].(float64)+1e-6, got["objective"].(float64))

	code, out, _ = runCmd(t, "auction", "solve", path)
	assert.Equal(t, 0, code)
	assert.Contains(t, out, "objective")

	code, out, _ = runCmd(t, "auction", "lp", path)
	assert.Equal(t, 0, code)
	assert.True(t, strings.HasPrefix(out, "\\ auction window"), out)
	assert.Contains(t, out, "Binary")
}

func TestAuctionUsageErrors(t *testing.T) {
	for _, args := range [][]string{
		{"auction"},
		{"auction", "nope"},
		{"auction", "solve"},
		{"auction", "solve", "--time-limit", "x", "f.json"},
		{"auction", "solve", "--time-limit", "0s", "f.json"},
		{"auction", "solve", "--time-limit", "-1s", "f.json"},
		{"auction", "solve", "--time-limit", "1s", "--work", "10", "f.json"},
		{"auction", "solve", "/does/not/exist.json"},
		{"auction", "gen", "--jobs", "0"},
		{"auction", "lp"},
	} {
		code, out, errOut := runCmd(t, args...)
		assert.Equal(t, 2, code, "%v", args)
		assert.Empty(t, out, "%v: usage errors go to stderr", args)
		assert.NotEmpty(t, errOut, "%v", args)
	}
	bad := filepath.Join(t.TempDir(), "bad.json")
	require.NoError(t, os.WriteFile(bad, []byte(`{"nodes":[{"cpus":1,"gpus":0}],"jobs":[{"id":1,"priority":1,"bids":[{"uses":[[3,1,0]],"cost":0}]}]}`), 0o644))
	code, _, errOut := runCmd(t, "auction", "solve", bad)
	assert.Equal(t, 2, code)
	assert.Contains(t, errOut, "jobs[0].bids[0].uses[0]: unknown node 3")
}

// The auction row of Table 4: --compare accepts auction beside fcfs and
// backfill, on a GPU-range workload too, and every job starts.
func TestSimulateCompareWithAuction(t *testing.T) {
	rows := simulateRows(t, "--workload", "aucsched:6'", "--limit", "15", "--compare", "fcfs,backfill,auction")
	require.Len(t, rows, 3)
	assert.Equal(t, []string{"FCFS", "FCFS", "AUCTION"}, []string{rows[0].Policy, rows[1].Policy, rows[2].Policy})
	assert.Equal(t, "none", rows[2].Backfill, "the auction decides the whole window; no backfill pass after it")
	for _, r := range rows {
		assert.Equal(t, 15, r.Started, "%s: every job starts", r.Policy)
		assert.True(t, r.LevelKnown, "%s: the seed-001 system has switches", r.Policy)
	}
}

// simulateRows runs simulate with --json and reads its rows.
func simulateRows(t *testing.T, args ...string) []row {
	t.Helper()
	code, out, errOut := runCmd(t, append(append([]string{"simulate"}, args...), "--json")...)
	require.Equal(t, 0, code, errOut)
	var rows []row
	require.NoError(t, json.Unmarshal([]byte(out), &rows), out)
	return rows
}

// --work N is a work budget: the answer is byte-identical from run to run
// (and from machine to machine: no clock is read).
func TestAuctionSolveWork(t *testing.T) {
	code, out, errOut := runCmd(t, "auction", "gen", "--jobs", "30", "--bids", "8", "--seed", "5")
	require.Equal(t, 0, code, errOut)
	path := filepath.Join(t.TempDir(), "w.json")
	require.NoError(t, os.WriteFile(path, []byte(out), 0o644))
	var first string
	for k := range 3 {
		code, out, errOut := runCmd(t, "auction", "solve", "--work", "2000", "--json", path)
		require.Equal(t, 0, code, errOut)
		if k == 0 {
			first = out
		}
		assert.Equal(t, first, out, "run %d", k)
	}
	var got map[string]any
	require.NoError(t, json.Unmarshal([]byte(first), &got))
	assert.LessOrEqual(t, got["nodes"].(float64), 2000.0)
}

func TestAuctionSolveNeedsAlpha(t *testing.T) {
	path := filepath.Join(t.TempDir(), "w.json")
	require.NoError(t, os.WriteFile(path, []byte(`{"nodes":[{"cpus":1,"gpus":0}],"jobs":[{"id":1,"priority":1,"bids":[{"uses":[[0,1,0]],"cost":1}]}]}`), 0o644))
	code, out, errOut := runCmd(t, "auction", "solve", path)
	assert.Equal(t, 2, code)
	assert.Empty(t, out)
	assert.Contains(t, errOut, "alpha: missing")
}

// "-" reads the window from standard input, plain or gzipped, and gives
// what the file gives. The test swaps os.Stdin, so it must not be parallel.
func TestAuctionSolveReadsStandardInput(t *testing.T) {
	code, window, errOut := runCmd(t, "auction", "gen", "--jobs", "20", "--bids", "5", "--seed", "3")
	require.Equal(t, 0, code, errOut)
	dir := t.TempDir()
	path := filepath.Join(dir, "w.json")
	require.NoError(t, os.WriteFile(path, []byte(window), 0o644))
	var zipped bytes.Buffer
	zw := gzip.NewWriter(&zipped)
	_, err := zw.Write([]byte(window))
	require.NoError(t, err)
	require.NoError(t, zw.Close())

	code, want, errOut := runCmd(t, "auction", "solve", "--work", "1000", "--json", path)
	require.Equal(t, 0, code, errOut)
	for name, data := range map[string][]byte{"plain": []byte(window), "gzip": zipped.Bytes()} {
		in := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(in, data, 0o644))
		f, err := os.Open(in)
		require.NoError(t, err)
		saved := os.Stdin
		os.Stdin = f
		code, got, errOut := runCmd(t, "auction", "solve", "--work", "1000", "--json", "-")
		os.Stdin = saved
		f.Close()
		require.Equal(t, 0, code, "%s: %s", name, errOut)
		assert.Equal(t, want, got, name)
	}
}
