package main

import (
	"encoding/csv"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hpcsched/hpcsched/internal/shareddata"
	"github.com/hpcsched/hpcsched/internal/testseed"
	"github.com/hpcsched/hpcsched/sim"
)

// allFieldsSWF sets every field of every job, fractions where real
// traces write them (average CPU time, used memory, a submit time). Job 3
// runs past its limit (killed at it), job 4 asks for more processors than
// the cluster has (never starts), job 5 has no run time (left out).
const allFieldsSWF = `; Version: 2.2
; Computer: Test machine
; Installation: Test site
; UnixStartTime: 1000000000
; MaxNodes: 8
; MaxProcs: 8
; Queue: 1 batch
; Queue: 7 long
; Partition: 1 batch
; Partition: 2 debug
1 0 5 100 2 95.25 1024.5 2 200 2048 1 7 4 11 1 1 -1 -1
2 10 0 50 4 48 512 4 60 4096 0 8 5 12 7 2 1 30
3 11 1 500 8 400.125 64 8 100 128 1 7 4 11 1 1 2 5
4 12.5 0 30 16 10 10 16 60 256 1 9 6 13 1 1 -1 -1
5 20 0 -1 1 -1 -1 1 60 -1 1 9 6 13 1 1 -1 -1
`

// keptFields are the SWF fields (1-based) a replay does not decide, which
// --jobs FILE.swf writes as the trace had them (6 and 7 only for a job
// that ran its whole run time).
var keptFields = []int{1, 2, 8, 9, 10, 12, 13, 14, 15, 17, 18}

// swfLines is a file's job lines split at white space, by job number.
func swfLines(t *testing.T, text string) map[string][]string {
	out := map[string][]string{}
	for _, line := range strings.Split(text, "\n") {
		f := strings.Fields(line)
		if len(f) == 0 || strings.HasPrefix(f[0], ";") {
			continue
		}
		require.Len(t, f, 18, line)
		out[f[0]] = f
	}
	return out
}

// The SWF --jobs writes from a trace keeps every field the replay does not
// decide as the trace wrote it, and the trace's queues and start time in
// its header; the fields it decides agree with the CSV of the same run. It
// used to write -1 for the average CPU time, the memory, the group, the
// executable, the queue, the preceding job and the think time.
func TestJobsSWFKeepsTheTraceFields(t *testing.T) {
	dir := t.TempDir()
	trace := filepath.Join(dir, "all.swf")
	require.NoError(t, os.WriteFile(trace, []byte(allFieldsSWF), 0o644))
	for _, out := range []string{"out.swf", "out.csv"} {
		code, _, errOut := runCmd(t, "simulate", "--workload", trace, "--backfill", "-q", "--jobs", filepath.Join(dir, out))
		require.Equal(t, 0, code, errOut)
	}
	written, err := os.ReadFile(filepath.Join(dir, "out.swf"))
	require.NoError(t, err)
	in, got := swfLines(t, allFieldsSWF), swfLines(t, string(written))
	require.Len(t, got, 4, "every job but the one without a run time")
	for id, g := range got {
		for _, n := range keptFields {
			assert.Equal(t, in[id][n-1], g[n-1], "job %s field %d", id, n)
		}
		for _, n := range []int{6, 7} { // the trace's run's measures
			want := in[id][n-1]
			if g[10] != "1" {
				want = "-1"
			}
			assert.Equal(t, want, g[n-1], "job %s field %d (status %s)", id, n, g[10])
		}
	}
	assert.Equal(t, []string{"0", "-1"}, []string{got["3"][10], got["4"][10]}, "killed at its limit; never started")

	tr, err := sim.OpenSWF(os.DirFS(dir), "out.swf", sim.SWFOptions{})
	require.NoError(t, err)
	assert.Equal(t, map[int]string{1: "batch", 7: "long"}, tr.Queues)
	assert.Equal(t, int64(1000000000), tr.UnixStart)
	assert.Equal(t, "Test site", tr.Installation)
	orig, err := sim.OpenSWF(os.DirFS(dir), "all.swf", sim.SWFOptions{})
	require.NoError(t, err)
	for _, j := range tr.Jobs {
		o := orig.Jobs[j.ID-1]
		assert.Equal(t, []any{o.Submit, o.ReqTime, o.ReqMemKB, o.User, o.Queue}, []any{j.Submit, j.ReqTime, j.ReqMemKB, j.User, j.Queue}, "job %d", j.ID)
	}
	checkAgainstCSV(t, got, filepath.Join(dir, "out.csv"))
}

