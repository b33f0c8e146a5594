package main

import (
	"encoding/csv"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hpcsched/hpcsched/internal/shareddata"
	"github.com/hpcsched/hpcsched/sim"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestSimulate(t *testing.T) {
	code, out, errOut := runCmd(t, "simulate", "--workload", "aucsched:1", "--limit", "60", "--compare", "fcfs,backfill,easy", "--json")
	require.Equal(t, 0, code, errOut)
	var rows []row
	require.NoError(t, json.Unmarshal([]byte(out), &rows))
	require.Len(t, rows, 3)
	assert.Equal(t, []string{"none", "conservative", "easy"}, []string{rows[0].Backfill, rows[1].Backfill, rows[2].Backfill})
	for _, r := range rows {
		assert.Equal(t, 60, r.Jobs)
		assert.Equal(t, 60, r.Started)
		assert.True(t, r.LevelKnown)
		assert.Greater(t, r.Utilization, 0.0)
		assert.Equal(t, "the AUCSCHED3 paper's 1024-node tree", r.Cluster)
	}
	svg := filepath.Join(t.TempDir(), "run.svg")
	code, out, _ = runCmd(t, "simulate", "--workload", "aucsched:5'", "--limit", "40", "--backfill", "--svg", svg, "--csv")
	require.Equal(t, 0, code)
	assert.True(t, strings.HasPrefix(out, "workload,cluster,policy,backfill"))
	assert.Contains(t, out, ",conservative,")
	data, err := os.ReadFile(svg)
	require.NoError(t, err)
	assert.Contains(t, string(data), "<svg")
	code, _, errOut = runCmd(t, "simulate", "--workload", "aucsched:5'", "--limit", "40", "--svg", svg)
	assert.Equal(t, 2, code, "an existing file is not overwritten")
	assert.Contains(t, errOut, "exists")
	code, out, _ = runCmd(t, "simulate", "--workload", "aucsched:2", "--limit", "30", "--policy", "sjf", "--backfill=easy")
	require.Equal(t, 0, code)
	assert.Contains(t, out, "Avg. lowest level common switch")
	assert.Contains(t, out, "SJF+EASY")
	for _, bad := range [][]string{{"--workload", "aucsched:9"}, {"--policy", "random"}, {"--backfill=sometimes"},
		{"--interval", "1ns"}, {"--interval", "-1s"}, {"--depth", "-2"}, {"--limit", "-1"}, {"--compare", "fcfs,maybe"},
		{"--estimate", "psychic"}, {"--procs", "some"}} {
		code, _, errOut = runCmd(t, append([]string{"simulate"}, bad...)...)
		assert.Equal(t, 2, code, "%v: %s", bad, errOut)
	}
}

func TestWorkloadsExpandIDs(t *testing.T) {
	assert.Equal(t, []string{"aucsched:1", "aucsched:2", "aucsched:5'", "x.swf", "aucsched:3"},
		workloads("aucsched:1,2,5', x.swf,aucsched:3"))
}

// --out writes one chart per run, a comparison, results.json and .csv,
// and refuses to overwrite them.
func TestSimulateOutDir(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	args := []string{"simulate", "--workload", "aucsched:1,3", "--limit", "30", "--compare", "fcfs,backfill", "--out", dir}
	code, out, errOut := runCmd(t, args...)
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, out, "FCFS+backfill")
	var names []string
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	for _, e := range entries {
		names = append(names, e.Name())
		info, err := e.Info()
		require.NoError(t, err)
		assert.Less(t, info.Size(), int64(300<<10), e.Name())
	}
	assert.ElementsMatch(t, []string{"aucsched-1-fcfs.svg", "aucsched-1-fcfs-backfill.svg", "aucsched-3-fcfs.svg",
		"aucsched-3-fcfs-backfill.svg", "comparison.svg", "results.json", "results.csv"}, names)
	for _, n := range names {
		if strings.HasSuffix(n, ".svg") {
			f, err := os.Open(filepath.Join(dir, n))
			require.NoError(t, err)
			assert.NoError(t, xmlWellFormed(f), n)
			f.Close()
		}
	}
	code, _, errOut = runCmd(t, args...)
	assert.Equal(t, 2, code)
	assert.Contains(t, errOut, "--force")
	code, _, errOut = runCmd(t, append(args, "--force")...)
	assert.Equal(t, 0, code, errOut)
}

