package queue

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/google/btree"
	"github.com/hpcsched/hpcsched/selectnodes"
)

// job is the scheduler's record: the public Job plus bookkeeping.
type job struct {
	Job
	deps        *Dependency
	key         qkey
	queued      bool
	suspendedAt time.Time
	// suspendedFor is the time spent suspended since the last start.
	suspendedFor time.Duration
	// allocSeq orders the allocations of running jobs as they were made.
	allocSeq uint64
	// class is the job's class key for Schedule's failure skip, once
	// rendered; "" until then and after an update (classskip.go).
	class string
	// runIx is the job's place in the scheduler's runList plus one, 0
	// when it is not there (runlist.go).
	runIx int
}

// qkey orders the pending queue: partition priority, then job priority
// (both descending), then submit order.
type qkey struct {
	partPrio int
	prio     int64
	seq      uint64
}

func lessKey(a, b qkey) bool {
	if a.partPrio != b.partPrio {
		return a.partPrio > b.partPrio
	}
	if a.prio != b.prio {
		return a.prio > b.prio
	}
	return a.seq < b.seq
}

// Scheduler runs jobs on a cluster. Create it with New; it is safe for
// concurrent use.
type Scheduler struct {
	mu          sync.Mutex
	ctx         context.Context // the current call's, while the lock is held
	c           *selectnodes.Cluster
	jobs        map[JobID]*job
	active      map[JobID]*job // running and suspended
	running     runList        // the same jobs in a slice, for Tick (runlist.go)
	queue       *btree.BTreeG[*job]
	byUserName  map[string][]*job
	nextID      JobID
	maxID       JobID
	seq         uint64
	lastRecalc  time.Time
	resv        map[JobID]reservation // Backfill's standing reservations
	allocSeq    uint64                // numbers allocations, so Restore replays them in order
	kept        *keptPlan             // Backfill's profile, kept between passes (derived, never saved)
	maxPartPrio int                   // the highest partition priority; -1 until known
	partGen     uint64                // UpdatePartitions made: EASY's copies of the partitions' nodes are of one
	lastPart    partMemo              // the partition partPrio read last
	pivot       *job                  // a key alone, where Schedule's walk resumes (schedule.go)
	gone        map[JobID]tombstone   // forgotten jobs (Forget, WithRetention)
	bare        bareIDs               // forgotten jobs without a tombstone (WithoutTombstones)
	depJobs     int                   // jobs that were given a dependency on another job
	admitted    map[uint64]*admitKey  // request shapes that passed the TestOnly probe, by hash (admit.go)
	// lastAdmitted is the shape of admitted found or added last (valid
	// while admitted is not nil: configChanged forgets both)
	lastAdmitted admitKey
	finished     *btree.BTreeG[finKey] // finished jobs, for WithRetention
	spare        []*job                // forgotten records, cleared, for new jobs to reuse (forget.go)
	selReq       selectnodes.Request   // a Schedule selection's request, under the lock (planner.go)
	lastBusy     busyMemo              // the last pass's first busy failure (busymemo.go)
	updates      uint64                // Update calls applied, which may change a job's request
	clock        time.Time             // the latest now accepted; passes never act earlier
	queuedIn     partCounts            // the queue's jobs by partition (queued_parts.go)

	opts options

	subs       []subscriber
	nextSub    int
	outbox     []Event
	eventSeq   uint64
	delivering bool
	// quietStarts: the caller of this pass reads no hostlist (EASY.BackfillIDs),
	// so a start builds one only for a subscriber
	quietStarts bool
	// fullAllocChecks: tests have every start checked by Allocate, not
	// trusted as the selection just made (start.go)
	fullAllocChecks bool
	// noBusyMemo: tests have every Schedule selection run, none answered
	// by the last pass's busy failure (busymemo.go)
	noBusyMemo bool
	// copyWalk: tests have Schedule walk a copy of the queue with
	// selectEach, the loop scheduleQueue must decide as
	copyWalk bool
	// changes counts the calls that may change the scheduler (every entry
	// but the read-only ones, which use enterRead), submits the Submit
	// calls among them: EASY.BackfillSubmittedIDs tells from the two
	// whether nothing but submissions happened since its last pass.
	changes, submits uint64
	// panics are the plugins' contained panics of the current call, for
	// the WithPanicHandler function once the lock is released
	panics []pluginPanic
}

