package sim

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/bits-and-blooms/bitset"
	"github.com/hpcsched/hpcsched/queue"
	"github.com/hpcsched/hpcsched/selectnodes"
	"github.com/hpcsched/hpcsched/topology"
)

// BackfillMode says which backfill runs after every scheduling pass.
type BackfillMode int

const (
	// NoBackfill runs the scheduling pass (strict order per partition) only.
	NoBackfill BackfillMode = iota
	// Conservative is queue.Scheduler.Backfill: every job considered keeps
	// a reservation, so no start delays an earlier job (the Novotný thesis §1.2.1).
	Conservative
	// EASY is queue.EASY: only the queue head keeps a
	// reservation, as on the KTH SP2.
	EASY
)

// String is the mode's name as the CLI spells it.
func (m BackfillMode) String() string {
	switch m {
	case NoBackfill:
		return "none"
	case Conservative:
		return "conservative"
	case EASY:
		return "easy"
	}
	return fmt.Sprintf("BackfillMode(%d)", int(m))
}

// ParseBackfillMode reads "none", "conservative" or "easy".
func ParseBackfillMode(s string) (BackfillMode, error) {
	for _, m := range []BackfillMode{NoBackfill, Conservative, EASY} {
		if strings.EqualFold(s, m.String()) {
			return m, nil
		}
	}
	return 0, fmt.Errorf("sim: unknown backfill %q (none, conservative, easy): %w", s, ErrOption)
}

// MinInterval is the shortest Options.Interval: finer passes cost a pass
// per step of virtual time and can never change an FCFS decision.
const MinInterval = time.Second

// MaxIntervalPasses bounds the extra passes Options.Interval may add to a
// run with a dynamic policy or a planner (static policies skip passes that
// cannot change anything). Run checks it before starting, from the span of
// the submissions, and again as it goes.
const MaxIntervalPasses = 1_000_000

// ErrNoClusterSize is matched (errors.Is) by Trace.ClusterFor's error when
// it is given no machines and the trace's header gives neither MaxNodes nor
// MaxProcs (Alea's traces come with a .machines file instead).
var ErrNoClusterSize = errors.New("the trace header gives neither MaxNodes nor MaxProcs")

// ErrClusterInUse is matched (errors.Is) by the error of a run given a
// cluster that already holds allocations: jobs of a scheduler of the
// caller's, or of an earlier run that failed half way. The run could not
// end them, so its jobs would wait behind them for ever.
var ErrClusterInUse = errors.New("the cluster already holds allocations")

// ErrOption is matched (errors.Is) by the errors of invalid Options.
var ErrOption = errors.New("invalid option")

// Options steer a run.
type Options struct {
	Backfill BackfillMode
	// BackfillDepth is how many pending jobs each backfill pass plans
	// (Slurm's bf_max_job_test); 100 when 0, -1 for the whole queue.
	BackfillDepth int
	Policy        queue.Policy  // FCFS when nil
	Planner       queue.Planner // replaces the Schedule loop when set
	Window        int           // the planner's window (100 when 0)
	// Interval adds a scheduling pass every Interval of virtual time
	// (besides the pass after every batch of events); 0 for none, else
	// at least MinInterval.
	Interval time.Duration
	// Epoch is the virtual time of the workload's start (2000-01-01 UTC
	// when zero); it and every time of the run lie in the years
	// queue.MinYear to queue.MaxYear.
	Epoch time.Time
	// Progress, when set, is told how many jobs have started or were
	// rejected so far, how many the workload has (0 when unknown: a
	// Source read as it goes), and the virtual time.
	Progress func(done, total int, now time.Duration)
	// Queue holds further scheduler options, applied last (plugins such as
	// an allocation ledger's, a panic handler).
	Queue []queue.Option
	// Record keeps every job's record in the result (for charts), in
	// submit order.
	Record bool
	// OnRecord, when set, is given each job's final record as soon as it
	// is final: when the job ends, when the scheduler refuses it, or, for
	// jobs that never ended, at the end of the run. Records arrive in end
	// order; nothing is kept for it, and each record is the caller's.
	OnRecord func(Record)
	// Cluster names the cluster in the result (charts' titles); when
	// empty, "<nodes> nodes, <cores> cores".
	Cluster string
	// QOS is the QOS of every job that names none (a trace's jobs name
	// none). Partitions' AllowQOS and DenyQOS judge a job by it; when
	// empty the queue judges such a job as queue.DefaultQOS ("normal"),
	// which a site whose partitions allow only their own QOS refuses.
	QOS string

	everyPass bool // tests: make the passes full skips
}