func xmlWellFormed(r io.Reader) error {
	d := xml.NewDecoder(r)
	for {
		if _, err := d.Token(); err == io.EOF {
			return nil
		} else if err != nil {
			return err
		}
	}
}

// wagap replays as shipped: node properties come from the trace, no job
// is rejected, and the jobs left out are explained.
func TestSimulateWagapAsShipped(t *testing.T) {
	dir := shareddata.Require(t, "traces")
	code, out, errOut := runCmd(t, "simulate", "--workload", filepath.Join(dir, "Alea-metacentrum-wagap-2013.swf.gz"),
		"--machines", filepath.Join(dir, "Alea-metacentrum-wagap-2013.swf.machines"), "--limit", "2000", "--backfill=easy", "--json")
	require.Equal(t, 0, code, errOut)
	var rows []row
	require.NoError(t, json.Unmarshal([]byte(out), &rows))
	assert.Equal(t, 2000, rows[0].Jobs)
	assert.Zero(t, rows[0].Rejected, "%v", rows[0].Unrunnable)
	assert.Zero(t, rows[0].Stuck)
	// the trace's two jobs of unknown run time are on lines after the
	// 2000th job's: --limit reads no further, so none is counted
	assert.NotContains(t, errOut, "trace jobs left out")
}

// Jobs that can never run are counted per reason and explained.
func TestSimulateExplainsUnrunnableJobs(t *testing.T) {
	dir := t.TempDir()
	trace := filepath.Join(dir, "t.swf")
	require.NoError(t, os.WriteFile(trace, []byte("; MaxNodes: 4\n; MaxProcs: 4\n"+
		"1 0 0 10 1 -1 -1 1 60 -1 1 1 1 -1 -1 1 -1 -1\n"+
		"2 0 0 10 9 -1 -1 9 60 -1 1 1 1 -1 -1 1 -1 -1\n"+
		"3 0 0 10 8 -1 -1 8 60 -1 1 1 1 -1 -1 1 -1 -1\n"), 0o644))
	code, out, errOut := runCmd(t, "simulate", "--workload", trace)
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, out, "2 jobs can never run on 4 nodes of 1 CPU (trace header): 2 more CPUs than the cluster has")
}

func TestSimulateAuctionPolicy(t *testing.T) {
	code, out, errOut := runCmd(t, "simulate", "--workload", "aucsched:5", "--limit", "12", "--policy", "auction", "--json")
	require.Equal(t, 0, code, errOut)
	var rows []row
	require.NoError(t, json.Unmarshal([]byte(out), &rows))
	require.Len(t, rows, 1)
	assert.Equal(t, "AUCTION", rows[0].Policy)
	assert.Equal(t, 12, rows[0].Started, "every job started on its winning bid")
	_, out2, _ := runCmd(t, "simulate", "--workload", "aucsched:5", "--limit", "12", "--policy", "auction", "--json")
	var rows2 []row
	require.NoError(t, json.Unmarshal([]byte(out2), &rows2))
	assert.Equal(t, out, out2, "a work budget, not a time budget: the same replay decides the same")
}

// simulate --ledger: every start pays, a short balance fails the job, and
// what each project used plus what it has left is what it was granted.
func TestSimulateWithLedger(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ledger.json")
	require.NoError(t, os.WriteFile(path, []byte(`{"projects": [{"name": "physics", "gid": 1001, "credit": 200000},
		{"name": "chemistry", "gid": 1002, "credit": 300000}], "default": "physics"}`), 0o644))
	code, out, errOut := runCmd(t, "simulate", "--workload", "aucsched:5", "--limit", "60", "--ledger", path, "--json")
	require.Equal(t, 0, code, errOut)
	var rows []row
	require.NoError(t, json.Unmarshal([]byte(out), &rows))
	l := rows[0].Ledger
	require.NotNil(t, l)
	assert.Positive(t, l.Refused, "the small grant runs out")
	assert.Equal(t, rows[0].Rejected, l.Refused, "each refused job is counted once, with its reason")
	granted := map[string]int64{"physics": 200000, "chemistry": 300000}
	for _, p := range l.Projects {
		assert.Equal(t, granted[p.Project], p.SUUsed+p.Balance, p.Project)
	}
	assert.Contains(t, errOut, "refused by the allocation plugin")
	code, _, errOut = runCmd(t, "simulate", "--ledger", filepath.Join(t.TempDir(), "none.json"))
	assert.Equal(t, 2, code)
	assert.Contains(t, errOut, "--ledger")
}

