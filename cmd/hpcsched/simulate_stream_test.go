package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"text/tabwriter"
	"time"

	"github.com/hpcsched/hpcsched/internal/testseed"
	"github.com/hpcsched/hpcsched/sim"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fakeRow is what a stand-in runner returns for a cell: a row whose
// measures identify the cell.
func fakeRow(cl cell) row {
	return row{Workload: cellName(cl.workload), Cluster: "fake", Policy: strings.ToUpper(cl.variant.policy),
		Backfill: cl.variant.backfill.String(), Jobs: 10, Started: 10, WaitMean: float64(100*cl.group) + float64(cl.seed),
		Utilization: 50, Busy: 50, Makespan: 1000}
}

// A comparison read from a pipe shows its first row while its last run
// is still running, with -j 1 and -j 2: the last run waits until the
// reader has seen row 1 (without streaming it would wait forever; the
// guard turns that into a failure).
func TestSimulateRowsStreamThroughPipe(t *testing.T) {
	for _, j := range []string{"1", "2"} {
		t.Run("j"+j, func(t *testing.T) {
			f, err := parseSimFlags([]string{"--workload", "aucsched:1,2,3", "--compare", "fcfs,easy", "-j", j}, io.Discard)
			require.NoError(t, err)
			pr, pw, err := os.Pipe()
			require.NoError(t, err)
			defer pr.Close()
			firstRow := make(chan string, 1)
			var lines []string
			readDone := make(chan struct{})
			go func() {
				defer close(readDone)
				sc := bufio.NewScanner(pr)
				for sc.Scan() {
					if lines = append(lines, sc.Text()); len(lines) == 2 {
						firstRow <- sc.Text()
					}
				}
			}()
			var runs atomic.Int32
			f.runner = func(cl cell, _ func(int, int, time.Duration)) (*sim.Result, row, error) {
				if runs.Add(1) == 6 { // the last run ends only once row 1 was read
					select {
					case <-firstRow:
					case <-time.After(time.Minute):
						return nil, row{}, errors.New("row 1 did not reach the pipe before the last run ended")
					}
				}
				return &sim.Result{}, fakeRow(cl), nil
			}
			err = f.simulate(pw, io.Discard)
			pw.Close()
			<-readDone
			require.NoError(t, err)
			require.Len(t, lines, 7, "a heading and six rows")
			assert.True(t, strings.HasPrefix(lines[1], "aucsched:1  FCFS "), lines[1])
			assert.True(t, strings.HasPrefix(lines[6], "aucsched:3  FCFS+EASY "), lines[6])
		})
	}
}

// The rows streamed one by one are the bytes text/tabwriter gives the
// whole table whenever every value fits its column's width (as in the
// README's examples); a wider value shifts only its own row.
func TestStreamedTableMatchesTabwriter(t *testing.T) {
	seed := testseed.Draw(t)
	rng := rand.New(rand.NewPCG(seed, 1))
	same := 0
	for trial := 0; trial < 200; trial++ {
		seeded, timing := rng.IntN(2) == 0, rng.IntN(2) == 0
		f := &simFlags{timing: timing}
		var cells []cell
		var rows []row
		for g := 0; g < 1+rng.IntN(5); g++ {
			v := variant{policy: []string{"fcfs", "sjf", "multifactor"}[rng.IntN(3)], backfill: sim.BackfillMode(rng.IntN(3))}
			wl := []string{"aucsched:1", "aucsched:5'", "/x/KTH-SP2-1996-2.1-cln.swf"}[rng.IntN(3)]
			gen := strings.HasPrefix(wl, "aucsched:")
			cells = append(cells, cell{workload: wl, variant: v, group: g, seeded: gen})
			if seeded {
				cells = append(cells, cell{workload: wl, variant: v, group: g, seeded: gen})
			}
			rows = append(rows, randomRow(rng, cellName(wl), v, seeded))
		}
		var streamed bytes.Buffer
		p := newRowPrinter(f, cells, &streamed)
		for _, r := range rows {
			require.NoError(t, p.add(r))
		}
		natural := make([]int, len(p.widths)) // what tabwriter fits to these rows
		for k, h := range tableHead {
			natural[k] = len([]rune(h))
		}
		if timing {
			natural[len(natural)-1] = len("Jobs/s")
		}
		for _, r := range rows {
			for k, c := range tableCells(r, timing) {
				natural[k] = max(natural[k], len([]rune(c)))
			}
		}
		last := len(p.widths) - 1
		if slices.Equal(natural[:last], p.widths[:last]) {
			same++
			require.Equal(t, tabwriterTable(rows, timing), streamed.String(), "trial %d", trial)
			continue
		}
		lines := strings.Split(strings.TrimSuffix(streamed.String(), "\n"), "\n")
		require.Len(t, lines, len(rows)+1)
		for i, r := range rows {
			assert.Equal(t, tableCells(r, timing), regexp.MustCompile(` {2,}`).Split(lines[i+1], -1), "trial %d", trial)
		}
	}
	t.Logf("%d of 200 tables as tabwriter fits them", same)
	assert.Positive(t, same)
}