func (o *Options) check() error {
	switch {
	case o.Backfill < NoBackfill || o.Backfill > EASY:
		return fmt.Errorf("sim: %v: %w", o.Backfill, ErrOption)
	case o.BackfillDepth < -1:
		return fmt.Errorf("sim: backfill depth %d (want -1 for all, 0 for 100, or a positive count): %w", o.BackfillDepth, ErrOption)
	case o.Interval < 0 || (o.Interval > 0 && o.Interval < MinInterval):
		return fmt.Errorf("sim: interval %v (want 0 for none or at least %v): %w", o.Interval, MinInterval, ErrOption)
	case o.Window < 0:
		return fmt.Errorf("sim: planner window %d: %w", o.Window, ErrOption)
	case !o.Epoch.IsZero() && queue.CheckTime(o.Epoch) != nil:
		// said up front, not as the first job's submission failing
		return fmt.Errorf("sim: epoch %v is outside the years %d to %d the queue takes: %w", o.Epoch, queue.MinYear, queue.MaxYear, ErrOption)
	}
	for i, q := range o.Queue {
		if q == nil {
			return fmt.Errorf("sim: Options.Queue[%d] is nil: %w", i, ErrOption)
		}
	}
	return nil
}

// Record is one job's life in a run.
type Record struct {
	// Seq is the job's place in the workload (0 for the first submitted).
	Seq int
	Job queue.JobID // 0 when the scheduler refused the job at submission
	// Name and User are the job's Spec's, Partition the partition its
	// request named ("" for the cluster's default); TimeLimit is the one
	// it ran under.
	Name, User    string
	Partition     string
	TimeLimit     time.Duration
	Submit, Start time.Time
	End           time.Time
	State         queue.State
	Nodes         []int // node indices
	CPUs          int   // allocated
	Cores         int   // requested (the AUCSCHED3 paper's utilization)
	// Level is the lowest-level common switch of the job's nodes (-1
	// without a switch tree or before it starts); Spread the distance
	// from its first node to its last (0 before it starts).
	Level, Spread int
	// SWF is the job's Job.SWF: its trace line's fields when the trace was
	// read under SWFOptions.KeepFields, else nil. Shared and immutable.
	SWF *SWFFields
}

// Result is a run's outcome, the caller's: nothing in it (Records and
// their Nodes, Unrunnable) is shared with the run, another result or the
// records Options.OnRecord was given, but a record's SWF fields, which
// are immutable.
type Result struct {
	Workload string
	Cluster  string
	Policy   string
	Backfill BackfillMode
	Jobs     int // submitted
	Rejected int // can never run here (see Unrunnable)
	Started  int
	Finished int // ended in any way after starting
	Timeouts int
	Stuck    int // still pending when nothing else could happen
	// StuckReasons counts the stuck jobs per queue reason
	// ("PartitionTimeLimit": over the partition's MaxTime, as Slurm
	// leaves such a job pending).
	StuckReasons map[string]int
	// Unrunnable counts the rejected jobs per reason ("more nodes than
	// the cluster has", "no node has the requested features", ...).
	Unrunnable map[string]int
	Metrics    Metrics
	Records    []Record
	// Nodes and Cores of the cluster, for charts.
	Nodes, Cores int

	skipped int // passes skipped on a full cluster (tests)
	fullRec int // of those, known full without a look at the nodes (tests)
}

type endEvent struct {
	at  time.Time
	id  queue.JobID
	out bool // false: killed at the time limit (Tick ends it)
}

// endHeap orders the end events by time, then job ID (both unique per
// event, so the order is total). Typed push and pop: container/heap's
// interface boxing cost an allocation per started job.
type endHeap []endEvent

