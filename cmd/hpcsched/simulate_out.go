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
	Unrunnable      map[string]int `json:"unrunnable,omitempty"`     // rejected jobs per reason
	StuckReasons    map[string]int `json:"stuck_reasons,omitempty"`  // stuck jobs per queue reason
	TraceSkipped    map[string]int `json:"trace_skipped,omitempty"`  // trace jobs left out per reason
	LevelMean       *float64       `json:"lowest_common_level_mean"` // null without a switch tree
	LevelStd        *float64       `json:"lowest_common_level_std"`
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
	// WallSeconds and JobsPerSecond are measured only under --timing (the
	// rest of a row is the same on every run).
	WallSeconds   float64       `json:"wall_s,omitempty"`
	JobsPerSecond float64       `json:"jobs_per_wall_second,omitempty"`
	Ledger        *ledgerReport `json:"ledger,omitempty"`
	// Seed is a generated workload's seed (0 for a trace); with --seeds,
	// Seeds lists them and the measures are means over them, with their
	// standard deviations in Std.
	Seed  uint64   `json:"seed,omitempty"`
	Seeds []uint64 `json:"seeds,omitempty"`
	Std   *rowStd  `json:"std_over_seeds,omitempty"`
}

// rowStd is the standard deviation of a row's measures over its seeds.
// The level and spread columns are each run's mean and standard deviation
// over its jobs, averaged; LevelMean and SpreadMean here are how the
// runs' means vary.
type rowStd struct {
	LevelMean       *float64 `json:"lowest_common_level_mean,omitempty"`
	SpreadMean      float64  `json:"spread_mean"`
	Utilization     float64  `json:"utilization_pct"`
	Busy            float64  `json:"busy_pct"`
	WaitMean        float64  `json:"wait_mean_s"`
	WaitMedian      float64  `json:"wait_median_s"`
	WaitP95         float64  `json:"wait_p95_s"`
	BoundedSlowdown float64  `json:"bounded_slowdown"`
	Makespan        float64  `json:"makespan_s"`
}

