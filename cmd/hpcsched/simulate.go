package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"time"

	"github.com/hpcsched/hpcsched/queue"
	"github.com/hpcsched/hpcsched/selectnodes"
	"github.com/hpcsched/hpcsched/sim"
)

// backfillFlag is --backfill: bare, it means conservative backfill (what
// Slurm's backfill plugin does for the jobs it tests); --backfill=easy,
// --backfill=conservative or --backfill=none choose.
type backfillFlag struct{ mode sim.BackfillMode }

func (b *backfillFlag) Set(s string) error {
	switch strings.ToLower(s) {
	case "", "true":
		b.mode = sim.Conservative
		return nil
	case "false":
		b.mode = sim.NoBackfill
		return nil
	}
	m, err := sim.ParseBackfillMode(s)
	b.mode = m
	return err
}

// variant is one policy and backfill to run every workload with.
type variant struct {
	policy   string
	backfill sim.BackfillMode
}

// simFlags are simulate's options.
type simFlags struct {
	workload, machines, extra, conf, topo, policy, compare, svg, out string
	estimate, procs, ledgerPath                                      string
	ledger                                                           *ledgerFile
	backfill                                                         backfillFlag
	both, asCSV, asJSON, quiet, force                                bool
	depth, limit                                                     int
	seed                                                             uint64
	interval                                                         time.Duration
}

func parseSimFlags(args []string, stdout io.Writer) (*simFlags, error) {
	f := &simFlags{}
	fs := newFlagSet("simulate", "[flags]")
	fs.String(&f.workload, "workload=SPEC", "aucsched:6", "aucsched:ID[,ID...] (1-6, 5', 6') or SWF trace paths (.swf or .swf.gz), comma-separated")
	fs.String(&f.machines, "machines=FILE", "", "an Alea .machines file sizing the cluster for an SWF trace")
	fs.String(&f.extra, "features=LIST", "", "features every node of an SWF cluster has besides those read from the trace, comma-separated")
	fs.String(&f.estimate, "estimate=requested|exact", "requested", "an SWF job's time limit: requested (field 9; killed at it) or exact (its run time)")
	fs.String(&f.procs, "procs=requested|allocated", "requested", "an SWF job's processors: requested (field 8, else 5) or allocated (field 5, else 8)")
	fs.String(&f.conf, "conf=FILE", "", "simulate on this slurm.conf instead of the preset cluster")
	fs.String(&f.topo, "topology=FILE", "", "topology.conf for --conf")
	fs.String(&f.policy, "policy=NAME", "fcfs", "fcfs, sjf, ljf, multifactor, auction (AUCSCHED3 on each window) or auction+reserve (with a reservation for the window's head, not in seed 001)")
	fs.Optional("backfill", "MODE", "backfill after every pass: bare --backfill is conservative; --backfill=easy|conservative|none", f.backfill.Set)
	fs.String(&f.compare, "compare=LIST", "", "run each workload under several policies, e.g. fcfs,backfill or fcfs,easy,conservative,sjf+easy")
	fs.Bool(&f.both, "both", "the same as --compare fcfs,backfill (with --policy for both)")
	fs.Int(&f.depth, "depth", 0, "jobs each backfill pass plans (100 when 0, -1 for all)")
	fs.Uint64(&f.seed, "seed", 1, "seed of the generated workloads")
	fs.Duration(&f.interval, "interval", 0, "an extra scheduling pass every interval of virtual time (0 for none, else at least 1s)")
	fs.Int(&f.limit, "limit", 0, "replay only the first N jobs (0 for all)")
	fs.Bool(&f.asCSV, "csv", "print CSV")
	fs.Bool(&f.asJSON, "json", "print JSON")
	fs.String(&f.svg, "svg=FILE", "", "write the charts of a single run to this SVG file")
	fs.String(&f.out, "out=DIR", "", "write one SVG per run, comparison.svg, results.json and results.csv into this directory")
	fs.Bool(&f.force, "force", "overwrite files that --out or --svg would write")
	fs.Bool(&f.quiet, "q,quiet", "no progress bar")
	fs.String(&f.ledgerPath, "ledger=FILE", "", "an allocation ledger (JSON: projects, credits, users) every start must pay for")
	if err := fs.NoOperands(args, stdout); err != nil {
		return nil, err
	}
	switch {
	case f.depth < -1:
		return nil, usagef("simulate: --depth %d: want -1 (all), 0 (100) or a positive count", f.depth)
	case f.limit < 0:
		return nil, usagef("simulate: --limit %d: want 0 (all) or a positive count", f.limit)
	case f.asCSV && f.asJSON:
		return nil, usagef("simulate: --csv and --json exclude each other")
	case f.interval < 0 || (f.interval > 0 && f.interval < sim.MinInterval):
		return nil, usagef("simulate: --interval %v: want 0 (none) or at least %v", f.interval, sim.MinInterval)
	}
	if _, err := f.conventions(); err != nil {
		return nil, err
	}
	if f.ledgerPath != "" {
		lf, err := readLedgerFile(f.ledgerPath)
		if err != nil {
			return nil, err
		}
		f.ledger = lf
	}
	return f, nil
}