func (h endHeap) less(i, j int) bool {
	// the times' seconds and nanoseconds compared in line (a replay's
	// times: elapsed.go), not by a call of Compare
	a, b := &h[i], &h[j]
	as, bs := a.at.Unix(), b.at.Unix()
	if as != bs {
		return as < bs
	}
	if an, bn := a.at.Nanosecond(), b.at.Nanosecond(); an != bn {
		return an < bn
	}
	return a.id < b.id
}

func (h *endHeap) push(e endEvent) {
	*h = append(*h, e)
	s := *h
	for i := len(s) - 1; i > 0; {
		up := (i - 1) / 2
		if !s.less(i, up) {
			break
		}
		s[i], s[up] = s[up], s[i]
		i = up
	}
}

func (h *endHeap) pop() endEvent {
	s := *h
	top, n := s[0], len(s)-1
	s[0] = s[n]
	s = s[:n]
	for i := 0; ; {
		m := 2*i + 1
		if m >= n {
			break
		}
		if r := m + 1; r < n && s.less(r, m) {
			m = r
		}
		if !s.less(m, i) {
			break
		}
		s[i], s[m] = s[m], s[i]
		i = m
	}
	*h = s
	return top
}

// runner is one run's state. It holds the jobs submitted and not ended
// (live), and the next job to submit; ended jobs leave the scheduler
// (queue.Scheduler.Forget) and the run at once, leaving their measures
// in acc (and their Record when asked).
type runner struct {
	o      Options
	c      *selectnodes.Cluster
	s      *queue.Scheduler
	easy   *queue.EASY
	ids    []queue.JobID // a pass's started jobs (EASY), reused
	src    Source
	total  int // jobs in the workload, 0 when unknown
	epoch  time.Time
	res    *Result
	tree   *topology.Tree
	live   liveJobs
	spare  []*liveJob // records of ended jobs, for the next submissions
	ends   endHeap
	next   Job       // the next job to submit, when have
	nextAt time.Time // its submit time (epoch + next.Submit)
	have   bool      // next holds a job
	seq    int       // jobs read so far
	last   time.Duration
	acc    accumulator
	recs   []Record
	pend   int // jobs pending
	nodes  int // the cluster's
	passes int // extra interval passes made
	// wakes are the Spec.Begin times of jobs submitted before them, in
	// order: a pass at each lets such a job start when nothing else
	// happens then
	wakes []time.Time
	// fullAt is the jobs started and ended when the cluster was last seen
	// without a free CPU (valid when fullSeen)
	fullAt   [2]int
	fullSeen bool
}

// liveJob is a submitted job the run has not seen end.
type liveJob struct {
	rec Record
	run time.Duration
}

// Run replays w on c (which it takes over: c must hold no allocation,
// else ErrClusterInUse; after a run that failed it may hold the jobs the
// run was running) and measures it. It reads w's
// jobs as the replay reaches them, without a copy: w must not change
// until Run returns, and is the caller's again after (another run may
// replay it). Runs on separate clusters may go at once, on goroutines of
// the caller's, even replaying one w: they only read it.
func Run(c *selectnodes.Cluster, w *Workload, o Options) (*Result, error) {
	if w == nil {
		return nil, errors.New("sim: Run needs a cluster and a workload")
	}
	if err := o.checkPasses(w.Jobs); err != nil {
		return nil, err
	}
	return run(c, w.Name, &sliceSource{jobs: w.Jobs}, len(w.Jobs), o)
}

// checkPasses refuses up front an Interval that would make more than
// MaxIntervalPasses passes over the span of the jobs' submissions.
func (o *Options) checkPasses(jobs []Job) error {
	n := len(jobs)
	if n == 0 || o.Interval <= 0 || (o.Planner == nil && (o.Policy == nil || !o.Policy.Dynamic())) {
		return nil
	}
	if span := jobs[n-1].Submit - jobs[0].Submit; span/o.Interval > MaxIntervalPasses {
		return fmt.Errorf("sim: an interval of %v over %v of submissions is more than %d passes (MaxIntervalPasses): %w",
			o.Interval, span, MaxIntervalPasses, ErrBudget)
	}
	return nil
}