func randomRow(rng *rand.Rand, name string, v variant, seeded bool) row {
	num := func(digits int) float64 { return float64(rng.IntN(pow10(digits))) + rng.Float64() }
	lm, ls := rng.Float64()*3, rng.Float64()
	r := row{Workload: name, Policy: strings.ToUpper(v.policy), Backfill: v.backfill.String(), LevelKnown: rng.IntN(2) == 0,
		SpreadMean: num(1 + rng.IntN(4)), SpreadStd: num(1 + rng.IntN(3)), Utilization: num(2), Busy: num(2),
		WaitMean: num(1 + rng.IntN(5)), WaitMedian: num(1 + rng.IntN(5)), WaitP95: num(1 + rng.IntN(6)),
		BoundedSlowdown: num(1 + rng.IntN(3)), Makespan: num(1 + rng.IntN(8)), Jobs: rng.IntN(300000), JobsPerSecond: num(6)}
	if r.LevelKnown {
		r.LevelMean, r.LevelStd = &lm, &ls
	}
	if seeded {
		r.Std = &rowStd{Utilization: num(1), WaitMean: num(1 + rng.IntN(4)), BoundedSlowdown: num(2)}
	}
	return r
}

func pow10(n int) int {
	p := 1
	for ; n > 0; n-- {
		p *= 10
	}
	return p
}

// tabwriterTable is the whole table as text/tabwriter aligns it, the way
// simulate printed it when every row came at the end.
func tabwriterTable(rows []row, timing bool) string {
	var b strings.Builder
	tw := tabwriter.NewWriter(&b, 0, 4, 2, ' ', 0)
	head := tableHead
	if timing {
		head = append(head[:len(head):len(head)], "Jobs/s")
	}
	fmt.Fprintln(tw, strings.Join(head, "\t"))
	for _, r := range rows {
		fmt.Fprintln(tw, strings.Join(tableCells(r, timing), "\t"))
	}
	tw.Flush()
	return b.String()
}

// failAfter is a stdout that takes n writes, then fails like a closed
// pipe; failed is closed at the first failure.
type failAfter struct {
	mu     sync.Mutex
	n      int
	b      bytes.Buffer
	failed chan struct{}
	once   sync.Once
}

func (w *failAfter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.n == 0 {
		w.once.Do(func() { close(w.failed) })
		return 0, errors.New("broken pipe")
	}
	w.n--
	return w.b.Write(p)
}

// When stdout stops taking rows (a reader that closed the pipe), the runs
// not yet started are not started, and the failure is the error.
func TestSimulateStopsWhenStdoutFails(t *testing.T) {
	for _, j := range []string{"1", "2"} {
		f, err := parseSimFlags([]string{"--workload", "aucsched:1,2,3,4", "--compare", "fcfs,easy,sjf", "-j", j}, io.Discard)
		require.NoError(t, err)
		var runs atomic.Int32
		w := &failAfter{n: 1, failed: make(chan struct{})}
		f.runner = func(cl cell, _ func(int, int, time.Duration)) (*sim.Result, row, error) {
			runs.Add(1)
			if cl.group >= 2 {
				<-w.failed // runs 0 and 1 end first: row 2 is the write that fails
			}
			return &sim.Result{}, fakeRow(cl), nil
		}
		err = f.simulate(w, io.Discard)
		require.Error(t, err, "-j %s", j)
		assert.Contains(t, err.Error(), "broken pipe")
		assert.LessOrEqual(t, int(runs.Load()), 4, "-j %s: 12 runs planned, the rest not started", j)
		assert.Equal(t, 2, strings.Count(w.b.String(), "\n"), "the first row made it")
	}
}

// Progress goes to stderr only on a terminal or with --progress; -q and
// --progress exclude each other.
func TestSimulateProgressOnlyWhenAsked(t *testing.T) {
	args := []string{"simulate", "--workload", "aucsched:1", "--limit", "15", "--compare", "fcfs,easy"}
	code, _, errOut := runCmd(t, args...)
	require.Equal(t, 0, code, errOut)
	assert.Empty(t, errOut, "stderr is not a terminal")
	code, _, errOut = runCmd(t, append(args, "--progress")...)
	require.Equal(t, 0, code, errOut)
	assert.Contains(t, errOut, "[1/2] aucsched:1 ")
	assert.Contains(t, errOut, "[2/2] aucsched:1 ")
	assert.NotContains(t, errOut, "\r", "no status line redrawn in a file")
	code, _, _ = runCmd(t, append(args, "--progress", "-q")...)
	assert.Equal(t, 2, code)
}