type options struct {
	admit         []AdmitPlugin
	reserve       []ReservePlugin
	release       []ReleasePlugin
	ids           IDSource
	onPanic       func(any, Event)
	policy        Policy
	planner       Planner
	backfillDepth int
	bfSelections  int
	cancelNever   bool
	external      bool
	firstID       JobID
	recalc        time.Duration
	plannerWindow int
	bfWindow      time.Duration
	bfResolution  time.Duration
	retain        int // WithRetention's count; 0 keeps all, retainNone none
	noTombstones  bool
	recycle       bool // WithRecycledPlacements
}

// Option configures New (and Restore).
//
// Zero values: every option's zero argument means its default (the
// default is named on each), so a config struct with unset fields passed
// through gives the defaults. A negative count or duration, or a nil
// interface, is a programming error: the option panics with a message
// naming itself and the argument. Switching a default off takes an option
// of its own (WithNoReservations, WithForgetFinished).
type Option func(*options)

// WithPolicy sets the schedule policy (FCFS by default). A nil p panics.
func WithPolicy(p Policy) Option {
	if p == nil {
		panic("queue.WithPolicy: p is nil")
	}
	return func(o *options) { o.policy = p }
}

// WithPlanner makes Schedule hand a window of eligible jobs to p, which
// decides them together (an auction, say), instead of the
// one-job-at-a-time loop. window is how many jobs it sees (0: 100). A nil
// p or a negative window panics.
func WithPlanner(p Planner, window int) Option {
	if p == nil {
		panic("queue.WithPlanner: p is nil")
	}
	nonNegative("WithPlanner", "window", int64(window))
	return func(o *options) { o.planner, o.plannerWindow = p, window }
}

// WithBackfillDepth limits how many pending jobs Backfill considers (0:
// all, the default). An EASY pass counts the jobs it considers beside its
// in-order starts, those Schedule's pass would make (see EASY): past the
// depth it still makes those.
func WithBackfillDepth(n int) Option {
	nonNegative("WithBackfillDepth", "n", int64(n))
	return func(o *options) { o.backfillDepth = n }
}

// WithBackfillSelections bounds the work of one Backfill pass by the
// number of node selections it makes (each start attempt and each probe of
// a slot is one): once n are made, the pass considers no further job, and
// the jobs it did not reach keep their standing reservations. It is
// Slurm's bf_max_time counted in selections rather than seconds, so the
// bound is deterministic (a library with no wall clock); a job whose
// search is under way finishes it, so a pass may exceed n by one job's
// probes. 0 (the default) is no bound. WithBackfillDepth is bf_max_job_test.
func WithBackfillSelections(n int) Option {
	nonNegative("WithBackfillSelections", "n", int64(n))
	return func(o *options) { o.bfSelections = n }
}

// WithBackfillWindow sets how far ahead Backfill reserves (Slurm's
// bf_window; 0: a day, the default). WithNoReservations reserves nothing.
func WithBackfillWindow(d time.Duration) Option {
	nonNegative("WithBackfillWindow", "d", int64(d))
	return func(o *options) {
		if d > 0 {
			o.bfWindow = d
		}
	}
}

// WithNoReservations makes Backfill start what fits now, away from no
// reservation, and keep none: first-fit backfilling with no guarantee for
// the jobs it passes over.
func WithNoReservations() Option { return func(o *options) { o.bfWindow = noWindow } }

// noWindow is options.bfWindow for WithNoReservations: the window ends
// before any later start.
const noWindow = -1

// MaxBackfillResolution bounds WithBackfillResolution (Slurm's
// bf_resolution is at most an hour).
const MaxBackfillResolution = 24 * time.Hour

// WithBackfillResolution sets the granularity of Backfill's profile
// (Slurm's bf_resolution; 0: a minute, the default). Use time.Nanosecond
// for exact times. More than MaxBackfillResolution, or a negative d,
// panics.
func WithBackfillResolution(d time.Duration) Option {
	nonNegative("WithBackfillResolution", "d", int64(d))
	if d > MaxBackfillResolution {
		panic(fmt.Sprintf("queue.WithBackfillResolution: d is %s, above MaxBackfillResolution (%s)", d, MaxBackfillResolution))
	}
	return func(o *options) {
		if d > 0 {
			o.bfResolution = d
		}
	}
}

// nonNegative panics, naming the option and its argument, when v < 0.
func nonNegative(option, arg string, v int64) {
	if v < 0 {
		panic(fmt.Sprintf("queue.%s: %s is %d, want >= 0", option, arg, v))
	}
}

// WithCancelNeverSatisfied cancels jobs whose dependencies can never be met
// (Slurm's kill_invalid_depend) instead of leaving them pending with reason
// DependencyNeverSatisfied.
func WithCancelNeverSatisfied() Option { return func(o *options) { o.cancelNever = true } }