// RunSource replays the jobs src gives, reading each only when the
// replay reaches its submit time, so memory holds the jobs queued and
// running, not the workload (unless o.Record keeps every record). The
// result's Jobs counts the jobs read. A run uses its source up: a
// Workload's or a TraceSource a run read to its end is an error here
// (take a new one), not an empty replay.
func RunSource(c *selectnodes.Cluster, name string, src Source, o Options) (*Result, error) {
	if src == nil {
		return nil, errors.New("sim: RunSource needs a source")
	}
	if s, ok := src.(interface{ spent() bool }); ok && s.spent() {
		// it would give no job: a result of none would pass for a replay
		return nil, errors.New("sim: the source was read to its end by an earlier run; make a new one (Workload.Source, NewTraceSource)")
	}
	total := 0
	if ss, ok := src.(*sliceSource); ok {
		// a Workload's source: its jobs are known, checked as Run checks
		total = len(ss.jobs) - ss.i
		if err := o.checkPasses(ss.jobs[ss.i:]); err != nil {
			return nil, err
		}
	}
	return run(c, name, src, total, o)
}

func run(c *selectnodes.Cluster, name string, src Source, total int, o Options) (*Result, error) {
	if c == nil {
		return nil, errors.New("sim: Run needs a cluster and a workload")
	}
	if err := o.check(); err != nil {
		return nil, err
	}
	if n := c.JobsOnTotal(); n > 0 {
		return nil, fmt.Errorf("sim: %w (%d job-node pairs): give the run a cluster with no job on it", ErrClusterInUse, n)
	}
	r := newRunner(c, name, src, total, o)
	if err := r.peek(); err != nil {
		return nil, err
	}
	if err := r.loop(); err != nil {
		return nil, err
	}
	r.finish()
	return r.res, nil
}

func newRunner(c *selectnodes.Cluster, name string, src Source, total int, o Options) *runner {
	epoch := o.Epoch
	if epoch.IsZero() {
		epoch = time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)
	}
	policy := o.Policy
	if policy == nil {
		policy = queue.FCFS{}
	}
	depth := o.BackfillDepth
	switch {
	case depth == 0:
		depth = 100
	case depth < 0:
		depth = 0 // the queue's "no limit"
	}
	// the replay reads a placement only as its job starts (started), so a
	// forgotten job's placement can serve a later start
	qopts := []queue.Option{queue.WithPolicy(policy), queue.WithBackfillDepth(depth), queue.WithRecycledPlacements()}
	if o.Planner != nil {
		qopts = append(qopts, queue.WithPlanner(o.Planner, o.Window))
	}
	if namesNoJob(src) {
		// no job can name an ended one: its ID is all the queue keeps
		qopts = append(qopts, queue.WithoutTombstones())
	}
	qopts = append(qopts, o.Queue...)
	o.Policy = policy
	res := &Result{Workload: name, Cluster: o.Cluster, Policy: strings.TrimPrefix(fmt.Sprintf("%T", policy), "queue."),
		Backfill: o.Backfill, Nodes: c.NodeCount(), Unrunnable: map[string]int{}}
	for i := 0; i < c.NodeCount(); i++ {
		res.Cores += c.Node(i).CPUs
	}
	if res.Cluster == "" {
		res.Cluster = fmt.Sprintf("%d nodes, %d cores", res.Nodes, res.Cores)
	}
	s := queue.New(c, qopts...)
	return &runner{o: o, c: c, s: s, easy: queue.NewEASY(s), src: src, total: total, epoch: epoch, res: res,
		tree: c.Topology(), nodes: c.NodeCount()}
}

// namesNoJob reports whether no job src will give has a dependency: a
// trace's jobs have none, a Workload's are looked at; of another Source
// nothing is known.
func namesNoJob(src Source) bool {
	switch s := src.(type) {
	case *TraceSource:
		return true
	case *sliceSource:
		for _, j := range s.jobs[s.i:] {
			if j.Spec.Dependency != "" {
				return false
			}
		}
		return true
	}
	return false
}

