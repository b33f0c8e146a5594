package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime/debug"
	"runtime/metrics"
	"slices"
	"strings"
	"time"

	"github.com/hpcsched/hpcsched/queue"
	"github.com/hpcsched/hpcsched/selectnodes"
	"github.com/hpcsched/hpcsched/sim"
)

// backfillFlag is --backfill: bare, it means conservative backfill (what
// Slurm's backfill plugin does for the jobs it tests); --backfill=easy,
// --backfill=conservative or --backfill=none choose.
type backfillFlag struct {
	mode sim.BackfillMode
	set  bool // given: --compare and --both would ignore it
}

func (b *backfillFlag) Set(s string) error {
	b.set = true
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
	estimate, procs, ledgerPath, jobs, seedList, qos                 string
	ledger                                                           *ledgerFile
	backfill                                                         backfillFlag
	both, asCSV, asJSON, quiet, force, timing                        bool
	progress                                                         bool
	depth, limit, runs, parallel                                     int
	seeds                                                            []uint64
	seed                                                             uint64
	interval                                                         time.Duration
	// runner replays one cell: runOne, or a stand-in in tests.
	runner func(cl cell, progress func(done, total int, now time.Duration)) (*sim.Result, row, error)
}

// simulateNotes end simulate's usage text.
const simulateNotes = `A run that fails (a trace line found bad half way, an error of the
auction) does not stop the others: every run runs, and the rows of those
that ended are printed (table, --csv, --json) and written (--out, --jobs)
as they would be without it; a row over --seeds is left out when one of
its seeds failed. Each failed run is then named on stderr, and the exit
code is 1. When every run failed, nothing is printed and the exit code
is 2, as for one run. -j N prints and writes the same bytes as -j 1.

--grid A.conf,B.conf,... replays the workload on several clusters as one
federation, beside a run pinned to one member each job; it has flags of
its own: hpcsched simulate --grid --help.

Examples, from the repository's root (../shared holds the traces):

  hpcsched simulate --workload aucsched:6 --backfill
  hpcsched simulate --workload aucsched:1 --compare fcfs,backfill,easy -q
  hpcsched simulate --workload ../shared/data/traces/KTH-SP2-1996-2.1-cln.swf --backfill=easy --limit 2000
`