// conventions reads --estimate and --procs.
func (f *simFlags) conventions() (sim.Conventions, error) {
	var conv sim.Conventions
	switch f.estimate {
	case "requested":
	case "exact":
		conv.Estimate = sim.ExactRunTime
	default:
		return conv, usagef("simulate: --estimate %q: want requested or exact", f.estimate)
	}
	switch f.procs {
	case "requested":
	case "allocated":
		conv.Processors = sim.AllocatedProcs
	default:
		return conv, usagef("simulate: --procs %q: want requested or allocated", f.procs)
	}
	return conv, nil
}

// variants are the policy and backfill pairs to run.
func (f *simFlags) variants() ([]variant, error) {
	if _, err := parsePolicy(f.policy); err != nil {
		return nil, err
	}
	spec := f.compare
	if spec == "" && f.both {
		spec = f.policy + "," + f.policy + "+conservative"
	}
	if spec == "" {
		return []variant{{f.policy, f.backfill.mode}}, nil
	}
	var out []variant
	for _, item := range strings.Split(spec, ",") {
		pol, bf := splitVariant(item)
		if m, err := sim.ParseBackfillMode(pol); err == nil || pol == "backfill" {
			pol, bf = f.policy, pol // "backfill", "easy": the --policy with that backfill
			if err == nil {
				bf = m.String()
			}
		}
		v := variant{policy: pol}
		switch bf {
		case "":
		case "backfill":
			v.backfill = sim.Conservative
		default:
			m, err := sim.ParseBackfillMode(bf)
			if err != nil {
				return nil, usagef("simulate: --compare %q: %v", item, err)
			}
			v.backfill = m
		}
		if _, err := parsePolicy(v.policy); err != nil {
			return nil, usagef("%v; a --compare item is POLICY[+BACKFILL] or a backfill mode alone "+
				"(backfill, easy, conservative, none), as fcfs,easy,sjf+conservative,%s", err, auctionReserve)
		}
		out = append(out, v)
	}
	return out, nil
}

// workloads expands "aucsched:1,2,3" to aucsched:1, aucsched:2, aucsched:3;
// other items are trace paths.
func workloads(spec string) []string {
	var out []string
	generated := false
	for _, item := range strings.Split(spec, ",") {
		item = strings.TrimSpace(item)
		switch {
		case item == "":
		case strings.HasPrefix(item, "aucsched:"):
			generated = true
			out = append(out, item)
		case generated && !strings.ContainsAny(item, "/.") && len(item) <= 2:
			out = append(out, "aucsched:"+item)
		default:
			generated = false
			out = append(out, item)
		}
	}
	return out
}

func simulate(args []string, stdout, stderr io.Writer) error {
	if os.Getenv("GOGC") == "" {
		// A replay is a short batch job whose heap is mostly short-lived
		// selection scratch: collecting four times less often cuts its
		// time by about a fifth for some 200 MB more (BENCHMARKS.md). A
		// GOGC in the environment wins.
		defer debug.SetGCPercent(debug.SetGCPercent(400))
	}
	f, err := parseSimFlags(args, stdout)
	if err != nil {
		return err
	}
	vs, err := f.variants()
	if err != nil {
		return err
	}
	wls := workloads(f.workload)
	if len(wls) == 0 {
		return usagef("simulate: --workload is empty")
	}
	if f.svg != "" && len(wls)*len(vs) > 1 {
		return usagef("simulate: --svg draws one run; use --out DIR for %d runs", len(wls)*len(vs))
	}
	var rows []row
	var results []*sim.Result
	for _, wl := range wls {
		for _, v := range vs {
			res, r, err := f.runOne(wl, v, stderr)
			if err != nil {
				return err
			}
			rows, results = append(rows, r), append(results, res)
		}
	}
	if err := f.writeFiles(results, rows); err != nil {
		return err
	}
	return f.print(stdout, stderr, rows)
}

// runOne loads a workload and replays it under one variant.
func (f *simFlags) runOne(wl string, v variant, stderr io.Writer) (*sim.Result, row, error) {
	c, w, name, err := load(wl, f)
	if err != nil {
		return nil, row{}, err
	}
	if f.limit > 0 && f.limit < len(w.Jobs) {
		w.Jobs = w.Jobs[:f.limit]
	}
	policy, _ := parsePolicy(v.policy)
	opts := sim.Options{Backfill: v.backfill, Policy: policy, BackfillDepth: f.depth, Interval: f.interval,
		Record: f.svg != "" || f.out != "", Cluster: name}
	if pl := auctionFor(v.policy); pl != nil {
		opts.Planner, opts.Window = pl, auctionWindow
	}
	var ledger *simLedger
	if f.ledger != nil {
		var opt queue.Option
		if ledger, opt, err = f.ledger.newLedger(c); err != nil {
			return nil, row{}, err
		}
		opts.Queue = append(opts.Queue, opt)
	}
	bar := !f.quiet && isTerminal(stderr)
	start := time.Now()
	if bar {
		opts.Progress = progressBar(stderr, w.Name+" "+v.String(), start)
	}
	res, err := sim.Run(c, w, opts)
	if bar {
		fmt.Fprint(stderr, "\r\033[K")
	}
	if err != nil {
		return nil, row{}, err
	}
	res.Policy = strings.ToUpper(v.policy)
	r := toRow(res, w, time.Since(start))
	if ledger != nil {
		r.Ledger = ledger.report()
	}
	return res, r, nil
}