// peek reads the next job to submit.
func (r *runner) peek() error {
	err := r.read()
	if err == io.EOF {
		r.have = false
		return nil
	}
	if _, trace := r.src.(*TraceSource); err != nil && !trace {
		// a trace's errors name their line; another source's say nothing
		// of where the run was
		return fmt.Errorf("sim: reading job %d from the source: %w", r.seq, err)
	} else if err != nil {
		return err
	}
	j := &r.next
	switch {
	case j.Submit < 0:
		return fmt.Errorf("sim: job %d (%s) is submitted at %v, before the workload's start (Submit counts from it): %w", r.seq, j.Spec.Name, j.Submit, ErrOrder)
	case j.Run < 0:
		return fmt.Errorf("sim: job %d (%s) has a negative run time %v", r.seq, j.Spec.Name, j.Run)
	}
	if j.Submit < r.last {
		return fmt.Errorf("sim: job %d (%s) is submitted at %v, before the job it follows (%v): %w", r.seq, j.Spec.Name, j.Submit, r.last, ErrOrder)
	}
	r.have, r.last = true, j.Submit
	r.nextAt = r.epoch.Add(j.Submit)
	return nil
}

// read puts the source's next job in r.next (left alone on an error). A
// trace's source writes it there itself: a Job is large, and Next's copy
// would be copied again.
func (r *runner) read() error {
	if ts, ok := r.src.(*TraceSource); ok {
		return ts.nextInto(&r.next)
	}
	j, err := r.src.Next()
	if err == nil {
		r.next = j
	}
	return err
}

// dynamic reports whether a pass between events may decide differently
// from the last one (priorities that change with time, or a planner).
func (r *runner) dynamic() bool { return r.o.Policy.Dynamic() || r.o.Planner != nil }

// nextEvent is the next moment a job arrives or ends.
func (r *runner) nextEvent() (time.Time, bool) {
	t, ok := time.Time{}, false
	if r.have {
		t, ok = r.nextAt, true
	}
	if len(r.ends) > 0 && (!ok || wallBefore(r.ends[0].at, t)) {
		t, ok = r.ends[0].at, true
	}
	if len(r.wakes) > 0 && (!ok || wallBefore(r.wakes[0], t)) {
		t, ok = r.wakes[0], true
	}
	return t, ok
}

func (r *runner) loop() error {
	var nextTick time.Time
	if r.o.Interval > 0 {
		nextTick = r.epoch.Add(r.o.Interval)
	}
	dynamic := r.dynamic()
	done := -1
	for {
		t, ok := r.nextEvent()
		if !ok {
			return nil // nothing left that could change anything
		}
		if r.o.Interval > 0 && r.pend > 0 && nextTick.Before(t) {
			if !dynamic {
				// a static order on an unchanged cluster decides as the
				// last pass did: go straight to the event
				nextTick = nextTick.Add(t.Sub(nextTick).Truncate(r.o.Interval))
			} else {
				if r.passes++; r.passes > MaxIntervalPasses {
					// a source read as it goes could not be checked up front:
					// say how far the run got
					return fmt.Errorf("sim: more than %d interval passes (MaxIntervalPasses) of %v by %v of virtual time, %d jobs submitted; use a longer interval: %w",
						MaxIntervalPasses, r.o.Interval, wallSub(nextTick, r.epoch), r.seq, ErrBudget)
				}
				t = nextTick
			}
		}
		for r.o.Interval > 0 && !nextTick.After(t) {
			nextTick = nextTick.Add(r.o.Interval)
		}
		if err := r.step(t); err != nil {
			return err
		}
		if r.o.Progress != nil && r.res.Started+r.res.Rejected != done {
			done = r.res.Started + r.res.Rejected
			r.o.Progress(done, r.total, wallSub(t, r.epoch))
		}
	}
}