// WithExternalScheduler is wiki2's hold strategy done right: jobs are held
// on submit and start only through Start. The hold is an ordinary one: a
// job released with Release may be started by Schedule and Backfill, as
// Slurm's own scheduler starts a released job, and Restore with this
// option holds no job the saved state did not.
func WithExternalScheduler() Option { return func(o *options) { o.external = true } }

// WithFirstJobID sets the first job ID (0: 1, the default).
func WithFirstJobID(id JobID) Option {
	return func(o *options) {
		if id > 0 {
			o.firstID = id
		}
	}
}

// WithRecalcInterval sets how often a dynamic policy's priorities are
// recomputed (Slurm's PriorityCalcPeriod). By default they are recomputed
// at every Schedule and Backfill pass, once per pass and never per
// comparison (0, the default); a longer interval trades freshness for a
// cheaper pass.
func WithRecalcInterval(d time.Duration) Option {
	nonNegative("WithRecalcInterval", "d", int64(d))
	return func(o *options) { o.recalc = d }
}

// New returns a scheduler for c, which it then owns: change the cluster
// only through the scheduler. A cluster serves one scheduler: give each
// New or Restore a cluster of its own (a restart builds a new one from the
// configuration), since two schedulers over one cluster would each place
// jobs on a load the other changes, and neither can tell while the
// cluster holds no allocation. A nil c or a nil option panics (New has no
// error to return); a Scheduler's zero value is not usable.
func New(c *selectnodes.Cluster, opts ...Option) *Scheduler {
	if c == nil {
		panic("queue.New: c is nil")
	}
	o := options{policy: FCFS{}, firstID: 1, plannerWindow: 100, bfWindow: 24 * time.Hour, bfResolution: time.Minute}
	for i, f := range opts {
		if f == nil {
			panic(fmt.Sprintf("queue.New: opts[%d] is nil", i))
		}
		f(&o)
	}
	if o.plannerWindow <= 0 {
		o.plannerWindow = 100
	}
	return &Scheduler{
		c:           c,
		jobs:        map[JobID]*job{},
		active:      map[JobID]*job{},
		maxPartPrio: -1,
		queue:       btree.NewG(32, func(a, b *job) bool { return lessKey(a.key, b.key) }),
		resv:        map[JobID]reservation{},
		nextID:      o.firstID,
		opts:        o,
	}
}

// lock takes the scheduler's lock for a call whose plugins see ctx.
func (s *Scheduler) lock(ctx context.Context) {
	s.enter()
	s.ctx = ctx
}

// enter takes the lock of a scheduler made by New or Restore for a call
// that may change it, and counts the call; a zero Scheduler panics with a
// message rather than a nil dereference.
func (s *Scheduler) enter() {
	s.enterRead()
	s.changes++
}

// enterRead is enter for a call that changes nothing a pass reads (the
// readers: Job, Jobs, Pending, Explain, ...): it is not counted.
func (s *Scheduler) enterRead() {
	if s == nil {
		panic("queue: nil *Scheduler: New and Restore make one (a Restore that failed returns nil with its error)")
	}
	if s.c == nil {
		panic("queue: a Scheduler must be made by New or Restore, not used as a zero value")
	}
	s.mu.Lock()
}

// context is the current call's context (Background outside one).
func (s *Scheduler) context() context.Context {
	if s.ctx == nil {
		return context.Background()
	}
	return s.ctx
}

func (s *Scheduler) get(id JobID) (*job, error) {
	j, ok := s.jobs[id]
	if !ok {
		return nil, fmt.Errorf("%w %d", ErrUnknownJob, id)
	}
	return j, nil
}

// getIn returns job id when its state allows op (ok), else the
// ErrUnknownJob or ErrJobState error naming op.
func (s *Scheduler) getIn(id JobID, op string, ok func(State) bool) (*job, error) {
	j, err := s.get(id)
	if err != nil {
		return nil, err
	}
	if !ok(j.State) {
		return nil, stateErr(j, op)
	}
	return j, nil
}

func live(st State) bool               { return !st.Terminal() }
func runningOrSuspended(st State) bool { return st == Running || st == Suspended }

func stateErr(j *job, op string) error {
	return fmt.Errorf("%w: cannot %s job %d in state %s", ErrJobState, op, j.ID, j.State)
}

// Job returns a copy of job id's record (the caller's: see Ownership).
func (s *Scheduler) Job(id JobID) (Job, bool) {
	s.enterRead()
	defer s.mu.Unlock()
	j, ok := s.jobs[id]
	if !ok {
		return Job{}, false
	}
	return j.public(), true
}