func parseSimFlags(args []string, stdout io.Writer) (*simFlags, error) {
	f := &simFlags{}
	fs := newFlagSet("simulate", "[flags]")
	fs.notes = simulateNotes
	fs.String(&f.workload, "workload=SPEC", "aucsched:6", "aucsched:ID[,ID...] (1-6, 5', 6') or SWF trace paths (.swf or .swf.gz), comma-separated")
	fs.String(&f.machines, "machines=FILE", "", "an Alea .machines file sizing the cluster for an SWF trace")
	fs.String(&f.extra, "features=LIST", "", "features every node of an SWF cluster has besides those read from the trace, comma-separated")
	fs.String(&f.estimate, "estimate=requested|exact", "requested", "an SWF job's time limit: requested (field 9; killed at it) or exact (its run time)")
	fs.String(&f.procs, "procs=requested|allocated", "requested", "an SWF job's processors: requested (field 8, else 5) or allocated (field 5, else 8)")
	fs.String(&f.conf, "conf=FILE", "", "simulate on this slurm.conf instead of the preset cluster")
	fs.String(&f.topo, "topology=FILE", "", "topology.conf for --conf")
	fs.String(&f.qos, "qos=NAME", "", "the QOS every job is submitted with, which partitions' AllowQOS and DenyQOS judge (without it: normal, Slurm's default QOS)")
	fs.String(&f.policy, "policy=NAME", "fcfs", "fcfs, sjf, ljf, multifactor, auction (AUCSCHED3 on each window) or auction+reserve (with a reservation for the window's head, not in the AUCSCHED3 paper)")
	fs.Optional("backfill", "MODE", "backfill after every pass: bare --backfill is conservative; --backfill=easy|conservative|none", f.backfill.Set)
	fs.String(&f.compare, "compare=LIST", "", "run each workload under several policies, e.g. fcfs,backfill or fcfs,easy,conservative,sjf+easy")
	fs.Bool(&f.both, "both", "the same as --compare fcfs,backfill (with --policy for both)")
	fs.Int(&f.depth, "depth", 0, "jobs each backfill pass plans (100 when 0, -1 for all)")
	fs.Uint64(&f.seed, "seed", 1, "seed of the generated workloads")
	fs.String(&f.seedList, "seeds=LIST", "", "run each generated workload under each of these seeds (1-7, or 1,3,5) and print the mean ± standard deviation over them")
	fs.Int(&f.parallel, "j,jobs-parallel", 1, "independent runs at once (the output is the same as with -j 1)")
	fs.Duration(&f.interval, "interval", 0, "an extra scheduling pass every interval of virtual time (0 for none, else at least 1s)")
	fs.Int(&f.limit, "limit", 0, "replay only the first N jobs (0 for all): a generated workload's, or a trace's first N jobs kept, in line order (the jobs it leaves out do not count)")
	fs.Bool(&f.asCSV, "csv", "print CSV")
	fs.Bool(&f.asJSON, "json", "print JSON")
	fs.String(&f.svg, "svg=FILE", "", "write the charts of a single run to this SVG file")
	fs.String(&f.out, "out=DIR", "", "write one SVG per run, comparison.svg, results.json and results.csv into this directory")
	fs.String(&f.jobs, "jobs=FILE", "", "write every job's record to FILE.csv (id, submit, start, end, nodes, cores, wait, bounded slowdown, end) or FILE.swf (the SWF with the simulated wait, run time, CPUs, status and partition; from a trace, every other field as the trace had it, its average CPU time and used memory only for a job that ran its whole run time); with several runs, one file each, named after the run")
	fs.Bool(&f.force, "force", "overwrite files that --out, --svg or --jobs would write (never an input of the run)")
	fs.Bool(&f.quiet, "q,quiet", "no progress on stderr")
	fs.Bool(&f.progress, "progress", "report each run on stderr as it ends even when stderr is not a terminal (on a terminal, progress is shown unless -q)")
	fs.Bool(&f.timing, "timing", "add the wall-clock time and jobs per second to each row (without it, identical runs print identical bytes)")
	fs.String(&f.ledgerPath, "ledger=FILE", "", "an allocation ledger (JSON: projects, credits, users) every start must pay for")
	if err := fs.NoOperands(args, stdout); err != nil {
		return nil, err
	}
	switch {
	case f.depth < -1:
		return nil, usagef("simulate: --depth %d: want -1 (all), 0 (100) or a positive count", f.depth)
	case f.limit < 0:
		return nil, usagef("simulate: --limit %d: want 0 (all) or a positive count", f.limit)
	case f.parallel < 1:
		return nil, usagef("simulate: -j %d: want at least 1", f.parallel)
	case f.asCSV && f.asJSON:
		return nil, usagef("simulate: --csv and --json exclude each other")
	case f.quiet && f.progress:
		return nil, usagef("simulate: --quiet and --progress exclude each other")
	case f.interval < 0 || (f.interval > 0 && f.interval < sim.MinInterval):
		return nil, usagef("simulate: --interval %v: want 0 (none) or at least %v", f.interval, sim.MinInterval)
	case strings.ContainsAny(f.qos, ", \t\n"):
		return nil, usagef("simulate: --qos %q: want one QOS name", f.qos)
	}
	if err := f.unusedFlags(); err != nil {
		return nil, err
	}
	if _, err := f.conventions(); err != nil {
		return nil, err
	}
	f.seeds = []uint64{f.seed}
	if f.seedList != "" {
		seeds, err := parseSeeds(f.seedList)
		if err != nil {
			return nil, err
		}
		f.seeds = seeds
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

// unusedFlags refuses flags the other flags make meaningless, which
// would otherwise be ignored without a word.
func (f *simFlags) unusedFlags() error {
	generated, traced := false, false
	for _, w := range workloads(f.workload) {
		generated = generated || strings.HasPrefix(w, "aucsched:")
		traced = traced || !strings.HasPrefix(w, "aucsched:")
	}
	switch {
	case !traced && (f.machines != "" || f.extra != ""):
		return usagef("simulate: --machines and --features make an SWF trace's cluster, and --workload has no trace (a generated workload runs on the AUCSCHED3 paper's cluster, or --conf's)")
	case !traced && (f.estimate != "requested" || f.procs != "requested"):
		return usagef("simulate: --estimate and --procs read an SWF trace's fields, and --workload has no trace")
	case f.topo != "" && f.conf == "":
		return usagef("simulate: --topology is the topology.conf of a --conf cluster; give --conf too")
	case f.conf != "" && (f.machines != "" || f.extra != ""):
		return usagef("simulate: --machines and --features make an SWF trace's cluster; --conf gives the cluster")
	case f.both && f.compare != "":
		return usagef("simulate: --both is --compare %s,%s+conservative; give one of them", f.policy, f.policy)
	case f.backfill.set && (f.compare != "" || f.both):
		return usagef("simulate: --backfill is the backfill of a single run; --compare and --both give each run's (%s+easy, or easy alone)", f.policy)
	case f.seedList != "" && !generated:
		return usagef("simulate: --seeds %s: the seeds are the generated workloads' (aucsched:ID), and --workload has none", f.seedList)
	}
	return nil
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
		if strings.TrimSpace(item) == "" {
			return nil, usagef("simulate: --compare %q: an empty item (want POLICY[+BACKFILL] items, comma-separated)", spec)
		}
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
		// time by about a fifth (BENCHMARKS.md). A GOGC in the
		// environment wins. The heap may then grow to five times what is
		// live, so a soft limit (memTuner) caps it.
		defer debug.SetGCPercent(debug.SetGCPercent(400))
		if os.Getenv("GOMEMLIMIT") == "" {
			defer debug.SetMemoryLimit(debug.SetMemoryLimit(minHeapLimit))
		}
	}
	f, err := parseSimFlags(args, stdout)
	if err != nil {
		return err
	}
	return f.simulate(stdout, stderr)
}

// simulate runs the planned cells, printing each row as it is made.
func (f *simFlags) simulate(stdout, stderr io.Writer) error {
	cells, err := f.plan()
	if err != nil {
		return err
	}
	if err := f.checkInputs(cells); err != nil {
		return err
	}
	col := newCollector(f, cells, stdout)
	f.runCells(cells, col, newBoard(f, cells, stderr))
	return col.finish(stderr)
}

// plan checks the flags that combine and lists the runs, in output order.
func (f *simFlags) plan() ([]cell, error) {
	vs, err := f.variants()
	if err != nil {
		return nil, err
	}
	wls := workloads(f.workload)
	if len(wls) == 0 {
		return nil, usagef("simulate: --workload is empty")
	}
	for _, wl := range wls {
		// found here, not as its runs fail after the others ran
		if id, ok := strings.CutPrefix(wl, "aucsched:"); ok && !slices.Contains(sim.WorkloadIDs(), id) {
			return nil, usagef("simulate: --workload %s: unknown AUCSCHED3 workload %q (known: %s)", wl, id, strings.Join(sim.WorkloadIDs(), ", "))
		}
	}
	if f.svg != "" && len(wls)*len(vs) > 1 {
		return nil, usagef("simulate: --svg draws one run; use --out DIR for %d runs", len(wls)*len(vs))
	}
	cells := f.cells(wls, vs)
	f.runs = len(cells)
	return cells, nil
}

// report makes the rows of outcomes already known (a sweep's shards),
// writes --svg/--out and prints them, as a local run would.
func (f *simFlags) report(cells []cell, outs []cellOut, stdout, stderr io.Writer) error {
	col := newCollector(f, cells, stdout)
	for i, o := range outs {
		if !col.put(i, o) {
			break
		}
	}
	return col.finish(stderr)
}

// checkInputs finds, before any run, the mistakes that would otherwise
// end a long comparison late: a trace that cannot be opened, and an
// output file that exists without --force.
func (f *simFlags) checkInputs(cells []cell) error {
	if err := checkTraces(cells); err != nil {
		return err
	}
	if err := f.checkCluster(cells); err != nil {
		return err
	}
	if err := f.checkIntervalPasses(cells); err != nil {
		return err
	}
	return f.checkOutputs(cells)
}

// checkIntervalPasses refuses an --interval that a dynamic policy or the
// auction would turn into more than sim.MaxIntervalPasses passes over a
// trace's submissions. sim checks a workload it holds up front, but a
// trace read as it goes only when the run gets there: a minute and more
// into it, for KTH-SP2 under the auction every second.
func (f *simFlags) checkIntervalPasses(cells []cell) error {
	if f.interval <= 0 {
		return nil
	}
	spans := map[string]time.Duration{}
	for _, c := range cells {
		pol, _ := parsePolicy(c.variant.policy)
		if c.seeded || (!pol.Dynamic() && auctionFor(c.variant.policy) == nil) {
			continue // generated workloads are submitted at once
		}
		span, seen := spans[c.workload]
		if !seen {
			span = traceSpan(c.workload, f.limit)
			spans[c.workload] = span
		}
		if span/f.interval > sim.MaxIntervalPasses {
			return usagef("simulate: --interval %v over the %v of %s's submissions is more than %d passes (sim.MaxIntervalPasses) under %s; use a longer one",
				f.interval, span, c.workload, sim.MaxIntervalPasses, c.variant.policy)
		}
	}
	return nil
}

// traceSpan is the time from a trace's first submission to its last
// (among the first limit jobs the replay keeps when limit > 0), 0 when it cannot be read
// here (the run will say why) or is not a regular file (a pipe is read
// once, by the run).
func traceSpan(path string, limit int) time.Duration {
	if st, err := os.Stat(path); err != nil || !st.Mode().IsRegular() {
		return 0
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return 0
	}
	r, closer, err := sim.OpenSWFReader(os.DirFS(filepath.Dir(abs)), filepath.Base(abs), sim.SWFOptions{})
	if err != nil {
		return 0
	}
	defer closer.Close()
	var first, last time.Duration
	for n := 0; limit <= 0 || n < limit; {
		j, err := r.Next()
		if err != nil {
			break
		}
		if j.Run < 0 || (j.Status == 5 && j.Run == 0) {
			continue // left out of the replay (sim's Trace.WorkloadWith), so not counted by --limit
		}
		if n++; n == 1 || j.Submit < first {
			first = j.Submit
		}
		last = max(last, j.Submit)
	}
	return last - first
}

// checkTraces checks that every trace is a file, or a pipe or device
// that only one run reads.
func checkTraces(cells []cell) error {
	runs := map[string]int{}
	for _, c := range cells {
		runs[c.workload]++
	}
	for _, c := range cells {
		if c.seeded {
			continue
		}
		st, err := os.Stat(c.workload)
		switch {
		case err != nil && c.workload == "-":
			return usagef("simulate: --workload -: a trace on stdin is --workload /dev/stdin")
		case err != nil:
			return usagef("simulate: --workload: %v", err)
		case st.IsDir():
			return usagef("simulate: --workload %s is a directory", c.workload)
		case !st.Mode().IsRegular() && runs[c.workload] > 1:
			// a pipe or a device is read once: the second run would see nothing
			return usagef("simulate: --workload %s is not a file and can be read once, not for %d runs; save it to a file first",
				c.workload, runs[c.workload])
		}
	}
	return nil
}

// jobsFile is cell c's --jobs file: the one named when there is one run,
// else with the run's name (and seed) before the extension.
func (f *simFlags) jobsFile(c cell) string {
	path := jobsPath(f.jobs, &sim.Result{Workload: cellName(c.workload), Policy: strings.ToUpper(c.variant.policy), Backfill: c.variant.backfill}, f.runs)
	if c.seeded && len(f.seeds) > 1 {
		ext := filepath.Ext(path)
		path = fmt.Sprintf("%s-seed%d%s", strings.TrimSuffix(path, ext), c.seed, ext)
	}
	return path
}

// runOne loads a workload and replays it under one variant; progress,
// when not nil, hears how the replay goes.
func (f *simFlags) runOne(cl cell, progress func(done, total int, now time.Duration)) (_ *sim.Result, _ row, err error) {
	wl, v := cl.workload, cl.variant
	ld, err := load(wl, cl.seed, f)
	if err != nil {
		return nil, row{}, err
	}
	defer ld.close()
	policy, _ := parsePolicy(v.policy)
	opts := sim.Options{Backfill: v.backfill, Policy: policy, BackfillDepth: f.depth, Interval: f.interval,
		Record: (f.svg != "" || f.out != "") && cl.first, Cluster: ld.cluster, QOS: f.qos}
	if pl := auctionFor(v.policy); pl != nil {
		opts.Planner, opts.Window = pl, auctionWindow
	}
	if f.jobs != "" {
		// not "jw, err :=": the deferred close below must set the
		// function's err, not a shadow of it
		jw, jerr := newJobsWriter(f.jobsFile(cl), ld.c, f.force)
		if jerr != nil {
			return nil, row{}, jerr
		}
		jw.header(ld.name+" "+v.String(), ld.header)
		opts.OnRecord, opts.Epoch = jw.add, jw.epoch
		defer func() { err = jw.finish(err) }()
	}
	var ledger *simLedger
	if f.ledger != nil {
		var opt queue.Option
		if ledger, opt, err = f.ledger.newLedger(ld.c); err != nil {
			return nil, row{}, err
		}
		opts.Queue = append(opts.Queue, opt)
	}
	start := time.Now()
	floor := int64(minHeapLimit)
	if opts.Planner != nil {
		floor = auctionHeapLimit
	}
	tune := memTuner(floor)
	opts.Progress = func(done, total int, now time.Duration) { tune(done) }
	if progress != nil {
		opts.Progress = func(done, total int, now time.Duration) { tune(done); progress(done, total, now) }
	}
	res, err := sim.RunSource(ld.c, ld.name, ld.src, opts)
	if err != nil {
		// a line found bad, or out of order, is named with its trace
		if se := (*sim.SWFError)(nil); (errors.As(err, &se) || errors.Is(err, sim.ErrOrder)) && ld.path != "" {
			err = fmt.Errorf("%s: %w", ld.path, err)
		}
		return nil, row{}, err
	}
	res.Policy = strings.ToUpper(v.policy)
	r := toRow(res, ld.skipped(), time.Since(start))
	if !f.timing {
		r.WallSeconds, r.JobsPerSecond = 0, 0
	}
	if cl.seeded {
		r.Seed = cl.seed
	}
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
	switch {
	case c.NodeCount() == 0:
		// a topology.conf or a gres.conf given as --conf: every job
		// would be counted as never able to run
		return nil, usagef("simulate: --conf %s defines no node (no NodeName line): is it a slurm.conf?", f.conf)
	case c.PartitionCount() == 0:
		return nil, usagef("simulate: --conf %s defines no partition (no PartitionName line), so no job could run: is it the whole slurm.conf?", f.conf)
	}
	if t := c.Topology(); f.topo != "" && (t == nil || t.Covered().None()) {
		// another site's topology.conf: no node under a switch, so no
		// job could run, each rejected as if too large
		return nil, usagef("simulate: --topology %s names none of the nodes of --conf %s", f.topo, f.conf)
	}
	return c, nil
}

// loaded is a workload ready to replay: its cluster, and its jobs as a
// source read as the replay goes.
type loaded struct {
	c             *selectnodes.Cluster
	cluster, name string
	src           sim.Source
	skipped       func() map[string]int
	close         func()
	// path is the trace a streamed source reads, so that a line found bad
	// mid-replay is named as one found at the start is
	path string
	// header is a trace's header, without jobs (nil for a generated
	// workload): --jobs FILE.swf gives back its queues and start time
	header *sim.Trace
}

// load builds the cluster and the workload, and names the cluster. A
// standard SWF trace is read one job at a time as the replay submits it;
// an extended one (whose jobs' PBS specs name the node properties the
// cluster must have) is read whole first.
func load(workload string, seed uint64, f *simFlags) (*loaded, error) {
	c, err := confCluster(f)
	if err != nil {
		return nil, err
	}
	ld := &loaded{c: c, cluster: filepath.Base(f.conf), close: func() {}}
	if id, ok := strings.CutPrefix(workload, "aucsched:"); ok {
		return ld, ld.generated(id, seed, f)
	}
	abs, err := filepath.Abs(workload)
	if err != nil {
		return nil, usagef("%v", err)
	}
	fsys, base := os.DirFS(filepath.Dir(abs)), filepath.Base(abs)
	// an SWF of the jobs gives back what the replay does not decide: each
	// job carries its line until its record is written
	so := sim.SWFOptions{KeepFields: strings.EqualFold(filepath.Ext(f.jobs), ".swf")}
	sr, closer, err := sim.OpenSWFReader(fsys, base, so)
	if err != nil {
		return nil, usagef("%s: %v", workload, withoutPath(err))
	}
	conv, _ := f.conventions() // checked with the flags
	ld.name, ld.header = traceName(workload), sr.Header()
	if sr.Extended() {
		closer.Close()
		tr, err := sim.OpenSWF(fsys, base, so)
		if err != nil {
			return nil, usagef("%s: %v", workload, withoutPath(err))
		}
		ld.header = headerOf(tr)
		if ld.c == nil {
			if ld.c, ld.cluster, err = traceCluster(tr, f, workload); err != nil {
				return nil, err
			}
		}
		ld.setWorkload(tr.WorkloadFirst(ld.name, ld.c, conv, f.limit), f.limit)
		return ld, nil
	}
	ld.close = func() { closer.Close() }
	if ld.c == nil {
		if ld.c, ld.cluster, err = traceCluster(sr.Header(), f, workload); err != nil {
			ld.close()
			return nil, err
		}
	}
	ts := sim.NewTraceSource(sr, ld.c, conv, f.limit)
	ld.src, ld.skipped, ld.path = ts, ts.Skipped, workload
	return ld, nil
}

// headerOf is tr's header without its jobs (which a replay of the whole
// trace does not keep).
func headerOf(tr *sim.Trace) *sim.Trace {
	h := *tr
	h.Jobs = nil
	return &h
}

// generated builds the AUCSCHED3 paper's workload id for the cluster (the paper's
// 1024-node tree unless --conf).
func (ld *loaded) generated(id string, seed uint64, f *simFlags) error {
	if ld.c == nil {
		c, err := selectnodes.Seed001()
		if err != nil {
			return err
		}
		ld.c, ld.cluster = c, "the AUCSCHED3 paper's 1024-node tree"
	}
	cores := 0
	for i := 0; i < ld.c.NodeCount(); i++ {
		cores = max(cores, ld.c.Node(i).CPUs)
	}
	w, err := sim.Generate(id, ld.c.NodeCount(), cores, seed)
	if err != nil {
		return usagef("%v", err)
	}
	ld.name = w.Name
	ld.setWorkload(w, f.limit)
	return nil
}

// setWorkload replays w, or its first limit jobs.
func (ld *loaded) setWorkload(w *sim.Workload, limit int) {
	if limit > 0 && limit < len(w.Jobs) {
		w.Jobs = w.Jobs[:limit]
	}
	ld.name, ld.src = w.Name, w.Source()
	ld.skipped = func() map[string]int { return w.Skipped }
}

// readMachines reads --machines (none without it) and names the cluster
// after the file.
func (f *simFlags) readMachines() ([]sim.Machine, string, error) {
	if f.machines == "" {
		return nil, "", nil
	}
	file, err := os.Open(f.machines)
	if err != nil {
		return nil, "", usagef("simulate: --machines: %v", err)
	}
	ms, err := sim.ReadMachines(file)
	file.Close()
	if err != nil {
		return nil, "", usagef("%s: %v", f.machines, err)
	}
	if len(ms) == 0 {
		// ClusterFor would size the cluster from the header, under
		// the file's name
		return nil, "", usagef("simulate: --machines %s: no machine in it", f.machines)
	}
	return ms, filepath.Base(f.machines), nil
}

// checkCluster reads --conf (with --topology) and --machines once before
// several runs, each of which reads them again: a mistake in them is
// one error, not one per run. A single run reads them once anyway (and
// may read them from a pipe).
func (f *simFlags) checkCluster(cells []cell) error {
	if len(cells) < 2 {
		return nil
	}
	if _, err := confCluster(f); err != nil {
		return err
	}
	_, _, err := f.readMachines()
	return err
}

// traceCluster sizes a cluster from --machines or the header of the trace
// at path.
func traceCluster(tr *sim.Trace, f *simFlags, path string) (*selectnodes.Cluster, string, error) {
	ms, name, err := f.readMachines()
	if err != nil {
		return nil, "", err
	}
	var feats []string
	for _, feat := range strings.Split(f.extra, ",") {
		// " b" would never match a job's "b"; "" is no feature
		if feat = strings.TrimSpace(feat); feat != "" {
			feats = append(feats, feat)
		}
	}
	c, err := tr.ClusterFor(ms, feats)
	if errors.Is(err, sim.ErrNoClusterSize) {
		return nil, "", noClusterSize(path)
	}
	if err != nil && len(ms) == 0 {
		// the header sized it: say whose header
		return nil, "", usagef("simulate: %s: %v", path, err)
	} else if err != nil {
		return nil, "", usagef("simulate: --machines %s: %v", f.machines, err)
	}
	if name == "" {
		name = headerClusterName(c, tr.Computer)
	}
	return c, name, nil
}

// noClusterSize says how to size the cluster for a trace whose header does
// not, naming the .machines file beside it when there is one (Alea ships
// "X.swf.machines" beside "X.swf" and "X.swf.gz").
func noClusterSize(path string) error {
	msg := fmt.Sprintf("simulate: %s: %v: pass --machines FILE (an Alea .machines file) or --conf slurm.conf", path, sim.ErrNoClusterSize)
	for _, m := range []string{path + ".machines", strings.TrimSuffix(path, ".gz") + ".machines"} {
		if st, err := os.Stat(m); err == nil && st.Mode().IsRegular() {
			return usagef("%s; %s is beside it", msg, m)
		}
	}
	return usagef("%s", msg)
}

// headerClusterName names a cluster sized from a trace's header by what
// it has (the header's MaxNodes may be absent, and its MaxProcs not a
// multiple of it).
func headerClusterName(c *selectnodes.Cluster, computer string) string {
	lo, hi, total := c.Node(0).CPUs, 0, 0
	for i := range c.NodeCount() {
		n := c.Node(i).CPUs
		lo, hi, total = min(lo, n), max(hi, n), total+n
	}
	name := fmt.Sprintf("%d nodes of %d CPU%s (trace header)", c.NodeCount(), hi, map[bool]string{true: "s"}[hi > 1])
	if lo != hi {
		name = fmt.Sprintf("%d nodes of %d-%d CPUs, %d in all (trace header)", c.NodeCount(), lo, hi, total)
	}
	if computer != "" {
		name = computer + ", " + name
	}
	return name
}

// traceName is a trace's file name without its extensions.
func traceName(path string) string {
	base := filepath.Base(path)
	base = strings.TrimSuffix(base, ".gz")
	return strings.TrimSuffix(base, ".swf")
}

// minHeapLimit is the soft memory limit of a replay under GOGC=400 while
// little is live: a replay's live heap is the jobs queued and running
// (and the records asked for), a few MB, so collecting at 48 MiB costs
// little and keeps a long trace's peak below a plain-Python replay's.
const minHeapLimit = 48 << 20

// auctionHeapLimit is the floor for a replay with the auction planner,
// whose passes make and drop problems of many MB each: at 48 MiB the
// collector runs on nearly every pass, and 128 MiB takes about an eighth
// off the replay's CPU for about 80 MB more at its peak (BENCHMARKS.md).
const auctionHeapLimit = 128 << 20

// memTuner sets the soft memory limit to at least floor, then raises it to
// twice the live heap as that grows (records kept for charts, a huge
// queue), so GOGC=400 never turns into collecting without end; it reads
// the heap every 4,096 jobs. It only raises the limit, so cells run at
// once (-j) with other floors do not lower each other's.
func memTuner(floor int64) func(done int) {
	if os.Getenv("GOMEMLIMIT") != "" || os.Getenv("GOGC") != "" {
		return func(int) {}
	}
	raise := func(to int64) {
		if to > debug.SetMemoryLimit(-1) {
			debug.SetMemoryLimit(to)
		}
	}
	raise(floor)
	sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	last := 0
	return func(done int) {
		if done-last < 4096 {
			return
		}
		last = done
		metrics.Read(sample)
		if sample[0].Value.Kind() == metrics.KindUint64 {
			raise(max(floor, 2*int64(sample[0].Value.Uint64())))
		}
	}
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// withoutPath drops the file-system path of err (the base name inside the
// trace's folder) so that the message names the workload once, as the
// user wrote it.
func withoutPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