// step ends, submits and schedules everything due at t.
func (r *runner) step(t time.Time) error {
	for len(r.wakes) > 0 && !wallBefore(t, r.wakes[0]) { // at <= t
		r.wakes = r.wakes[1:]
	}
	tick := false
	for len(r.ends) > 0 && !wallBefore(t, r.ends[0].at) { // at <= t
		e := r.ends.pop()
		if !e.out {
			tick = true
			continue
		}
		if err := r.s.Finish(e.id, queue.Outcome{Kind: queue.Completed}, t); err != nil {
			// its end past queue.MaxYear: say whose
			lj := r.live.get(e.id)
			if lj == nil {
				return err
			}
			return fmt.Errorf("sim: ending job %d (%s), submitted at %v and run for %v: %w",
				lj.rec.Seq, lj.rec.Name, wallSub(lj.rec.Submit, r.epoch), lj.run, err)
		}
		r.ended(e.id, t, queue.Complete)
	}
	if tick {
		timedOut := r.s.Tick(t)
		r.res.Timeouts += len(timedOut)
		for _, id := range timedOut {
			r.ended(id, t, queue.Timeout)
		}
	}
	for r.have && !wallBefore(t, r.nextAt) { // nextAt <= t
		if err := r.submit(t); err != nil {
			return err
		}
		if err := r.peek(); err != nil {
			return err
		}
	}
	if r.full() {
		r.res.skipped++
		return nil // no job can start: the pass would start nothing
	}
	// Only the IDs of the jobs started: no pass builds a hostlist per start.
	ids := r.ids[:0]
	switch r.o.Backfill {
	case NoBackfill:
		ids = r.s.ScheduleIDs(t, ids)
	case Conservative:
		ids = r.s.ScheduleIDs(t, ids)
		ids = r.s.BackfillIDs(t, ids)
	case EASY:
		// EASY's pass starts the jobs in order itself, until the head
		if r.o.Planner != nil {
			ids = r.s.ScheduleIDs(t, ids)
		}
		// after submissions alone the pass looks only at the new jobs
		ids = r.easy.BackfillSubmittedIDs(t, ids)
	}
	for _, id := range ids {
		r.started(id, t)
	}
	r.ids = ids
	return nil
}

// full reports whether no node has a free CPU, so that no pass could
// start a job (every job asks for a CPU) and the pass may be skipped. Only
// for the passes that keep nothing between passes that the skipped one
// would have changed: Schedule alone and EASY (whose head plan depends on
// the running jobs, not on when it is made). Conservative backfill's
// reservations are remade every pass from that pass's time, and a planner
// decides on its own, so they get every pass.
func (r *runner) full() bool {
	if r.o.Planner != nil || r.o.Backfill == Conservative || r.o.everyPass {
		return false
	}
	// A full cluster stays full until a job ends: only a pass starts one
	// (and none runs while it is full), and nothing but an end frees CPUs
	// in a replay. So the node scan is made once per full spell.
	at := [2]int{r.res.Started, r.res.Finished}
	if r.fullSeen && r.fullAt == at {
		r.res.fullRec++
		return true
	}
	r.fullSeen = false
	if r.c.HasFreeCPU() {
		return false
	}
	r.fullSeen, r.fullAt = true, at
	return true
}

func (r *runner) submit(t time.Time) error {
	j := &r.next // read, not copied (peek replaces it after)
	seq := r.seq
	r.seq++
	r.res.Jobs++
	if j.Spec.Request.QOS == "" && r.o.QOS != "" {
		j.Spec.Request.QOS = r.o.QOS
	}
	id, err := r.s.Submit(j.Spec, t)
	if err != nil {
		if errors.Is(err, selectnodes.ErrNodeConfig) || errors.Is(err, selectnodes.ErrInvalidRequest) {
			r.res.Rejected++
			r.res.Unrunnable[unrunnableReason(r.c, &j.Spec.Request, err)]++
			rec := Record{Seq: seq, Name: j.Spec.Name, User: j.Spec.User, Partition: j.Spec.Request.Partition,
				TimeLimit: j.Spec.TimeLimit, Submit: t, Cores: j.Cores, Level: -1, State: queue.Failed, SWF: j.SWF}
			r.emit(&rec)
			return nil
		}
		return fmt.Errorf("sim: submitting job %d (%s): %w", seq, j.Spec.Name, err)
	}
	// the record is written in its place (a Record is large)
	lj := r.liveJob()
	lj.rec = Record{Seq: seq, Job: id, Name: j.Spec.Name, User: j.Spec.User, Partition: j.Spec.Request.Partition,
		TimeLimit: j.Spec.TimeLimit, Submit: t, Cores: j.Cores, Level: -1, SWF: j.SWF}
	lj.run = j.Run
	if lj.rec.TimeLimit == 0 {
		if job, ok := r.s.Job(id); ok {
			lj.rec.TimeLimit = job.TimeLimit
		}
	}
	r.live.put(id, lj)
	r.pend++
	if b := j.Spec.Begin; !b.IsZero() && wallBefore(t, b) {
		// nothing else may happen at b: wake the run then
		i, _ := slices.BinarySearchFunc(r.wakes, b, time.Time.Compare)
		r.wakes = slices.Insert(r.wakes, i, b)
	}
	return nil
}

