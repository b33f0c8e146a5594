package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"text/tabwriter"

	"github.com/hpcsched/hpcsched/internal/shareddata"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// gridConfs writes one slurm.conf per size (nodes of 16 CPUs).
func gridConfs(t *testing.T, sizes ...int) string {
	dir := t.TempDir()
	var paths []string
	for i, n := range sizes {
		name := string(rune('a' + i))
		p := filepath.Join(dir, name+".conf")
		conf := fmt.Sprintf("NodeName=%s[1-%d] CPUs=16\nPartitionName=batch Nodes=ALL Default=YES\n", name, n)
		require.NoError(t, os.WriteFile(p, []byte(conf), 0o644))
		paths = append(paths, p)
	}
	return strings.Join(paths, ",")
}

func TestSimulateGridJSON(t *testing.T) {
	code, out, errs := runCmd(t, "simulate", "--grid", gridConfs(t, 8, 16, 32), "--workload", "aucsched:1", "--limit", "60", "--json")
	require.Equal(t, 0, code, errs)
	var rep map[string]any
	require.NoError(t, json.Unmarshal([]byte(out), &rep))
	require.Equal(t, []any{"a", "b", "c"}, rep["members"])
	for _, mode := range []string{"grid", "pinned"} {
		side := rep[mode].(map[string]any)
		require.EqualValues(t, 60, side["jobs"], mode)
		require.Contains(t, side, "completed")
		require.Contains(t, side, "mean_wait_s")
		require.Contains(t, side, "per_member")
	}
	g, p := rep["grid"].(map[string]any), rep["pinned"].(map[string]any)
	if g["completed"] != p["completed"] {
		require.NotEmpty(t, rep["note"], "a difference in completed jobs is explained")
	}
	require.EqualValues(t, 20, p["per_member"].(map[string]any)["a"], "round robin")
}

func TestSimulateGridTableAndErrors(t *testing.T) {
	code, out, errs := runCmd(t, "simulate", "--grid="+gridConfs(t, 4, 4), "--workload", "aucsched:1", "--limit", "20")
	require.Equal(t, 0, code, errs)
	require.Contains(t, out, "Mode")
	require.Contains(t, out, "grid ")
	require.Contains(t, out, "pinned ")

	code, _, errs = runCmd(t, "simulate", "--grid", "")
	require.Equal(t, 2, code)
	require.Contains(t, errs, "--grid needs")
	code, _, _ = runCmd(t, "simulate", "--grid", "/nonexistent/x.conf")
	require.Equal(t, 2, code)
	code, _, errs = runCmd(t, "simulate", "--grid", gridConfs(t, 4), "--pin", "bogus")
	require.Equal(t, 2, code, errs)
}

// The COARE trace's four partitions pin its jobs in the pinned run.
func TestSimulateGridSWFPartitions(t *testing.T) {
	trace := filepath.Join(shareddata.Dir(), "traces", "DOST-ASTI_COARE-Saliksik-2020-cln.swf")
	if _, err := os.Stat(trace); shareddata.Dir() == "" || err != nil {
		t.Skip("shared data absent: ", trace)
	}
	code, out, errs := runCmd(t, "simulate", "--grid", gridConfs(t, 24, 24, 24, 24), "--workload", trace, "--limit", "150", "--json")
	require.Equal(t, 0, code, errs)
	var rep gridReport
	require.NoError(t, json.Unmarshal([]byte(out), &rep))
	require.Equal(t, "partition", rep.Pin)
	require.Equal(t, 150, rep.Grid.Jobs)
	require.Equal(t, rep.Grid.Jobs, rep.Pinned.Jobs)
}

// The grid's table, printed a line per replay as each ends, is what
// text/tabwriter makes of the whole table when the mean waits and moves
// fit their headings.
func TestGridTableStreamsTabwriterLines(t *testing.T) {
	rep := gridReport{Workload: "w", Members: []string{"a", "b"}, Pin: "roundrobin"}
	for _, jobs := range []int{7, 12000, 1234567} {
		sides := []gridSide{
			{Jobs: jobs, Completed: jobs, MeanWait: 1954, Moves: 3, PerMember: map[string]int{"b": 2, "a": 1}},
			{Jobs: jobs, Completed: jobs / 2, Rejected: jobs / 3, Stuck: jobs % 7, MeanWait: 12, PerMember: map[string]int{"a": 3}},
		}
		var got strings.Builder
		table := newGridTable(&got, rep, jobs)
		require.NoError(t, table.add("grid", sides[0]))
		lines := strings.Count(got.String(), "\n")
		require.NoError(t, table.add("pinned", sides[1]))
		assert.Equal(t, 3, lines, "title, heading and the grid's line before the pinned replay")

		var want strings.Builder
		fmt.Fprintf(&want, "Workload w on a, b (pinned run: roundrobin)\n")
		tw := tabwriter.NewWriter(&want, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, strings.Join(gridHead, "\t"))
		for k, s := range sides {
			fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\t%.0f\t%d\t%s\n", []string{"grid", "pinned"}[k], s.Jobs, s.Completed,
				s.Rejected, s.Stuck, s.MeanWait, s.Moves, map[int]string{0: "a=1 b=2", 1: "a=3"}[k])
		}
		tw.Flush()
		assert.Equal(t, want.String(), got.String(), "%d jobs", jobs)
	}
}

