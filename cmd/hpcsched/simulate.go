package main

import (
	"encoding/csv"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/hpcsched/hpcsched/queue"
	"github.com/hpcsched/hpcsched/selectnodes"
	"github.com/hpcsched/hpcsched/sim"
)

// row is one simulation's line of output.
type row struct {
	Workload        string  `json:"workload"`
	Policy          string  `json:"policy"`
	Backfill        bool    `json:"backfill"`
	Jobs            int     `json:"jobs"`
	Started         int     `json:"started"`
	Rejected        int     `json:"rejected"`
	Stuck           int     `json:"stuck"`
	LevelMean       float64 `json:"lowest_common_level_mean"`
	LevelStd        float64 `json:"lowest_common_level_std"`
	LevelKnown      bool    `json:"lowest_common_level_known"`
	SpreadMean      float64 `json:"spread_mean"`
	SpreadStd       float64 `json:"spread_std"`
	Utilization     float64 `json:"utilization_pct"`
	Busy            float64 `json:"busy_pct"`
	WaitMean        float64 `json:"wait_mean_s"`
	WaitMedian      float64 `json:"wait_median_s"`
	WaitP95         float64 `json:"wait_p95_s"`
	BoundedSlowdown float64 `json:"bounded_slowdown"`
	Makespan        float64 `json:"makespan_s"`
	WallSeconds     float64 `json:"wall_s"`
	JobsPerSecond   float64 `json:"jobs_per_wall_second"`
}

func simulate(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("simulate", flag.ContinueOnError)
	fs.SetOutput(stdout)
	workload := fs.String("workload", "aucsched:6", "aucsched:ID (1-6, 5', 6'; several comma-separated) or an SWF trace path (.swf or .swf.gz)")
	machines := fs.String("machines", "", "an Alea .machines file sizing the cluster for an SWF trace")
	extra := fs.String("features", "", "features every node of an SWF cluster has, comma-separated")
	conf := fs.String("conf", "", "simulate on this slurm.conf instead of the preset cluster")
	topo := fs.String("topology", "", "topology.conf for --conf")
	policyName := fs.String("policy", "fcfs", "fcfs, sjf, ljf or multifactor")
	backfill := fs.Bool("backfill", false, "run backfill after every scheduling pass")
	both := fs.Bool("both", false, "run each workload without and with backfill")
	depth := fs.Int("depth", 0, "jobs each backfill pass plans (100 when 0, -1 for all)")
	seed := fs.Uint64("seed", 1, "seed of the generated workloads")
	interval := fs.Duration("interval", 0, "an extra scheduling pass every interval of virtual time")
	limit := fs.Int("limit", 0, "replay only the first N jobs")
	asCSV := fs.Bool("csv", false, "print CSV")
	asJSON := fs.Bool("json", false, "print JSON")
	svg := fs.String("svg", "", "write utilization and Gantt charts of the (last) run to this SVG file")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return errHelp
		}
		return usagef("%v", err)
	}
	if fs.NArg() > 0 {
		return usagef("simulate: unexpected argument %q", fs.Arg(0))
	}
	policy, err := parsePolicy(*policyName)
	if err != nil {
		return err
	}
	modes := []bool{*backfill}
	if *both {
		modes = []bool{false, true}
	}
	var rows []row
	for _, wl := range strings.Split(*workload, ",") {
		for _, bf := range modes {
			c, w, err := load(strings.TrimSpace(wl), *machines, *extra, *conf, *topo, *seed)
			if err != nil {
				return err
			}
			if *limit > 0 && *limit < len(w.Jobs) {
				w.Jobs = w.Jobs[:*limit]
			}
			opts := sim.Options{Backfill: bf, Policy: policy, BackfillDepth: *depth, Interval: *interval, Record: *svg != ""}
			if isTerminal(stderr) {
				opts.Progress = progressBar(stderr, w.Name)
			}
			start := time.Now()
			res, err := sim.Run(c, w, opts)
			if err != nil {
				return err
			}
			wall := time.Since(start)
			if opts.Progress != nil {
				fmt.Fprint(stderr, "\r\033[K")
			}
			rows = append(rows, toRow(res, *policyName, wall))
			if *svg != "" {
				f, err := os.Create(*svg)
				if err != nil {
					return usagef("%v", err)
				}
				if err := sim.WriteSVG(f, res); err != nil {
					f.Close()
					return err
				}
				if err := f.Close(); err != nil {
					return err
				}
			}
		}
	}
	switch {
	case *asJSON:
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(rows)
	case *asCSV:
		return writeCSV(stdout, rows)
	}
	writeTable(stdout, rows)
	return nil
}

func parsePolicy(name string) (queue.Policy, error) {
	switch strings.ToLower(name) {
	case "fcfs":
		return queue.FCFS{}, nil
	case "sjf":
		return queue.SJF{}, nil
	case "ljf":
		return queue.LJF{}, nil
	case "multifactor":
		return queue.Multifactor{Age: 1000, JobSize: 500, Partition: 1000, MaxAge: 24 * time.Hour}, nil
	}
	return nil, usagef("simulate: unknown policy %q (fcfs, sjf, ljf, multifactor)", name)
}