func toRow(res *sim.Result, skipped map[string]int, wall time.Duration) row {
	m := res.Metrics
	r := row{Workload: res.Workload, Cluster: res.Cluster, Policy: res.Policy, Backfill: res.Backfill.String(), Jobs: res.Jobs,
		Started: res.Started, Rejected: res.Rejected, Stuck: res.Stuck, Unrunnable: res.Unrunnable, StuckReasons: res.StuckReasons, TraceSkipped: skipped,
		LevelKnown: m.LevelKnown, SpreadMean: m.SpreadMean, SpreadStd: m.SpreadStd,
		Utilization: 100 * m.Utilization, Busy: 100 * m.BusyFraction, WaitMean: m.WaitMean.Seconds(),
		WaitMedian: m.WaitMedian.Seconds(), WaitP95: m.WaitP95.Seconds(), BoundedSlowdown: m.BoundedSlowdown,
		Makespan: m.Makespan.Seconds(), WallSeconds: wall.Seconds()}
	if m.LevelKnown {
		mean, std := m.LevelMean, m.LevelStd
		r.LevelMean, r.LevelStd = &mean, &std
	}
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

// writeNotes explains, per run, the jobs that never ran and, once per
// trace (every policy's run of it leaves out the same), the trace jobs
// left out, by reason.
func writeNotes(w io.Writer, rows []row) {
	said := map[string]bool{}
	for _, r := range rows {
		if len(r.TraceSkipped) > 0 {
			note := fmt.Sprintf("%s: %d trace jobs left out: %s\n", r.Workload, sum(r.TraceSkipped), reasons(r.TraceSkipped))
			if !said[note] {
				said[note] = true
				io.WriteString(w, note)
			}
		}
		if r.Rejected > 0 {
			why := reasons(r.Unrunnable)
			fmt.Fprintf(w, "%s %s: %d jobs can never run on %s: %s\n", r.Workload, r.label(), r.Rejected, r.Cluster, why)
			if strings.Contains(why, " QOS ") && !said[qosHint] {
				said[qosHint] = true
				io.WriteString(w, qosHint)
			}
		}
		if r.Stuck > 0 {
			fmt.Fprintf(w, "%s %s: %d jobs still pending when nothing else could happen", r.Workload, r.label(), r.Stuck)
			if len(r.StuckReasons) > 0 {
				fmt.Fprintf(w, ": %s", reasons(r.StuckReasons))
			}
			fmt.Fprintln(w)
		}
	}
}

// qosHint follows a refusal for a job's QOS: a trace's jobs name none,
// and Slurm's default, normal, is not every site's.
const qosHint = "hint: --qos NAME submits every job under QOS NAME\n"

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

// writeCSV writes the rows as CSV: an unknown switch level is empty, and
// the wall-clock columns come only with timing.
func writeCSV(w io.Writer, rows []row, timing bool) error {
	cw := csv.NewWriter(w)
	seeded := slices.ContainsFunc(rows, func(r row) bool { return r.Std != nil })
	_ = cw.Write(csvHead(seeded, timing))
	for _, r := range rows {
		_ = cw.Write(csvRecord(r, seeded, timing))
	}
	cw.Flush()
	return cw.Error()
}

// csvHead is the CSV's first line; seeded adds the columns of rows that
// are means over seeds.
func csvHead(seeded, timing bool) []string {
	head := []string{"workload", "cluster", "policy", "backfill", "jobs", "started", "rejected", "stuck", "level_mean", "level_std",
		"spread_mean", "spread_std", "utilization_pct", "busy_pct", "wait_mean_s", "wait_median_s", "wait_p95_s",
		"bounded_slowdown", "makespan_s", "unrunnable"}
	if seeded {
		head = append(head, "seeds", "utilization_std_pct", "wait_mean_std_s", "bounded_slowdown_std", "makespan_std_s")
	}
	if timing {
		head = append(head, "wall_s", "jobs_per_wall_second")
	}
	return head
}

// csvRecord is one row's CSV record under csvHead(seeded, timing).
func csvRecord(r row, seeded, timing bool) []string {
	f := func(x float64) string { return strconv.FormatFloat(x, 'f', 3, 64) }
	opt := func(x *float64) string {
		if x == nil {
			return ""
		}
		return f(*x)
	}
	rec := []string{r.Workload, r.Cluster, r.Policy, r.Backfill, strconv.Itoa(r.Jobs), strconv.Itoa(r.Started),
		strconv.Itoa(r.Rejected), strconv.Itoa(r.Stuck), opt(r.LevelMean), opt(r.LevelStd), f(r.SpreadMean), f(r.SpreadStd),
		f(r.Utilization), f(r.Busy), f(r.WaitMean), f(r.WaitMedian), f(r.WaitP95), f(r.BoundedSlowdown), f(r.Makespan),
		reasons(r.Unrunnable)}
	if seeded {
		var sd rowStd
		if r.Std != nil {
			sd = *r.Std
		}
		seeds := make([]string, len(r.Seeds))
		for i, s := range r.Seeds {
			seeds[i] = strconv.FormatUint(s, 10)
		}
		rec = append(rec, strings.Join(seeds, " "), f(sd.Utilization), f(sd.WaitMean), f(sd.BoundedSlowdown), f(sd.Makespan))
	}
	if timing {
		rec = append(rec, f(r.WallSeconds), f(r.JobsPerSecond))
	}
	return rec
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
			var like []*sim.Result // the same workload's other runs: the same axes
			for _, o := range results {
				if o != res && o.Workload == res.Workload {
					like = append(like, o)
				}
			}
			if err := add(filepath.Join(f.out, fileName(res)), func(w io.Writer) error { return sim.WriteSVGLike(w, res, like) }); err != nil {
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
		_ = add(filepath.Join(f.out, "results.csv"), func(w io.Writer) error { return writeCSV(w, rows, f.timing) })
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
		if err := writeWhole(path, buf.Bytes()); err != nil {
			return usagef("%v", err)
		}
	}
	return nil
}

// writeWhole writes data to path (see createOutput): a
// regular file through a temporary one renamed over it, so a write that
// fails half way (a full disk) leaves no half file and the file --force
// would have replaced as it was; a link, a device or a pipe in place.
func writeWhole(path string, data []byte) error {
	file, direct, err := createOutput(path)
	if err != nil {
		return err
	}
	_, err = file.Write(data)
	if cerr := file.Close(); err == nil {
		err = cerr
	}
	if direct {
		return err
	}
	if err == nil {
		err = os.Rename(file.Name(), path)
	}
	if err != nil {
		os.Remove(file.Name())
	}
	return err
}