func (r *runner) started(id queue.JobID, t time.Time) {
	lj := r.live.get(id)
	// the cluster's placement, read only: Scheduler.Job would copy it
	p, _, _, _ := r.c.Allocation(id)
	rec := &lj.rec
	rec.Start, rec.CPUs, rec.State = t, p.TotalCPUs, queue.Running
	if n := len(p.Alloc); n > 0 && (r.o.Record || r.o.OnRecord != nil) {
		// the node list only for whoever receives the records
		rec.Nodes = make([]int, n)
		for k, a := range p.Alloc {
			rec.Nodes[k] = a.Node
		}
	}
	rec.Spread = spread(p.Alloc) // topology.Spread without a bitmap per job
	if r.tree != nil {
		nodes := bitset.New(0)
		for _, a := range p.Alloc {
			nodes.Set(uint(a.Node))
		}
		if l, ok := r.tree.LowestCommonLevel(nodes); ok {
			rec.Level = l
		}
	}
	// rec.TimeLimit is the job's own limit (settled at submit; the
	// replay never updates a job). A job that runs exactly its limit
	// completes then: only one that would run longer is killed at it
	// (TIMEOUT).
	if limit := rec.TimeLimit; limit > 0 && lj.run > limit {
		r.ends.push(endEvent{at: t.Add(limit), id: id})
	} else {
		r.ends.push(endEvent{at: t.Add(lj.run), id: id, out: true})
	}
	r.pend--
	r.res.Started++
}

// ended measures a job that ended at t and lets the scheduler forget it.
func (r *runner) ended(id queue.JobID, t time.Time, st queue.State) {
	lj := r.live.get(id)
	if lj == nil {
		return
	}
	r.live.drop(id)
	_ = r.s.Forget(id)
	lj.rec.End, lj.rec.State = t, st
	r.res.Finished++
	r.emit(&lj.rec)
	// emit copied the record; its Nodes go with the copy, never reused
	*lj = liveJob{}
	r.spare = append(r.spare, lj)
}

// liveJob is an empty record for a job just submitted: an ended job's
// (cleared when it ended), when one is spare, so that a replay allocates
// about as many records as jobs run at once rather than one per job.
func (r *runner) liveJob() *liveJob {
	if n := len(r.spare); n > 0 {
		lj := r.spare[n-1]
		r.spare = r.spare[:n-1]
		return lj
	}
	return &liveJob{}
}

// emit hands a copy of a final record to the measures, Options.OnRecord
// and, under Options.Record, the result.
func (r *runner) emit(rec *Record) {
	r.acc.add(rec)
	if r.o.OnRecord != nil {
		given := *rec
		if r.o.Record {
			given.Nodes = slices.Clone(rec.Nodes) // the caller's, not the result's
		}
		r.o.OnRecord(given)
	}
	if r.o.Record {
		r.recs = append(r.recs, *rec)
	}
}

// finish settles the jobs that never ended (still pending, or failed by a
// plugin before starting), in submit order, and measures the run.
func (r *runner) finish() {
	res := r.res
	left := r.live.all()
	slices.SortFunc(left, func(a, b *liveJob) int { return a.rec.Seq - b.rec.Seq })
	for _, lj := range left {
		j, _ := r.s.Job(lj.rec.Job)
		lj.rec.State = j.State
		switch {
		case j.State == queue.Pending:
			res.Stuck++
			if res.StuckReasons == nil {
				res.StuckReasons = map[string]int{}
			}
			res.StuckReasons[cmp.Or(string(j.Reason), "None")]++
		case j.State == queue.Failed && lj.rec.Start.IsZero():
			res.Rejected++
			res.Unrunnable[unrunnableReason(r.c, &j.Request, explanationErr(j))]++
		}
		r.emit(&lj.rec)
	}
	r.live = liveJobs{}
	res.Metrics = r.acc.metrics(res.Cores)
	if r.o.Record {
		slices.SortFunc(r.recs, func(a, b Record) int { return a.Seq - b.Seq })
		res.Records = r.recs
	}
}