// -j 2 replays the grid and the pinned run at once and prints the same
// bytes as -j 1 (table and JSON).
func TestSimulateGridParallelSameOutput(t *testing.T) {
	confs := gridConfs(t, 4, 8)
	for _, format := range [][]string{nil, {"--json"}} {
		var outs []string
		for _, j := range []string{"1", "2"} {
			args := append([]string{"simulate", "--grid", confs, "--workload", "aucsched:1", "--limit", "40", "-j", j}, format...)
			code, out, errOut := runCmd(t, args...)
			require.Equal(t, 0, code, errOut)
			outs = append(outs, out)
		}
		assert.Equal(t, outs[0], outs[1], "%v", format)
		assert.Contains(t, outs[0], "pinned")
	}
	code, _, _ := runCmd(t, "simulate", "--grid", confs, "-j", "0")
	assert.Equal(t, 2, code)
}

// The grid's --limit takes a trace's jobs as simulate's does: the first
// N kept, in line order.
func TestGridLimitAsSimulate(t *testing.T) {
	members, err := gridMembers(gridConfs(t, 4))
	require.NoError(t, err)
	path := filepath.Join(t.TempDir(), "t.swf")
	require.NoError(t, os.WriteFile(path, []byte("; MaxNodes: 4\n"+
		"1 0 -1 100 1 -1 -1 1 600 -1 1 1 1 -1 1 -1 -1 -1\n"+
		"2 5 -1 -1 1 -1 -1 1 600 -1 1 1 1 -1 1 -1 -1 -1\n"+ // unknown run time: left out
		"3 20 -1 100 1 -1 -1 1 600 -1 1 1 1 -1 1 -1 -1 -1\n"+
		"4 10 -1 100 1 -1 -1 1 600 -1 1 1 1 -1 1 -1 -1 -1\n"), 0o644))
	w, _, _, err := gridWorkload(path, members, 1, "auto", 2)
	require.NoError(t, err)
	var names []string
	for _, j := range w.Jobs {
		names = append(names, j.Spec.Name)
	}
	assert.Equal(t, []string{"swf1", "swf3"}, names)
}

// Grid flags a hurried user gets wrong are refused, not taken as
// something else: a period under a second ran with one of a second, a
// negative threshold as it was, two workloads as one missing file, and a
// member of no partition was a member no job could use.
func TestSimulateGridRefusesOddFlags(t *testing.T) {
	confs := gridConfs(t, 4, 4)
	nodesOnly := filepath.Join(t.TempDir(), "nodes.conf")
	require.NoError(t, os.WriteFile(nodesOnly, []byte("NodeName=z[1-4] CPUs=4\n"), 0o644))
	for _, tc := range []struct {
		flags []string
		want  string
	}{
		{[]string{"--interval", "-5m"}, "--interval -5m0s: want 0 (a minute) or at least 1s"},
		{[]string{"--interval", "1ns"}, "--interval 1ns: want 0 (a minute) or at least 1s"},
		{[]string{"--threshold", "-5m"}, "--threshold -5m0s: want 0 (5 minutes) or more"},
		{[]string{"--workload", "a.swf,b.swf"}, "--workload a.swf,b.swf: a grid replays one workload"},
		{[]string{"--grid", confs + "," + nodesOnly}, "simulate --grid: " + nodesOnly + " defines no node or no partition"},
		{[]string{"--workload", "/nonexistent/t.swf"}, "simulate --grid: /nonexistent/t.swf: no such file or directory"},
		{[]string{"--workload", os.TempDir()}, "simulate --grid: " + os.TempDir() + ": swf: line 1:"},
	} {
		args := append([]string{"simulate", "--limit", "5", "-q"}, tc.flags...)
		if !slices.Contains(tc.flags, "--grid") {
			args = append(args, "--grid", confs)
		}
		code, out, errOut := runCmd(t, args...)
		assert.Equal(t, 2, code, tc.flags)
		assert.Empty(t, out, tc.flags)
		assert.Contains(t, errOut, tc.want, tc.flags)
	}
}