// --jobs writes one record per job, in submit order; the mean of start -
// submit is the printed mean wait, and the .swf form reads back as a trace
// whose wait field is the simulated wait.
func TestSimulateJobsFile(t *testing.T) {
	dir := t.TempDir()
	csvPath, swfPath := filepath.Join(dir, "jobs.csv"), filepath.Join(dir, "jobs.swf")
	code, out, errOut := runCmd(t, "simulate", "--workload", "aucsched:3", "--limit", "80", "--backfill=easy", "--json", "--jobs", csvPath)
	require.Equal(t, 0, code, errOut)
	var rows []row
	require.NoError(t, json.Unmarshal([]byte(out), &rows))
	f, err := os.Open(csvPath)
	require.NoError(t, err)
	recs, err := csv.NewReader(f).ReadAll()
	f.Close()
	require.NoError(t, err)
	require.Len(t, recs, 81)
	assert.Equal(t, []string{"id", "name", "user", "submit_s", "start_s", "end_s", "wait_s", "run_s", "nodes", "cores", "cpus", "bounded_slowdown", "end"}, recs[0])
	var sum float64
	for i, r := range recs[1:] {
		submit, _ := strconv.ParseFloat(r[3], 64)
		start, err := strconv.ParseFloat(r[4], 64)
		require.NoError(t, err, "line %d", i+2)
		sum += start - submit
		assert.NotEmpty(t, r[8], "nodes")
		assert.Contains(t, []string{"COMPLETE", "TIMEOUT"}, r[12])
	}
	assert.InDelta(t, rows[0].WaitMean, sum/80, 1e-6*max(1, rows[0].WaitMean))

	code, _, errOut = runCmd(t, "simulate", "--workload", "aucsched:3", "--limit", "80", "--backfill=easy", "--jobs", swfPath)
	require.Equal(t, 0, code, errOut)
	tr, err := sim.OpenSWF(os.DirFS(dir), "jobs.swf", sim.SWFOptions{})
	require.NoError(t, err)
	require.Len(t, tr.Jobs, 80)
	sum = 0
	for _, j := range tr.Jobs {
		sum += j.Wait.Seconds()
	}
	assert.InDelta(t, rows[0].WaitMean, sum/80, 1e-6*max(1, rows[0].WaitMean))

	code, _, errOut = runCmd(t, "simulate", "--workload", "aucsched:3", "--limit", "10", "--jobs", swfPath)
	assert.Equal(t, 2, code, "an existing file is kept")
	assert.Contains(t, errOut, "exists")
	code, _, _ = runCmd(t, "simulate", "--workload", "aucsched:3", "--limit", "10", "--jobs", filepath.Join(dir, "jobs.txt"))
	assert.Equal(t, 2, code, "an unknown extension")
	code, _, errOut = runCmd(t, "simulate", "--workload", "aucsched:3", "--limit", "10", "--compare", "fcfs,easy", "--jobs", csvPath, "--force")
	require.Equal(t, 0, code, errOut)
	for _, name := range []string{"jobs-aucsched-3-fcfs.csv", "jobs-aucsched-3-fcfs-easy.csv"} {
		assert.FileExists(t, filepath.Join(dir, name))
	}
}