// Metrics are a run's measures (the AUCSCHED3 paper Table 4 and the usual ones).
type Metrics struct {
	// LowestCommonLevel and Spread are the means and standard deviations
	// over started jobs; LevelKnown is false without a switch tree.
	LevelMean, LevelStd   float64
	LevelKnown            bool
	SpreadMean, SpreadStd float64
	// Utilization is the AUCSCHED3 paper's: core-seconds asked for over the system's
	// cores, divided by the time from first submission to last end.
	Utilization float64
	// BusyFraction is allocated core-seconds over cores times makespan.
	BusyFraction                  float64
	WaitMean, WaitMedian, WaitP95 time.Duration
	BoundedSlowdown               float64 // mean, 10 s bound
	Makespan                      time.Duration
}

// accumulator gathers the measures of ended jobs: sums, and the waits
// (8 bytes a job, for the median and 95th percentile).
type accumulator struct {
	n                      int
	first, last            time.Time
	waits                  []time.Duration
	coreSec, busySec, slow float64
	spread, level          moments
}

func (a *accumulator) add(r *Record) {
	if r.Start.IsZero() || r.End.IsZero() {
		return
	}
	a.n++
	if a.first.IsZero() || wallBefore(r.Submit, a.first) {
		a.first = r.Submit
	}
	if wallBefore(a.last, r.End) {
		a.last = r.End
	}
	wait, run := wallSub(r.Start, r.Submit), wallSub(r.End, r.Start) // (a replay's times: elapsed.go)
	a.waits = append(a.waits, wait)
	a.coreSec += run.Seconds() * float64(r.Cores)
	a.busySec += run.Seconds() * float64(r.CPUs)
	a.slow += BoundedSlowdown(wait, run)
	a.spread.add(float64(r.Spread))
	if r.Level >= 0 {
		a.level.add(float64(r.Level))
	}
}

// BoundedSlowdown is a job's (wait + run) / max(run, 10 s), at least 1.
func BoundedSlowdown(wait, run time.Duration) float64 {
	return math.Max(1, (wait.Seconds()+run.Seconds())/math.Max(run.Seconds(), 10))
}

func (a *accumulator) metrics(cores int) Metrics {
	var m Metrics
	if a.n == 0 {
		return m
	}
	m.Makespan = a.last.Sub(a.first)
	if m.Makespan > 0 && cores > 0 {
		m.Utilization = a.coreSec / float64(cores) / m.Makespan.Seconds()
		m.BusyFraction = a.busySec / float64(cores) / m.Makespan.Seconds()
	}
	m.SpreadMean, m.SpreadStd = a.spread.meanStd()
	if a.level.n > 0 {
		m.LevelKnown = true
		m.LevelMean, m.LevelStd = a.level.meanStd()
	}
	waits := a.waits
	slices.Sort(waits)
	// summed in float64 seconds: 28,000 waits of days overflow a Duration
	var sum float64
	for _, w := range waits {
		sum += w.Seconds()
	}
	m.WaitMean = time.Duration(sum / float64(len(waits)) * float64(time.Second))
	m.WaitMedian = waits[len(waits)/2]
	m.WaitP95 = waits[min(len(waits)-1, int(math.Ceil(0.95*float64(len(waits))))-1)]
	m.BoundedSlowdown = a.slow / float64(a.n)
	return m
}

// moments is a running mean and variance (Welford's), so a run keeps no
// list of levels or spreads.
type moments struct {
	n        int
	mean, m2 float64
}

func (m *moments) add(x float64) {
	m.n++
	d := x - m.mean
	m.mean += d / float64(m.n)
	m.m2 += d * (x - m.mean)
}

// meanStd is the mean and the population standard deviation.
func (m *moments) meanStd() (float64, float64) {
	if m.n == 0 {
		return 0, 0
	}
	return m.mean, math.Sqrt(max(m.m2, 0) / float64(m.n))
}

// spread is topology.Spread of a job's nodes: from its first node to its
// last, 0 without nodes.
func spread(alloc []selectnodes.NodeAlloc) int {
	if len(alloc) == 0 {
		return 0
	}
	lo, hi := alloc[0].Node, alloc[0].Node
	for _, a := range alloc[1:] {
		lo, hi = min(lo, a.Node), max(hi, a.Node)
	}
	return hi - lo
}