// On a terminal the status line is cleared before a row is printed and
// redrawn after, so rows and progress never share a line.
func TestRunBoardClearsBeforeRows(t *testing.T) {
	var b strings.Builder
	board := &runBoard{w: &b, live: true, names: []string{"a fcfs", "b fcfs"}, running: map[int]*runState{}, start: time.Now()}
	p0, p1 := board.begin(0), board.begin(1)
	p0(5, 10, time.Minute)
	board.drawn = time.Now().Add(time.Hour) // as if drawn a moment ago
	p1(3, 0, 0)                             // within 100 ms of the last draw: not drawn
	assert.Equal(t, 1, strings.Count(b.String(), "\r"))
	assert.Contains(t, b.String(), "0/2 runs done")
	assert.Contains(t, b.String(), "a fcfs 50%, b fcfs loading")
	board.end(0, cellOut{row: row{Utilization: 50}}, func() { b.WriteString("ROW\n") })
	assert.Contains(t, b.String(), "\r\033[KROW\n[1/2] a fcfs: utilization 50.0%")
	assert.True(t, strings.HasSuffix(b.String(), "\033[K"), "the status line is back")
	assert.Contains(t, b.String(), "\rb fcfs 3 jobs started or rejected")
	board.close()
	assert.True(t, strings.HasSuffix(b.String(), "\r\033[K"), "cleared at the end")
}

// Real runs: -j 1 and -j 2 print the same table and CSV, and the CSV on
// stdout is results.csv.
func TestSimulateStreamedOutputsEqual(t *testing.T) {
	dir := t.TempDir()
	args := []string{"simulate", "--workload", "aucsched:1,3", "--limit", "20", "--compare", "fcfs,easy", "--seeds", "1-2"}
	var tables []string
	for _, j := range []string{"1", "2"} {
		code, out, errOut := runCmd(t, append(args, "-j", j)...)
		require.Equal(t, 0, code, errOut)
		tables = append(tables, out)
		out2 := filepath.Join(dir, j)
		code, csvOut, errOut := runCmd(t, append(args, "-j", j, "--csv", "--out", out2)...)
		require.Equal(t, 0, code, errOut)
		data, err := os.ReadFile(filepath.Join(out2, "results.csv"))
		require.NoError(t, err)
		assert.Equal(t, string(data), csvOut, "-j %s", j)
	}
	assert.Equal(t, tables[0], tables[1])
	assert.Equal(t, 5, strings.Count(tables[0], "\n"))
}

// Mistakes a hurried user makes are refused before the first run, with
// nothing on stdout: an --out that is a file, an empty --compare item.
func TestSimulateRefusesBeforeRunning(t *testing.T) {
	file := filepath.Join(t.TempDir(), "results")
	require.NoError(t, os.WriteFile(file, []byte("not a conf"), 0o644))
	confs := strings.Split(gridConfs(t, 2), ",")
	trace := filepath.Join(t.TempDir(), "t.swf")
	require.NoError(t, os.WriteFile(trace, []byte("; MaxNodes: 4\n1 0 -1 100 1 -1 -1 1 600 -1 1 1 1 -1 1 -1 -1 -1\n"), 0o644))
	for _, args := range [][]string{
		{"--out", file},
		{"--compare", "fcfs,"},
		{"--compare", ","},
		{"--workload", "aucsched:1," + filepath.Join(t.TempDir(), "missing.swf")},
		{"--workload", t.TempDir()},
		{"--workload", "-"},
		{"--workload", "/dev/null", "--compare", "fcfs,easy"}, // read once, wanted twice
		{"--workload", "aucsched:1,2", "--jobs", filepath.Join(t.TempDir(), "jobs.txt")},
		{"--workload", "aucsched:1,2", "--conf", filepath.Join(t.TempDir(), "missing.conf")},
		{"--workload", "aucsched:1", "--compare", "fcfs,easy", "--conf", file}, // not a slurm.conf
		{"--workload", "aucsched:1", "--seeds", "1-2", "--conf", confs[0], "--topology", file},
		{"--workload", trace, "--compare", "fcfs,easy", "--machines", filepath.Join(t.TempDir(), "missing")},
	} {
		code, out, errOut := runCmd(t, append([]string{"simulate", "--limit", "5"}, args...)...)
		assert.Equal(t, 2, code, "%v: %s", args, errOut)
		assert.Empty(t, out, "%v", args)
		assert.NotContains(t, errOut, "failed", "%v: refused before any run", args)
	}
}