// checkAgainstCSV checks the fields a replay decides (3, 4, 5 and 11) and
// the submit time (2) against the CSV of the same run.
func checkAgainstCSV(t *testing.T, swf map[string][]string, path string) {
	text, err := os.ReadFile(path)
	require.NoError(t, err)
	recs, err := csv.NewReader(strings.NewReader(string(text))).ReadAll()
	require.NoError(t, err)
	require.Len(t, recs, len(swf)+1)
	for _, r := range recs[1:] { // id,name,user,submit_s,start_s,end_s,wait_s,run_s,nodes,cores,cpus,bounded_slowdown,end
		f := swf[strings.TrimPrefix(r[1], "swf")]
		require.NotNil(t, f, r[1])
		wait, run, cpus, status := r[6], r[7], r[10], map[string]string{"COMPLETE": "1", "TIMEOUT": "0"}[r[12]]
		if wait == "" {
			wait, run, cpus, status = "-1", "-1", "-1", "-1"
		}
		assert.Equal(t, []string{r[3], wait, run, cpus, status}, []string{f[1], f[2], f[3], f[4], f[10]}, r[1])
	}
}

// On a real trace every job keeps its requested memory, user, group and
// queue (fields 10, 12, 13, 15), and the mean of the waits written (field
// 3) is the mean wait printed.
func TestJobsSWFKeepsARealTracesFields(t *testing.T) {
	trace := filepath.Join(shareddata.Require(t, "traces"), "Alea-hpc2n-subset.swf")
	out := filepath.Join(t.TempDir(), "out.swf")
	code, rowOut, errOut := runCmd(t, "simulate", "--workload", trace, "--backfill=easy", "-q", "--csv", "--jobs", out)
	require.Equal(t, 0, code, errOut)
	text, err := os.ReadFile(trace)
	require.NoError(t, err)
	written, err := os.ReadFile(out)
	require.NoError(t, err)
	in, got := swfLines(t, string(text)), swfLines(t, string(written))
	replayed := 0 // the jobs the replay keeps (sim's Trace.WorkloadWith)
	for _, f := range in {
		if f[3] != "-1" && (f[10] != "5" || f[3] != "0") {
			replayed++
		}
	}
	require.Len(t, got, replayed, "every job replayed is written")
	sum, started := 0.0, 0
	for id, g := range got {
		require.NotNil(t, in[id], "job %s", id)
		for _, n := range []int{10, 12, 13, 15} {
			require.Equal(t, in[id][n-1], g[n-1], "job %s field %d", id, n)
		}
		if g[2] != "-1" {
			w, err := strconv.ParseFloat(g[2], 64)
			require.NoError(t, err)
			sum, started = sum+w, started+1
		}
	}
	row := figures(t, rowOut) // the CSV row from its policy column
	require.Equal(t, "wait_mean_s", csvHead(false, false)[14])
	printed, err := strconv.ParseFloat(row[14-2], 64)
	require.NoError(t, err)
	assert.LessOrEqual(t, math.Abs(sum/float64(started)-printed), 0.0005, "mean of field 3 against the printed mean wait")
	assert.Equal(t, row[5-2], strconv.Itoa(started), "started jobs")
}