// load builds the cluster and the workload.
func load(workload, machines, extra, conf, topo string, seed uint64) (*selectnodes.Cluster, *sim.Workload, error) {
	var c *selectnodes.Cluster
	var err error
	if conf != "" {
		cfg, err := readConf(conf)
		if err != nil {
			return nil, nil, usagef("%v", err)
		}
		var opts []selectnodes.Option
		if topo != "" {
			opt, err := topologyOption(topo)
			if err != nil {
				return nil, nil, err
			}
			opts = append(opts, opt)
		}
		if c, err = selectnodes.FromConfig(cfg, opts...); err != nil {
			return nil, nil, usagef("%v", err)
		}
	}
	if id, ok := strings.CutPrefix(workload, "aucsched:"); ok {
		if c == nil {
			if c, err = selectnodes.Seed001(); err != nil {
				return nil, nil, err
			}
		}
		cores := 0
		for i := 0; i < c.NodeCount(); i++ {
			cores = max(cores, c.Node(i).CPUs)
		}
		w, err := sim.Generate(id, c.NodeCount(), cores, seed)
		if err != nil {
			return nil, nil, usagef("%v", err)
		}
		return c, w, nil
	}
	abs, err := filepath.Abs(workload)
	if err != nil {
		return nil, nil, usagef("%v", err)
	}
	tr, err := sim.OpenSWF(os.DirFS(filepath.Dir(abs)), filepath.Base(abs), sim.SWFOptions{})
	if err != nil {
		return nil, nil, usagef("%v", err)
	}
	if c == nil {
		var ms []sim.Machine
		if machines != "" {
			f, err := os.Open(machines)
			if err != nil {
				return nil, nil, usagef("%v", err)
			}
			ms, err = sim.ReadMachines(f)
			f.Close()
			if err != nil {
				return nil, nil, usagef("%s: %v", machines, err)
			}
		}
		var feats []string
		if extra != "" {
			feats = strings.Split(extra, ",")
		}
		if c, err = tr.ClusterFor(ms, feats); err != nil {
			return nil, nil, usagef("%v", err)
		}
	}
	return c, tr.Workload(filepath.Base(workload), c), nil
}

func toRow(res *sim.Result, policy string, wall time.Duration) row {
	m := res.Metrics
	r := row{Workload: res.Workload, Policy: strings.ToUpper(policy), Backfill: res.Backfill, Jobs: res.Jobs,
		Started: res.Started, Rejected: res.Rejected, Stuck: res.Stuck,
		LevelMean: m.LevelMean, LevelStd: m.LevelStd, LevelKnown: m.LevelKnown, SpreadMean: m.SpreadMean, SpreadStd: m.SpreadStd,
		Utilization: 100 * m.Utilization, Busy: 100 * m.BusyFraction, WaitMean: m.WaitMean.Seconds(),
		WaitMedian: m.WaitMedian.Seconds(), WaitP95: m.WaitP95.Seconds(), BoundedSlowdown: m.BoundedSlowdown,
		Makespan: m.Makespan.Seconds(), WallSeconds: wall.Seconds()}
	if wall > 0 {
		r.JobsPerSecond = float64(res.Jobs) / wall.Seconds()
	}
	return r
}

func writeTable(w io.Writer, rows []row) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "Workload\tPolicy\tAvg. lowest level common switch\tAvg. spread\tUtilization (%)\tBusy (%)\tWait mean/median/p95 (s)\tBounded slowdown\tMakespan (s)\tJobs (started/rejected/stuck)\tJobs/s")
	for _, r := range rows {
		level := "-"
		if r.LevelKnown {
			level = fmt.Sprintf("%.2f ± %.2f", r.LevelMean, r.LevelStd)
		}
		policy := r.Policy
		if r.Backfill {
			policy += "+backfill"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%.1f ± %.1f\t%.0f\t%.0f\t%.0f / %.0f / %.0f\t%.2f\t%.0f\t%d (%d/%d/%d)\t%.0f\n",
			r.Workload, policy, level, r.SpreadMean, r.SpreadStd, r.Utilization, r.Busy, r.WaitMean, r.WaitMedian, r.WaitP95,
			r.BoundedSlowdown, r.Makespan, r.Jobs, r.Started, r.Rejected, r.Stuck, r.JobsPerSecond)
	}
	tw.Flush()
}

func writeCSV(w io.Writer, rows []row) error {
	cw := csv.NewWriter(w)
	_ = cw.Write([]string{"workload", "policy", "backfill", "jobs", "started", "rejected", "stuck", "level_mean", "level_std",
		"spread_mean", "spread_std", "utilization_pct", "busy_pct", "wait_mean_s", "wait_median_s", "wait_p95_s",
		"bounded_slowdown", "makespan_s", "wall_s", "jobs_per_wall_second"})
	f := func(x float64) string { return strconv.FormatFloat(x, 'f', 3, 64) }
	for _, r := range rows {
		_ = cw.Write([]string{r.Workload, r.Policy, strconv.FormatBool(r.Backfill), strconv.Itoa(r.Jobs), strconv.Itoa(r.Started),
			strconv.Itoa(r.Rejected), strconv.Itoa(r.Stuck), f(r.LevelMean), f(r.LevelStd), f(r.SpreadMean), f(r.SpreadStd),
			f(r.Utilization), f(r.Busy), f(r.WaitMean), f(r.WaitMedian), f(r.WaitP95), f(r.BoundedSlowdown), f(r.Makespan),
			f(r.WallSeconds), f(r.JobsPerSecond)})
	}
	cw.Flush()
	return cw.Error()
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

func progressBar(w io.Writer, name string) func(done, total int) {
	return func(done, total int) {
		const width = 30
		n := width * done / max(total, 1)
		fmt.Fprintf(w, "\r%s [%s%s] %d/%d", name, strings.Repeat("#", n), strings.Repeat(".", width-n), done, total)
	}
}
