package main

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/hpcsched/hpcsched/sim"
)

// row is one simulation's line of output (and of results.json).
type row struct {
	Workload        string         `json:"workload"`
	Cluster         string         `json:"cluster"`
	Policy          string         `json:"policy"`
	Backfill        string         `json:"backfill"` // none, conservative or easy
	Jobs            int            `json:"jobs"`
	Started         int            `json:"started"`
	Rejected        int            `json:"rejected"`
	Stuck           int            `json:"stuck"`
	Unrunnable      map[string]int `json:"unrunnable,omitempty"`    // rejected jobs per reason
	TraceSkipped    map[string]int `json:"trace_skipped,omitempty"` // trace jobs left out per reason
	LevelMean       float64        `json:"lowest_common_level_mean"`
	LevelStd        float64        `json:"lowest_common_level_std"`
	LevelKnown      bool           `json:"lowest_common_level_known"`
	SpreadMean      float64        `json:"spread_mean"`
	SpreadStd       float64        `json:"spread_std"`
	Utilization     float64        `json:"utilization_pct"`
	Busy            float64        `json:"busy_pct"`
	WaitMean        float64        `json:"wait_mean_s"`
	WaitMedian      float64        `json:"wait_median_s"`
	WaitP95         float64        `json:"wait_p95_s"`
	BoundedSlowdown float64        `json:"bounded_slowdown"`
	Makespan        float64        `json:"makespan_s"`
	WallSeconds     float64        `json:"wall_s"`
	JobsPerSecond   float64        `json:"jobs_per_wall_second"`
	Ledger          *ledgerReport  `json:"ledger,omitempty"`
}

func toRow(res *sim.Result, skipped map[string]int, wall time.Duration) row {
	m := res.Metrics
	r := row{Workload: res.Workload, Cluster: res.Cluster, Policy: res.Policy, Backfill: res.Backfill.String(), Jobs: res.Jobs,
		Started: res.Started, Rejected: res.Rejected, Stuck: res.Stuck, Unrunnable: res.Unrunnable, TraceSkipped: skipped,
		LevelMean: m.LevelMean, LevelStd: m.LevelStd, LevelKnown: m.LevelKnown, SpreadMean: m.SpreadMean, SpreadStd: m.SpreadStd,
		Utilization: 100 * m.Utilization, Busy: 100 * m.BusyFraction, WaitMean: m.WaitMean.Seconds(),
		WaitMedian: m.WaitMedian.Seconds(), WaitP95: m.WaitP95.Seconds(), BoundedSlowdown: m.BoundedSlowdown,
		Makespan: m.Makespan.Seconds(), WallSeconds: wall.Seconds()}
	if wall > 0 {
		r.JobsPerSecond = float64(res.Jobs) / wall.Seconds()
	}
	return r
}

func (r row) label() string {
	switch r.Backfill {
	case "conservative":
		return r.Policy + "+backfill"
	case "easy":
		return r.Policy + "+EASY"
	}
	return r.Policy
}

// print writes the rows as a table, JSON or CSV; the jobs that could not
// run are explained after the table (on stderr for JSON and CSV, whose
// rows carry them too).
func (f *simFlags) print(stdout, stderr io.Writer, rows []row) error {
	var err error
	notes := stdout
	switch {
	case f.asJSON:
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		err, notes = enc.Encode(rows), stderr
	case f.asCSV:
		err, notes = writeCSV(stdout, rows), stderr
	default:
		writeTable(stdout, rows)
	}
	if err != nil {
		return err
	}
	writeNotes(notes, rows)
	writeLedgerNotes(notes, rows)
	return nil
}

// writeNotes explains, per run, the jobs that never ran and the trace jobs
// left out, by reason.
func writeNotes(w io.Writer, rows []row) {
	for _, r := range rows {
		if len(r.TraceSkipped) > 0 {
			fmt.Fprintf(w, "%s: %d trace jobs left out: %s\n", r.Workload, sum(r.TraceSkipped), reasons(r.TraceSkipped))
		}
		if r.Rejected > 0 {
			fmt.Fprintf(w, "%s %s: %d jobs can never run on %s: %s\n", r.Workload, r.label(), r.Rejected, r.Cluster, reasons(r.Unrunnable))
		}
		if r.Stuck > 0 {
			fmt.Fprintf(w, "%s %s: %d jobs still pending when nothing else could happen\n", r.Workload, r.label(), r.Stuck)
		}
	}
}

func sum(m map[string]int) int {
	n := 0
	for _, v := range m {
		n += v
	}
	return n
}

// reasons is "12 more nodes than the cluster has; 3 ...", most frequent first.
func reasons(m map[string]int) string {
	keys := slices.Sorted(maps.Keys(m))
	slices.SortStableFunc(keys, func(a, b string) int { return m[b] - m[a] })
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%d %s", m[k], k)
	}
	return strings.Join(parts, "; ")
}