// Jobs returns copies of every job, by ID.
func (s *Scheduler) Jobs() []Job {
	s.enterRead()
	defer s.mu.Unlock()
	out := make([]Job, 0, len(s.jobs))
	for _, id := range s.ids() {
		out = append(out, s.jobs[id].public())
	}
	return out
}

// Pending returns the pending jobs in queue order.
func (s *Scheduler) Pending() []Job {
	s.enterRead()
	defer s.mu.Unlock()
	var out []Job
	s.queue.Ascend(func(j *job) bool {
		out = append(out, j.public())
		return true
	})
	return out
}

// Cluster is the cluster the scheduler runs. Read it only while no other
// goroutine calls the scheduler.
func (s *Scheduler) Cluster() *selectnodes.Cluster { return s.c }

// partPrio is the partition priority of a job.
func (s *Scheduler) partPrio(j *job) int { return s.partOf(j).prio }

// partOf is what the scheduler reads of a job's partition most often:
// a submission asks twice (its priority and its place in the queue), an
// EASY pass for every job it cannot start, and a replay's jobs name one
// partition or a few: the last answer is kept until a partition changes
// (UpdatePartition) rather than the whole Partition copied out of the
// cluster each time.
func (s *Scheduler) partOf(j *job) *partMemo {
	if m := &s.lastPart; m.known && m.name == j.Partition {
		return m
	}
	return s.readPart(j)
}

// readPart is partOf when the memo holds another partition.
func (s *Scheduler) readPart(j *job) *partMemo {
	p, _ := s.c.PartitionLimits(j.Partition)
	s.lastPart = partMemo{name: j.Partition, prio: p.Priority, known: true, up: p.State == selectnodes.PartitionUp,
		maxTime: p.MaxTime, minNodes: p.MinNodes, maxNodes: p.MaxNodes}
	m := &s.lastPart
	m.limited = !m.up || m.maxTime > 0 || m.maxNodes > 0 || m.minNodes > 1
	return m
}

// partMemo is a partition's name, priority and limits (zeros, and not up,
// for an unknown name).
type partMemo struct {
	name               string
	prio               int
	known              bool
	up                 bool
	maxTime            time.Duration
	minNodes, maxNodes int
	limited            bool // some limit could hold a job (heldByLimits)
}

// heldByLimits reports whether j's request breaks its partition's limits
// (a time limit above MaxTime, a node count outside MinNodes..MaxNodes, a
// partition that is not up), which only a change of the request or the
// partition lifts.
func (m *partMemo) heldByLimits(j *job) bool {
	req := &j.Request
	return !m.up || (m.maxTime > 0 && j.TimeLimit > m.maxTime) ||
		(m.maxNodes > 0 && max(req.MinNodes, 1) > m.maxNodes) || (req.MaxNodes > 0 && req.MaxNodes < m.minNodes)
}

func (s *Scheduler) policyContext(j *job, now time.Time) PolicyContext {
	if s.maxPartPrio < 0 { // computed once, and again after a partition changes
		s.maxPartPrio = 0
		for _, name := range s.c.PartitionNames() {
			p, _ := s.c.PartitionLimits(name)
			s.maxPartPrio = max(s.maxPartPrio, p.Priority)
		}
	}
	return PolicyContext{Now: now, ClusterNodes: s.c.NodeCount(), PartitionPriority: s.partPrio(j), MaxPartitionPriority: s.maxPartPrio}
}

// computePriority sets j.Priority from the admin value or the policy,
// less nice. It reports whether it changed.
func (s *Scheduler) computePriority(j *job, now time.Time) bool {
	p := j.AdminPriority
	if p == 0 {
		p = s.opts.policy.Priority(&j.Job, s.policyContext(j, now))
	}
	p = effectivePriority(p, j.Nice)
	changed := p != j.Priority
	j.Priority = p
	return changed
}

// enqueue puts a pending job in the queue under its current key.
func (s *Scheduler) enqueue(j *job) {
	if j.queued {
		s.queue.Delete(j)
	}
	j.key = qkey{partPrio: s.partPrio(j), prio: j.Priority, seq: j.seq}
	s.queue.ReplaceOrInsert(j)
	if !j.queued && s.queuedIn.on {
		s.queuedIn.add(j.Partition, 1)
	}
	j.queued = true
}

func (s *Scheduler) dequeue(j *job) {
	if j.queued {
		s.queue.Delete(j)
		if s.queuedIn.on {
			s.queuedIn.add(j.Partition, -1)
		}
		j.queued = false
	}
}
