package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// --limit N is the first N jobs kept, in the trace's line order, for a
// standard trace (read as the replay goes) and an extended one (read
// whole) alike: the same jobs replayed and the same jobs left out.
func TestSimulateLimitOneMeaning(t *testing.T) {
	dir := t.TempDir()
	// line 2: unknown run time; line 4: cancelled; line 5 submitted
	// before line 3; line 7: unknown run time
	jobs := [][3]int{{0, 100, 1}, {5, -1, 1}, {20, 100, 1}, {22, 0, 5}, {10, 100, 1}, {30, 100, 1}, {40, -1, 0}, {50, 100, 1}}
	std, ext := "; MaxNodes: 4\n; MaxProcs: 4\n", "; MaxNodes: 4\n; MaxProcs: 4\n"
	for i, j := range jobs {
		std += fmt.Sprintf("%d %d -1 %d 1 -1 -1 1 600 -1 %d 1 1 -1 1 -1 -1 -1\n", i+1, j[0], j[1], j[2])
		ext += fmt.Sprintf("%d %d -1 %d 1 -1 -1 1 600 -1 %d 1 1 -1 1 1 1 1 {1} q 1:ppn=1\n", i+1, j[0], j[1], j[2])
	}
	traces := map[string]string{"standard": filepath.Join(dir, "std.swf"), "extended": filepath.Join(dir, "ext.swf")}
	require.NoError(t, os.WriteFile(traces["standard"], []byte(std), 0o644))
	require.NoError(t, os.WriteFile(traces["extended"], []byte(ext), 0o644))
	for _, tc := range []struct {
		limit      string
		jobs, left string
	}{
		{"0", "swf1 swf5 swf3 swf6 swf8", "3 trace jobs left out: 2 unknown run time; 1 cancelled before running"},
		{"1", "swf1", ""},
		{"2", "swf1 swf3", "1 trace jobs left out: 1 unknown run time"},
		{"3", "swf1 swf5 swf3", "2 trace jobs left out: 1 cancelled before running; 1 unknown run time"},
		{"4", "swf1 swf5 swf3 swf6", "2 trace jobs left out: 1 cancelled before running; 1 unknown run time"},
		{"6", "swf1 swf5 swf3 swf6 swf8", "3 trace jobs left out: 2 unknown run time; 1 cancelled before running"},
	} {
		for kind, path := range traces {
			jobsFile := filepath.Join(dir, kind+"-"+tc.limit+".csv")
			code, out, errOut := runCmd(t, "simulate", "--workload", path, "-q", "--limit", tc.limit, "--jobs", jobsFile)
			require.Equal(t, 0, code, errOut)
			data, err := os.ReadFile(jobsFile)
			require.NoError(t, err)
			var names []string
			for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n")[1:] {
				names = append(names, strings.Split(line, ",")[1])
			}
			assert.Equal(t, tc.jobs, strings.Join(names, " "), "%s trace, --limit %s", kind, tc.limit)
			if tc.left == "" {
				assert.NotContains(t, out, "left out", "%s trace, --limit %s", kind, tc.limit)
			} else {
				assert.Contains(t, out, tc.left, "%s trace, --limit %s", kind, tc.limit)
			}
		}
	}
}

// The --interval check measures the submissions of the jobs --limit
// keeps, not of the trace's first lines.
func TestTraceSpanCountsTheJobsKept(t *testing.T) {
	path := filepath.Join(t.TempDir(), "t.swf")
	trace := "; MaxNodes: 4\n1 0 -1 100 1 -1 -1 1 600 -1 1 1 1 -1 1 -1 -1 -1\n" +
		"2 5 -1 -1 1 -1 -1 1 600 -1 1 1 1 -1 1 -1 -1 -1\n" + // unknown run time: left out
		"3 20 -1 100 1 -1 -1 1 600 -1 1 1 1 -1 1 -1 -1 -1\n"
	require.NoError(t, os.WriteFile(path, []byte(trace), 0o644))
	assert.Equal(t, 20*time.Second, traceSpan(path, 2))
	assert.Equal(t, 20*time.Second, traceSpan(path, 0))
	assert.Equal(t, time.Duration(0), traceSpan(path, 1))
}

// A comparison names a trace's jobs left out once, not once per policy.
func TestSimulateTraceNoteOnce(t *testing.T) {
	path := filepath.Join(t.TempDir(), "t.swf")
	trace := "; MaxNodes: 4\n1 0 -1 100 1 -1 -1 1 600 -1 1 1 1 -1 1 -1 -1 -1\n" +
		"2 5 -1 -1 1 -1 -1 1 600 -1 1 1 1 -1 1 -1 -1 -1\n"
	require.NoError(t, os.WriteFile(path, []byte(trace), 0o644))
	code, out, errOut := runCmd(t, "simulate", "--workload", path, "--compare", "fcfs,easy,sjf")
	require.Equal(t, 0, code, errOut)
	assert.Equal(t, 1, strings.Count(out, "t: 1 trace jobs left out: 1 unknown run time\n"), out)
}

