package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hpcsched/hpcsched/sim"
)

// A failed run does not cost the others' rows: every run runs, the rows
// of those that ended are printed in the table, CSV and JSON alike, with
// -j 1 and -j 3 the same bytes, and each failed run is named on stderr.
// With --seeds, a failed seed leaves its whole row out.
func TestSimulateFailedRunKeepsTheOtherRows(t *testing.T) {
	for _, format := range []string{"table", "csv", "json"} {
		var outs, errs []string
		for _, j := range []string{"1", "3"} {
			args := []string{"--workload", "aucsched:1,2,3", "--compare", "fcfs,easy", "--seeds", "1-2", "-j", j}
			if format != "table" {
				args = append(args, "--"+format)
			}
			f, err := parseSimFlags(args, io.Discard)
			require.NoError(t, err)
			f.runner = func(cl cell, _ func(int, int, time.Duration)) (*sim.Result, row, error) {
				if cl.group == 1 || (cl.group == 4 && cl.seed == 2) {
					return nil, row{}, fmt.Errorf("run %d seed %d failed", cl.group, cl.seed)
				}
				r := fakeRow(cl)
				r.Seed = cl.seed
				return &sim.Result{}, r, nil
			}
			var out, errOut bytes.Buffer
			err = f.simulate(&out, &errOut)
			require.Error(t, err)
			assert.ErrorAs(t, err, new(runsFailed))
			assert.Contains(t, err.Error(), "3 of 12 runs failed")
			outs, errs = append(outs, out.String()), append(errs, errOut.String())
		}
		assert.Equal(t, outs[0], outs[1], "%s: -j 3 prints what -j 1 does", format)
		assert.Equal(t, errs[0], errs[1], "%s: the failures are named in run order", format)
		assert.Equal(t, "simulate: failed: aucsched:1 fcfs+easy seed 1: run 1 seed 1 failed\n"+
			"simulate: failed: aucsched:1 fcfs+easy seed 2: run 1 seed 2 failed\n"+
			"simulate: failed: aucsched:3 fcfs seed 2: run 4 seed 2 failed\n", errs[0], format)
		switch format {
		case "table", "csv":
			assert.Equal(t, 5, strings.Count(outs[0], "\n"), "%s: a heading and 4 of 6 rows:\n%s", format, outs[0])
		case "json":
			var rows []row
			require.NoError(t, json.Unmarshal([]byte(outs[0]), &rows))
			assert.Len(t, rows, 4)
		}
	}
}

// When every run fails nothing is printed and the exit code is 2, as for
// a single run; a single run's error is its own.
func TestSimulateEveryRunFailed(t *testing.T) {
	for _, spec := range []string{"aucsched:1,2", "aucsched:1"} {
		f, err := parseSimFlags([]string{"--workload", spec, "--json"}, io.Discard)
		require.NoError(t, err)
		f.runner = func(cl cell, _ func(int, int, time.Duration)) (*sim.Result, row, error) {
			return nil, row{}, fmt.Errorf("run %d failed", cl.group)
		}
		var out, errOut bytes.Buffer
		err = f.simulate(&out, &errOut)
		require.Error(t, err)
		assert.NotErrorAs(t, err, new(runsFailed), spec)
		assert.Empty(t, out.String(), spec)
		if spec == "aucsched:1" {
			assert.EqualError(t, err, "run 0 failed")
			assert.Empty(t, errOut.String())
		}
	}
}

// Real runs, one trace failing half way: the other traces' rows, --out
// files and --jobs files are written as without it, the failed runs'
// --jobs files are not, -j 2 writes what -j 1 does, and the exit code is
// 1 with the failed runs named.
func TestSimulateTraceFailingHalfWayKeepsTheOthers(t *testing.T) {
	dir := t.TempDir()
	good := "; MaxNodes: 4\n; MaxProcs: 4\n"
	for i := 1; i <= 6; i++ {
		good += fmt.Sprintf("%d %d -1 %d 2 -1 -1 2 600 -1 1 1 1 -1 1 -1 -1 -1\n", i, 10*i, 100+50*i)
	}
	bad := good + "9 80 0 99999999999999999999 2 -1 -1 2 60 -1 1 1 1 -1 1 -1 -1 -1\n"
	for name, body := range map[string]string{"a.swf": good, "b.swf": bad, "c.swf": good} {
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644))
	}
	wl := strings.Join([]string{filepath.Join(dir, "a.swf"), filepath.Join(dir, "b.swf"), filepath.Join(dir, "c.swf")}, ",")
	var outs []string
	var files [][]string
	for _, j := range []string{"1", "2"} {
		sub := filepath.Join(dir, "j"+j)
		require.NoError(t, os.Mkdir(sub, 0o755))
		code, out, errOut := runCmd(t, "simulate", "--workload", wl, "--compare", "fcfs,easy", "-j", j, "-q",
			"--out", filepath.Join(sub, "out"), "--jobs", filepath.Join(sub, "jobs.csv"))
		assert.Equal(t, 1, code, errOut)
		assert.Contains(t, errOut, "simulate: failed: "+filepath.Join(dir, "b.swf")+" fcfs: "+filepath.Join(dir, "b.swf")+": swf: line 9:")
		assert.Contains(t, errOut, "simulate: failed: "+filepath.Join(dir, "b.swf")+" fcfs+easy: ")
		assert.Contains(t, errOut, "hpcsched: simulate: 2 of 6 runs failed")
		assert.Equal(t, 5, strings.Count(out, "\n"), out)
		assert.NotContains(t, out, "b  ")
		outs = append(outs, out)
		var names []string
		for _, pattern := range []string{"jobs-*.csv", "out/*"} {
			m, err := filepath.Glob(filepath.Join(sub, pattern))
			require.NoError(t, err)
			for _, p := range m {
				data, err := os.ReadFile(p)
				require.NoError(t, err)
				names = append(names, filepath.Base(p)+"\n"+string(data))
			}
		}
		files = append(files, names)
	}
	assert.Equal(t, outs[0], outs[1])
	assert.Equal(t, files[0], files[1], "-j 2 writes the same files")
	var names []string
	for _, f := range files[0] {
		names = append(names, strings.SplitN(f, "\n", 2)[0])
	}
	assert.Equal(t, []string{"jobs-a-fcfs-easy.csv", "jobs-a-fcfs.csv", "jobs-c-fcfs-easy.csv", "jobs-c-fcfs.csv",
		"a-fcfs-easy.svg", "a-fcfs.svg", "c-fcfs-easy.svg", "c-fcfs.svg", "comparison.svg", "results.csv", "results.json"}, names)
}