// randomSWF is a trace of n jobs whose every field is drawn: fractions
// where real traces have them, unknown (-1) fields, jobs over the
// cluster's 8 processors, jobs running past their limit, jobs left out
// (no run time, cancelled before running) and lines a little out of
// submit order.
func randomSWF(rng *rand.Rand, n int) string {
	var b strings.Builder
	b.WriteString("; UnixStartTime: 1200000000\n; MaxNodes: 8\n; MaxProcs: 8\n; Queue: 1 batch\n; Queue: 2 long\n; Partition: 1 batch\n; Partition: 2 debug\n")
	pick := func(unknown float64, v string) string {
		if rng.Float64() < unknown {
			return "-1"
		}
		return v
	}
	num := func(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }
	submit := 0.0
	for i := 1; i <= n; i++ {
		submit += float64(rng.IntN(400)) + float64(rng.IntN(2))/2
		at := max(0, submit-float64(rng.IntN(3))*float64(rng.IntN(300))) // now and then before the line above
		procs := strconv.Itoa(1 + rng.IntN(9))
		f := []string{strconv.Itoa(i), num(at), pick(0.3, strconv.Itoa(rng.IntN(5000))), pick(0.05, strconv.Itoa(rng.IntN(3000))),
			procs, pick(0.3, num(float64(rng.IntN(12000))/4)), pick(0.3, num(float64(rng.IntN(1<<20))/2)), pick(0.2, procs),
			pick(0.2, strconv.Itoa(60+rng.IntN(3000))), pick(0.5, strconv.Itoa(rng.IntN(1<<22))), strconv.Itoa([]int{0, 1, 1, 1, 5}[rng.IntN(5)]),
			strconv.Itoa(1 + rng.IntN(20)), strconv.Itoa(1 + rng.IntN(5)), pick(0.3, strconv.Itoa(1+rng.IntN(30))),
			pick(0.3, strconv.Itoa(1+rng.IntN(2))), pick(0.3, strconv.Itoa(1+rng.IntN(2))), pick(0.8, strconv.Itoa(1+rng.IntN(i))),
			pick(0.8, strconv.Itoa(rng.IntN(600)))}
		b.WriteString(strings.Join(f, " ") + "\n")
	}
	return b.String()
}

// On random traces the SWF --jobs writes keeps every field the replay does
// not decide, its decided fields agree with the CSV of the same run, and
// the rows printed with either file are the same: keeping the fields
// changes no decision.
func TestJobsSWFRandomTraces(t *testing.T) {
	seed := testseed.Draw(t)
	rng := rand.New(rand.NewPCG(seed, 0))
	rounds := 6
	if testing.Short() {
		rounds = 2
	}
	for round := range rounds {
		dir := t.TempDir()
		text := randomSWF(rng, 40+rng.IntN(200))
		trace := filepath.Join(dir, "r.swf")
		require.NoError(t, os.WriteFile(trace, []byte(text), 0o644))
		mode := []string{"--backfill", "--backfill=easy", "--policy=sjf"}[rng.IntN(3)]
		var rows []string
		for _, out := range []string{"out.swf", "out.csv"} {
			code, row, errOut := runCmd(t, "simulate", "--workload", trace, mode, "-q", "--csv", "--jobs", filepath.Join(dir, out))
			require.Equal(t, 0, code, errOut)
			rows = append(rows, row)
		}
		require.Equal(t, rows[1], rows[0], "round %d %s", round, mode)
		written, err := os.ReadFile(filepath.Join(dir, "out.swf"))
		require.NoError(t, err)
		in, got := swfLines(t, text), swfLines(t, string(written))
		status := map[string]int{}
		for id, g := range got {
			status[g[10]]++
			for _, n := range keptFields {
				require.Equal(t, in[id][n-1], g[n-1], "round %d: job %s field %d", round, id, n)
			}
			for _, n := range []int{6, 7} {
				want := map[bool]string{true: in[id][n-1], false: "-1"}[g[10] == "1"]
				require.Equal(t, want, g[n-1], "round %d: job %s field %d", round, id, n)
			}
		}
		checkAgainstCSV(t, got, filepath.Join(dir, "out.csv"))
		t.Logf("round %d %s: %d lines, %d jobs written: %d completed, %d killed at their limit, %d never started",
			round, mode, len(in), len(got), status["1"], status["0"], status["-1"])
	}
}