// Progress names a trace's runs as its rows do, not by its path (the
// status line holds about two paths).
func TestSimulateProgressNamesTracesShort(t *testing.T) {
	path := filepath.Join(t.TempDir(), "trace.swf")
	require.NoError(t, os.WriteFile(path, []byte("; MaxNodes: 4\n1 0 -1 100 1 -1 -1 1 600 -1 1 1 1 -1 1 -1 -1 -1\n"), 0o644))
	code, _, errOut := runCmd(t, "simulate", "--workload", path, "--compare", "fcfs,easy", "--progress")
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, errOut, "] trace fcfs+easy: utilization")
	assert.NotContains(t, errOut, path)
}

// --progress reports a single run too when stderr is not a terminal (a
// batch job's log): there is no bar to show it.
func TestSimulateProgressOfOneRun(t *testing.T) {
	code, _, errOut := runCmd(t, "simulate", "--workload", "aucsched:1", "--limit", "10", "--progress")
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, errOut, "[1/1] aucsched:1 fcfs: utilization")
}

// An output file that is one of the run's inputs is refused, even with
// --force, and the input is left as it was: a --jobs file written over
// the trace it replays would truncate it under the reader.
func TestSimulateRefusesToWriteOverAnInput(t *testing.T) {
	dir := t.TempDir()
	trace := filepath.Join(dir, "t.swf")
	machines := filepath.Join(dir, "t.machines")
	body := "; MaxNodes: 4\n; MaxProcs: 4\n1 0 -1 100 1 -1 -1 1 600 -1 1 1 1 -1 1 -1 -1 -1\n"
	require.NoError(t, os.WriteFile(trace, []byte(body), 0o644))
	require.NoError(t, os.WriteFile(machines, []byte("0 n 4 1 1 -1\n"), 0o644))
	for _, tc := range []struct {
		name  string
		flags []string
	}{
		{"--jobs onto the trace", []string{"--jobs", trace, "--force"}},
		{"--jobs onto the trace by another path", []string{"--jobs", filepath.Join(dir, ".", "t.swf"), "--force"}},
		{"--svg onto the trace", []string{"--svg", trace, "--force"}},
		{"--svg onto the machines file", []string{"--machines", machines, "--svg", machines, "--force"}},
		{"--jobs onto the trace without --force", []string{"--jobs", trace}},
	} {
		args := append([]string{"simulate", "--workload", trace, "-q"}, tc.flags...)
		code, out, errOut := runCmd(t, args...)
		assert.Equal(t, 2, code, tc.name)
		assert.Empty(t, out, tc.name)
		assert.Contains(t, errOut, "an input of the run", tc.name)
		data, err := os.ReadFile(trace)
		require.NoError(t, err)
		assert.Equal(t, body, string(data), tc.name)
	}
}

// Two runs that would write one --out chart are refused before any run,
// not after them all with nothing written.
func TestSimulateOutNameClashBeforeRunning(t *testing.T) {
	dir := t.TempDir()
	body := "; MaxNodes: 4\n; MaxProcs: 4\n1 0 -1 100 1 -1 -1 1 600 -1 1 1 1 -1 1 -1 -1 -1\n"
	for _, sub := range []string{"a", "b"} {
		require.NoError(t, os.Mkdir(filepath.Join(dir, sub), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(dir, sub, "t.swf"), []byte(body), 0o644))
	}
	out := filepath.Join(dir, "out")
	for _, tc := range []struct {
		name  string
		flags []string
	}{
		{"one trace name in two folders", []string{"--workload", filepath.Join(dir, "a", "t.swf") + "," + filepath.Join(dir, "b", "t.swf")}},
		{"a --compare item twice", []string{"--workload", "aucsched:1", "--compare", "fcfs,easy,FCFS"}},
		{"a backfill mode and its long form", []string{"--workload", "aucsched:1", "--compare", "easy,fcfs+easy"}},
	} {
		code, stdout, errOut := runCmd(t, append([]string{"simulate", "-q", "--out", out}, tc.flags...)...)
		assert.Equal(t, 2, code, tc.name)
		assert.Empty(t, stdout, "%s: no run before the refusal", tc.name)
		assert.Contains(t, errOut, "two runs would write", tc.name)
	}
}

// --jobs, --svg and --out naming one file are refused before the run:
// the run wrote --jobs, then refused --svg over it (exit 2 after the
// run), or with --force replaced the records by the chart.
func TestSimulateOutputsOfOneName(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	require.NoError(t, os.Mkdir(out, 0o755))
	for _, tc := range []struct {
		name  string
		flags []string
	}{
		{"--jobs and --svg", []string{"--jobs", filepath.Join(dir, "x.swf"), "--svg", filepath.Join(dir, "x.swf")}},
		{"--jobs and --svg by another path", []string{"--jobs", filepath.Join(dir, ".", "x.swf"), "--svg", filepath.Join(dir, "x.swf"), "--force"}},
		{"--jobs and --out's results.csv", []string{"--jobs", filepath.Join(out, "results.csv"), "--out", out}},
	} {
		code, stdout, errOut := runCmd(t, append([]string{"simulate", "-q", "--workload", "aucsched:1", "--limit", "5"}, tc.flags...)...)
		assert.Equal(t, 2, code, tc.name)
		assert.Empty(t, stdout, "%s: refused before the run", tc.name)
		assert.Contains(t, errOut, "written twice", tc.name)
		entries, err := os.ReadDir(out)
		require.NoError(t, err)
		assert.Empty(t, entries, tc.name)
		_, err = os.Stat(filepath.Join(dir, "x.swf"))
		assert.ErrorIs(t, err, os.ErrNotExist, tc.name)
	}
}