// Two identical runs write identical results.json and results.csv; a
// cluster without a switch tree leaves the level columns empty (null in
// JSON), and --timing adds the wall-clock columns.
func TestSimulateResultsDeterministic(t *testing.T) {
	dir := t.TempDir()
	trace := filepath.Join(dir, "small.swf")
	var b strings.Builder
	b.WriteString("; MaxNodes: 8\n; MaxProcs: 8\n")
	for i := 0; i < 40; i++ {
		fmt.Fprintf(&b, "%d %d -1 %d %d -1 -1 %d 900 -1 1 1 1 -1 -1 1 -1 -1\n", i+1, 30*i, 100+17*i%500, 1+i%5, 1+i%5)
	}
	require.NoError(t, os.WriteFile(trace, []byte(b.String()), 0o644))
	read := func(out, name string) string {
		data, err := os.ReadFile(filepath.Join(out, name))
		require.NoError(t, err)
		return string(data)
	}
	var outs []string
	for i := 0; i < 2; i++ {
		out := filepath.Join(dir, fmt.Sprint("out", i))
		code, _, errOut := runCmd(t, "simulate", "--workload", trace+",aucsched:1", "--limit", "40", "--compare", "fcfs,easy", "--out", out, "-q")
		require.Equal(t, 0, code, errOut)
		outs = append(outs, out)
	}
	for _, name := range []string{"results.json", "results.csv"} {
		assert.Equal(t, read(outs[0], name), read(outs[1], name), name)
	}
	csvText := read(outs[0], "results.csv")
	assert.NotContains(t, csvText, "wall_s")
	lines := strings.Split(csvText, "\n")
	assert.Contains(t, lines[1], ",0,,,", "no switch tree: empty level columns")
	assert.Contains(t, read(outs[0], "results.json"), `"lowest_common_level_mean": null`)
	code, out, _ := runCmd(t, "simulate", "--workload", trace, "--csv", "--timing")
	require.Equal(t, 0, code)
	assert.Contains(t, out, "wall_s,jobs_per_wall_second")
}

// --seeds runs every generated workload once per seed and prints the mean
// ± standard deviation over them; -j 2 prints and writes the same bytes
// as -j 1.
func TestSimulateSeedsParallel(t *testing.T) {
	dir := t.TempDir()
	run := func(j string) (string, string) {
		out := filepath.Join(dir, "out"+j)
		code, stdout, errOut := runCmd(t, "simulate", "--workload", "aucsched:1,3", "--limit", "20", "--compare", "fcfs,easy",
			"--seeds", "1-3", "-j", j, "--json", "--out", out)
		require.Equal(t, 0, code, errOut)
		return stdout, out
	}
	one, dirOne := run("1")
	two, dirTwo := run("2")
	assert.Equal(t, one, two)
	for _, name := range []string{"results.json", "results.csv", "comparison.svg", "aucsched-1-fcfs-easy.svg"} {
		a, err := os.ReadFile(filepath.Join(dirOne, name))
		require.NoError(t, err)
		b, err := os.ReadFile(filepath.Join(dirTwo, name))
		require.NoError(t, err)
		assert.Equal(t, string(a), string(b), name)
	}
	var rows []row
	require.NoError(t, json.Unmarshal([]byte(one), &rows))
	require.Len(t, rows, 4)
	// each row against its three single-seed runs
	var waits []float64
	for _, seed := range []string{"1", "2", "3"} {
		code, out, errOut := runCmd(t, "simulate", "--workload", "aucsched:1", "--limit", "20", "--seed", seed, "--json")
		require.Equal(t, 0, code, errOut)
		var r []row
		require.NoError(t, json.Unmarshal([]byte(out), &r))
		waits = append(waits, r[0].WaitMean)
	}
	mean := (waits[0] + waits[1] + waits[2]) / 3
	var v float64
	for _, w := range waits {
		v += (w - mean) * (w - mean)
	}
	assert.Equal(t, []uint64{1, 2, 3}, rows[0].Seeds)
	assert.Equal(t, 60, rows[0].Jobs, "summed over the seeds")
	assert.InDelta(t, mean, rows[0].WaitMean, 1e-9*mean)
	require.NotNil(t, rows[0].Std)
	assert.InDelta(t, math.Sqrt(v/3), rows[0].Std.WaitMean, 1e-6)
	for _, bad := range []string{"7-1", "x", "1-5000"} {
		code, _, _ := runCmd(t, "simulate", "--workload", "aucsched:1", "--seeds", bad)
		assert.Equal(t, 2, code, bad)
	}
	code, _, _ := runCmd(t, "simulate", "--workload", "aucsched:1", "-j", "0")
	assert.Equal(t, 2, code)
}

// The progress line of a trace of unknown length (read as it goes) and of
// a known one never panics, whatever done is.
func TestProgressBarUnknownTotal(t *testing.T) {
	var b strings.Builder
	start := time.Now().Add(-time.Hour)
	for _, tc := range []struct{ done, total int }{{5, 0}, {50, 10}, {0, 10}, {10, 10}} {
		b.Reset()
		b.WriteString(barText("w", tc.done, tc.total, time.Minute, time.Since(start)))
		assert.Contains(t, b.String(), fmt.Sprint(tc.done), "%v", tc)
	}
}