func writeTable(w io.Writer, rows []row) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "Workload\tPolicy\tAvg. lowest level common switch\tAvg. spread\tUtilization (%)\tBusy (%)\tWait mean/median/p95 (s)\tBounded slowdown\tMakespan (s)\tJobs (started/rejected/stuck)\tJobs/s")
	for _, r := range rows {
		level := "-"
		if r.LevelKnown {
			level = fmt.Sprintf("%.2f ± %.2f", r.LevelMean, r.LevelStd)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%.1f ± %.1f\t%.0f\t%.0f\t%.0f / %.0f / %.0f\t%.2f\t%.0f\t%d (%d/%d/%d)\t%.0f\n",
			r.Workload, r.label(), level, r.SpreadMean, r.SpreadStd, r.Utilization, r.Busy, r.WaitMean, r.WaitMedian, r.WaitP95,
			r.BoundedSlowdown, r.Makespan, r.Jobs, r.Started, r.Rejected, r.Stuck, r.JobsPerSecond)
	}
	tw.Flush()
}

func writeCSV(w io.Writer, rows []row) error {
	cw := csv.NewWriter(w)
	_ = cw.Write([]string{"workload", "cluster", "policy", "backfill", "jobs", "started", "rejected", "stuck", "level_mean", "level_std",
		"spread_mean", "spread_std", "utilization_pct", "busy_pct", "wait_mean_s", "wait_median_s", "wait_p95_s",
		"bounded_slowdown", "makespan_s", "wall_s", "jobs_per_wall_second", "unrunnable"})
	f := func(x float64) string { return strconv.FormatFloat(x, 'f', 3, 64) }
	for _, r := range rows {
		_ = cw.Write([]string{r.Workload, r.Cluster, r.Policy, r.Backfill, strconv.Itoa(r.Jobs), strconv.Itoa(r.Started),
			strconv.Itoa(r.Rejected), strconv.Itoa(r.Stuck), f(r.LevelMean), f(r.LevelStd), f(r.SpreadMean), f(r.SpreadStd),
			f(r.Utilization), f(r.Busy), f(r.WaitMean), f(r.WaitMedian), f(r.WaitP95), f(r.BoundedSlowdown), f(r.Makespan),
			f(r.WallSeconds), f(r.JobsPerSecond), reasons(r.Unrunnable)})
	}
	cw.Flush()
	return cw.Error()
}

// fileName is "<workload>-<policy>[-backfill|-easy].svg", safe as a file
// name ("aucsched:5'" becomes "aucsched-5p").
func fileName(res *sim.Result) string {
	name := strings.NewReplacer(":", "-", "'", "p", "/", "-", " ", "_").Replace(res.Workload) + "-" + strings.ToLower(res.Policy)
	switch res.Backfill {
	case sim.Conservative:
		name += "-backfill"
	case sim.EASY:
		name += "-easy"
	}
	return name + ".svg"
}

// writeFiles writes --svg and --out; it refuses, before writing anything,
// to overwrite a file unless --force, and to write two runs to one name.
func (f *simFlags) writeFiles(results []*sim.Result, rows []row) error {
	files := map[string]func(io.Writer) error{}
	var order []string
	add := func(path string, write func(io.Writer) error) error {
		if files[path] != nil {
			return usagef("simulate: two runs would write %s (the same workload and policy twice?)", path)
		}
		files[path] = write
		order = append(order, path)
		return nil
	}
	if f.svg != "" {
		_ = add(f.svg, func(w io.Writer) error { return sim.WriteSVG(w, results[0]) })
	}
	if f.out != "" {
		for _, res := range results {
			if err := add(filepath.Join(f.out, fileName(res)), func(w io.Writer) error { return sim.WriteSVG(w, res) }); err != nil {
				return err
			}
		}
		if len(results) > 1 {
			_ = add(filepath.Join(f.out, "comparison.svg"), func(w io.Writer) error { return sim.WriteComparisonSVG(w, results) })
		}
		_ = add(filepath.Join(f.out, "results.json"), func(w io.Writer) error {
			enc := json.NewEncoder(w)
			enc.SetIndent("", "  ")
			return enc.Encode(rows)
		})
		_ = add(filepath.Join(f.out, "results.csv"), func(w io.Writer) error { return writeCSV(w, rows) })
		if err := os.MkdirAll(f.out, 0o755); err != nil {
			return usagef("%v", err)
		}
	}
	for _, path := range order {
		if _, err := os.Stat(path); err == nil && !f.force {
			return usagef("simulate: %s exists; remove it or pass --force", path)
		} else if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return usagef("%v", err)
		}
	}
	for _, path := range order {
		var buf bytes.Buffer
		if err := files[path](&buf); err != nil {
			return err
		}
		if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
			return usagef("%v", err)
		}
	}
	return nil
}
