package main

import (
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
	require.NoError(t, os.WriteFile(bad, []byte(`{"nodes":[{"cpus":1,"gpus":0}],"jobs":[{"id":1,"bids":[{"uses":[[3,1,0]]}]}]}`), 0o644))
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