func (v variant) String() string {
	if v.backfill == sim.NoBackfill {
		return v.policy
	}
	return v.policy + "+" + v.backfill.String()
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
	case "auction", auctionReserve: // FCFS priorities; the auction planner decides each window
		return queue.FCFS{}, nil
	}
	return nil, usagef("simulate: unknown policy %q (fcfs, sjf, ljf, multifactor, auction, %s)", name, auctionReserve)
}

// confCluster builds the --conf cluster, or returns nil without --conf.
func confCluster(f *simFlags) (*selectnodes.Cluster, error) {
	if f.conf == "" {
		return nil, nil
	}
	cfg, err := readConf(f.conf)
	if err != nil {
		return nil, usagef("%v", err)
	}
	var opts []selectnodes.Option
	if f.topo != "" {
		opt, err := topologyOption(f.topo)
		if err != nil {
			return nil, err
		}
		opts = append(opts, opt)
	}
	c, err := selectnodes.FromConfig(cfg, opts...)
	if err != nil {
		return nil, usagef("%v", err)
	}
	return c, nil
}

// load builds the cluster and the workload, and names the cluster.
func load(workload string, f *simFlags) (*selectnodes.Cluster, *sim.Workload, string, error) {
	c, err := confCluster(f)
	if err != nil {
		return nil, nil, "", err
	}
	name := filepath.Base(f.conf)
	if id, ok := strings.CutPrefix(workload, "aucsched:"); ok {
		if c == nil {
			if c, err = selectnodes.Seed001(); err != nil {
				return nil, nil, "", err
			}
			name = "the seed-001 1024-node tree"
		}
		cores := 0
		for i := 0; i < c.NodeCount(); i++ {
			cores = max(cores, c.Node(i).CPUs)
		}
		w, err := sim.Generate(id, c.NodeCount(), cores, f.seed)
		if err != nil {
			return nil, nil, "", usagef("%v", err)
		}
		return c, w, name, nil
	}
	abs, err := filepath.Abs(workload)
	if err != nil {
		return nil, nil, "", usagef("%v", err)
	}
	tr, err := sim.OpenSWF(os.DirFS(filepath.Dir(abs)), filepath.Base(abs), sim.SWFOptions{})
	if err != nil {
		return nil, nil, "", usagef("%s: %v", workload, err)
	}
	if c == nil {
		if c, name, err = traceCluster(tr, f); err != nil {
			return nil, nil, "", err
		}
	}
	conv, _ := f.conventions() // checked with the flags
	return c, tr.WorkloadWith(traceName(workload), c, conv), name, nil
}

// traceCluster sizes a cluster from --machines or the trace's header.
func traceCluster(tr *sim.Trace, f *simFlags) (*selectnodes.Cluster, string, error) {
	var ms []sim.Machine
	cpus := max(1, tr.MaxProcs/max(1, tr.MaxNodes))
	name := fmt.Sprintf("%d nodes of %d CPU%s (trace header)", tr.MaxNodes, cpus, map[bool]string{true: "s"}[cpus > 1])
	if tr.Computer != "" {
		name = tr.Computer + ", " + name
	}
	if f.machines != "" {
		file, err := os.Open(f.machines)
		if err != nil {
			return nil, "", usagef("%v", err)
		}
		ms, err = sim.ReadMachines(file)
		file.Close()
		if err != nil {
			return nil, "", usagef("%s: %v", f.machines, err)
		}
		name = filepath.Base(f.machines)
	}
	var feats []string
	if f.extra != "" {
		feats = strings.Split(f.extra, ",")
	}
	c, err := tr.ClusterFor(ms, feats)
	if err != nil {
		return nil, "", usagef("%v", err)
	}
	return c, name, nil
}

// traceName is a trace's file name without its extensions.
func traceName(path string) string {
	base := filepath.Base(path)
	base = strings.TrimSuffix(base, ".gz")
	return strings.TrimSuffix(base, ".swf")
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// progressBar draws jobs done, virtual time and an ETA, at most ten
// times a second.
func progressBar(w io.Writer, name string, start time.Time) func(done, total int, now time.Duration) {
	var last time.Time
	return func(done, total int, now time.Duration) {
		if t := time.Now(); t.Sub(last) < 100*time.Millisecond && done < total {
			return
		} else {
			last = t
		}
		const width = 30
		n := width * done / max(total, 1)
		eta := "?"
		if done > 0 {
			el := time.Since(start)
			eta = (time.Duration(float64(el) * float64(total-done) / float64(done))).Round(time.Second).String()
		}
		fmt.Fprintf(w, "\r%s [%s%s] %d/%d jobs, virtual time %s, ETA %s\033[K", name, strings.Repeat("#", n),
			strings.Repeat(".", width-n), done, total, now.Round(time.Second), eta)
	}
}
