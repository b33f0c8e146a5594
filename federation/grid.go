package federation

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hpcsched/hpcsched/queue"
)

// phase is where a grid job is.
type phase uint8

const (
	// atGrid: not on any member (dependencies unmet, or no candidate up).
	atGrid phase = iota
	// placed: on member, confirmed.
	placed
	// unconfirmed: the submit to member got no answer; the job may or may
	// not be there, so it is placed nowhere else until member answers.
	unconfirmed
	// inDoubt: a move's cancel on member got no answer; a held copy waits
	// on to. The job is on member until member answers.
	inDoubt
	// ended: terminal.
	ended
)

// record is the grid's view of one of its jobs.
type record struct {
	id         queue.JobID
	spec       queue.Spec // as sent to members: ID set, no dependency
	shape      int32      // numbers shapeKey(spec) (Grid.shapeSpecs); stale once ended
	group      int32      // numbers candidates, partition and account (Grid.groups); stale once ended
	deps       *Dependency
	candidates []string // nil: every member
	phase      phase
	member     string // where the job is (placed, unconfirmed, inDoubt)
	to         string // inDoubt: where the held copy is
	state      queue.State
	heldThere  bool // held on its member, as last seen
	reason     string
	submit     time.Time
	start, end time.Time
	exitCode   int
	moves      int
	// left are the members the job was moved away from: each keeps the
	// job's ID (cancelled there), so the job cannot go back to them.
	left []string
	// orphans are members that may hold a held copy left by a move that
	// did not finish; it is cancelled when they answer.
	orphans []string
	// fixHold: the grid may have left the job held on its member; release
	// it when the member answers.
	fixHold bool
}

// Grid is several clusters as one: grid-unique job IDs, placement on the
// candidate member that would start a job soonest, re-evaluation that
// moves pending jobs, and cross-cluster dependencies. It is safe for
// concurrent use; every method holds the grid's lock for its duration,
// member calls included, so what one caller sees is never a move half
// made.
type Grid struct {
	mu      sync.Mutex
	opts    options
	ids     IDSource
	members []*member
	byName  map[string]*member
	jobs    map[queue.JobID]*record
	live    []*record // not ended, in submission order
	// ended are the records that left live, in the order they did (with
	// a retention only): the oldest are forgotten past it.
	ended []*record
	// byUserName finds singleton peers.
	byUserName map[string][]*record
	// shapes number the distinct requests (shapeKey) of jobs, and groups
	// the distinct (candidates, partition, account), so passes index
	// slices instead of hashing per job.
	shapeIDs   map[shape]int32
	shapeSpecs []queue.Spec
	groupIDs   map[string]int32
	groups     []groupKey
	trigger    atomic.Bool
	lastPass   time.Time
	stats      Stats
	// chosenIDs counts the jobs submitted with their own ID (Spec.ID):
	// the most IDs in use that the source may still hand out.
	chosenIDs int
}

// Stats counts what the grid did.
type Stats struct {
	Submitted int // jobs accepted
	Moves     int // completed moves
	Aborted   int // moves undone (the job started, a member stopped answering)
	Replaced  int // jobs placed again after a member answered it did not have them
	Passes    int // re-evaluation passes
}

type options struct {
	timeout   time.Duration
	threshold time.Duration
	period    time.Duration
	minGap    time.Duration
	maxMoves  int
	retain    int // ended jobs kept (0: all)
}

// Option configures New.
type Option func(*options)

// WithCallTimeout bounds every member call (10 s by default). A member
// that does not answer in time is treated as down. With d > 0 each call
// runs in a goroutine of its own, so even a member that ignores its
// context cannot hold the grid; d <= 0 calls inline, trusting members to
// honour their context (in-process members that never block).
func WithCallTimeout(d time.Duration) Option { return func(o *options) { o.timeout = d } }

// WithMoveThreshold sets how much sooner another member must start a
// pending job for the grid to move it (5 minutes by default): moving
// costs the job its place in the queue it leaves. With d <= 0 a job moves
// whenever another member would start it sooner at all.
func WithMoveThreshold(d time.Duration) Option { return func(o *options) { o.threshold = d } }

// WithPeriod sets how often Tick re-evaluates (a minute by default), and
// minGap the least time between passes events trigger (10 s by default).
// A period <= 0 makes every Tick run a pass (unless its now is before the
// last pass's); 0 is not "the default".
func WithPeriod(period, minGap time.Duration) Option {
	return func(o *options) { o.period, o.minGap = period, minGap }
}

// WithMaxMoves bounds the moves of one pass (1000 by default), so a pass
// stays short however many jobs would gain. With n <= 0 passes move
// nothing, not even a job whose member left its candidates (it waits
// there); RemoveCandidates still tries to move such a job at once.
func WithMaxMoves(n int) Option { return func(o *options) { o.maxMoves = n } }

// WithRetention keeps at most n jobs that ended (as queue.WithRetention
// does a scheduler's finished jobs): when more have, the grid forgets
// those that ended first, at the end of the pass that saw the newer ones
// end — unless a job waiting at the grid depends on one. Zero (the
// default) remembers every job; a grid that runs for years sets it (and
// queue.WithRetention on its members), so its memory follows its live
// jobs, not its history. A forgotten job's ID is unknown to the grid:
// Status asks the members for it, and a new dependency on it is refused
// (ErrInvalidSpec), as Slurm refuses one on a job it has purged. A
// negative n panics.
func WithRetention(n int) Option {
	if n < 0 {
		panic(fmt.Sprintf("federation.WithRetention: n is %d, want >= 0", n))
	}
	return func(o *options) { o.retain = n }
}

// New returns an empty grid taking job IDs from ids. A nil ids or Option
// is a programming error: New panics with a message naming it. (The zero
// Grid is not usable: make one with New.)
func New(ids IDSource, opts ...Option) *Grid {
	if ids == nil {
		panic("federation.New: ids (IDSource) is nil; use NewMemoryIDs for IDs in process")
	}
	o := options{timeout: defaultTimeout, threshold: 5 * time.Minute, period: time.Minute, minGap: 10 * time.Second, maxMoves: 1000}
	for k, f := range opts {
		if f == nil {
			panic(fmt.Sprintf("federation.New: option %d is nil", k))
		}
		f(&o)
	}
	return &Grid{opts: o, ids: ids, byName: map[string]*member{}, jobs: map[queue.JobID]*record{},
		byUserName: map[string][]*record{}, shapeIDs: map[shape]int32{}, groupIDs: map[string]int32{}}
}

// Add makes m a member. If m does not answer its Info, it joins down and
// is asked again on every pass. A member that implements Watcher has its
// events observed (see Observe). A nil m, or one whose Name panics, is
// refused with an error; one whose Watch panics joins down, unwatched,
// and Add returns an error matching ErrMemberPanicked.
func (g *Grid) Add(ctx context.Context, m Member) error {
	if m == nil {
		return errors.New("federation: Grid.Add: the member is nil")
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	name, err := guard("(unnamed)", ctx, func(context.Context) (string, error) { return m.Name(), nil })
	if err != nil {
		return err
	}
	if name == "" {
		return errors.New("federation: Grid.Add: the member's name is empty")
	}
	if _, dup := g.byName[name]; dup {
		return fmt.Errorf("%w: %q", ErrDuplicateMember, name)
	}
	mb := &member{m: m, name: name, up: true, idx: len(g.members)}
	g.members = append(g.members, mb)
	g.byName[name] = mb
	g.refreshInfo(ctx, mb)
	if w, ok := m.(Watcher); ok {
		stop, err := guard(name, ctx, func(context.Context) (func(), error) {
			return w.Watch(func(e queue.Event) { g.Observe(name, e) }), nil
		})
		if err != nil {
			mb.up = false
			return err
		}
		mb.stop = stop
	}
	return nil
}

// refreshInfo asks a member what it offers.
func (g *Grid) refreshInfo(ctx context.Context, mb *member) {
	info, err := call(g, ctx, mb, mb.m.Info)
	if err == nil {
		mb.info, mb.known = info.clone(), true
	} else {
		mb.up = false
	}
}

// MemberStatus is a member as the grid sees it.
type MemberStatus struct {
	Name string
	Up   bool
	Info Info
}

// Members lists the members in the order they were added; the slice and
// the Infos' slices are the caller's.
func (g *Grid) Members() []MemberStatus {
	g.mu.Lock()
	defer g.mu.Unlock()
	out := make([]MemberStatus, len(g.members))
	for i, m := range g.members {
		out[i] = MemberStatus{Name: m.name, Up: m.up, Info: m.info.clone()}
	}
	return out
}

// Stats returns the grid's counters.
func (g *Grid) Stats() Stats {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.stats
}

// Observe tells the grid of a member's event; members that implement
// Watcher are observed without being asked. Events that change when jobs
// could start — a running job ending (early or not), a submission (a
// higher-priority job), node state changes, requeues, partition changes —
// make the next Tick re-evaluate at once (no sooner than the minimum gap).
// Observe never blocks on the grid's lock, so it may be called from
// inside a member call.
func (g *Grid) Observe(_ string, e queue.Event) {
	switch e.Kind {
	case queue.EventFinish, queue.EventCancel, queue.EventSubmit, queue.EventRequeue, queue.EventNodeDown,
		queue.EventNodeDrain, queue.EventNodeResume, queue.EventPartition, queue.EventPriority:
		g.trigger.Store(true)
	}
}

// eligible are the members a record may run on, in member order: its
// candidates that have its partition and allow its account.
func (g *Grid) eligible(r *record) []*member {
	return g.eligibleFor(r.candidates, r.spec.Request.Partition, r.spec.Account)
}

func (g *Grid) eligibleFor(candidates []string, partition, account string) []*member {
	var out []*member
	for _, m := range g.members {
		if candidates != nil && !slices.Contains(candidates, m.name) {
			continue
		}
		if m.known && m.accepts(partition, account) {
			out = append(out, m)
		}
	}
	return out
}

// groupKey is what decides which members a job may run on.
type groupKey struct {
	candidates         []string
	partition, account string
}

// groupID numbers r's candidates, partition and account.
func (g *Grid) groupID(r *record) int32 {
	k := strings.Join(r.candidates, ",") + "\x00" + r.spec.Request.Partition + "\x00" + r.spec.Account
	if r.candidates == nil {
		k = "\x01" + k // every member, not none
	}
	id, ok := g.groupIDs[k]
	if !ok {
		id = int32(len(g.groups))
		g.groupIDs[k] = id
		g.groups = append(g.groups, groupKey{slices.Clone(r.candidates), r.spec.Request.Partition, r.spec.Account})
	}
	return id
}

// shapeID numbers spec's shape; the first spec of a shape stands for it.
func (g *Grid) shapeID(spec queue.Spec) int32 {
	k := shapeKey(spec)
	id, ok := g.shapeIDs[k]
	if !ok {
		id = int32(len(g.shapeSpecs))
		g.shapeIDs[k] = id
		g.shapeSpecs = append(g.shapeSpecs, spec)
	}
	return id
}

// noCandidate says why no member is eligible for r.
func (g *Grid) noCandidate(r *record) error {
	switch {
	case len(g.members) == 0:
		return fmt.Errorf("%w: the grid has no members", ErrNoCandidate)
	case r.candidates != nil && len(r.candidates) == 0:
		return fmt.Errorf("%w: the candidate list is empty (nil names every member)", ErrNoCandidate)
	}
	return fmt.Errorf("%w: none has partition %q and allows account %q", ErrNoCandidate, r.spec.Request.Partition, r.spec.Account)
}

// checkCandidates rejects unknown member names.
func (g *Grid) checkCandidates(names []string) error {
	for _, n := range names {
		if _, ok := g.byName[n]; !ok {
			return fmt.Errorf("%w: %w %q", ErrInvalidSpec, ErrUnknownMember, n)
		}
	}
	return nil
}

// Submit accepts spec for the grid and returns its grid-unique ID.
// candidates name the members it may run on (nil: all); only those that
// have the requested partition and allow the account count. A job with a
// dependency (on grid jobs of any member; spec.Dependency, see
// ParseDependency) waits at the grid until it is met; any other is placed
// at once on the candidate that would start it soonest. spec.ID, when not
// 0, is the caller's choice of ID; a later Submit without one never fails
// because the ID source hands out a chosen ID: the grid skips it.
//
// It fails with ErrNoCandidate when no member could ever take the job,
// ErrInvalidSpec for a bad dependency or candidate, or the members'
// refusal, and with an error matching queue.ErrTime, before an ID is
// taken, when now is outside the years queue.CheckTime accepts. A name
// given twice in candidates counts once. The grid keeps its own copy of
// spec: changing the caller's slices later changes no job. When the
// candidates are all down the job waits at the grid.
func (g *Grid) Submit(ctx context.Context, spec queue.Spec, candidates []string, now time.Time) (queue.JobID, error) {
	if err := queue.CheckTime(now); err != nil {
		return 0, fmt.Errorf("federation: Submit: %w", err)
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if err := g.checkCandidates(candidates); err != nil {
		return 0, err
	}
	deps, err := ParseDependency(spec.Dependency)
	if err != nil {
		return 0, err
	}
	for _, t := range deps.Terms {
		if _, ok := g.jobs[t.Job]; t.Kind != Singleton && !ok {
			return 0, fmt.Errorf("%w: dependency on job %d, which the grid does not know", ErrInvalidSpec, t.Job)
		}
	}
	r := &record{spec: spec, deps: deps, submit: now, state: queue.Pending}
	// the grid keeps a job's spec to submit it again on every move, so a
	// caller that reuses its spec's slices must not change the job
	r.spec.Request = r.spec.Request.Clone()
	if candidates != nil {
		r.candidates = distinct(candidates)
	}
	r.spec.Dependency = ""
	if len(g.eligible(r)) == 0 {
		return 0, g.noCandidate(r)
	}
	if r.id, err = g.newID(ctx, spec.ID); err != nil {
		return 0, err
	}
	r.spec.ID = r.id
	r.shape = g.shapeID(r.spec)
	r.group = g.groupID(r)
	switch g.depState(r) {
	case depWaiting:
		r.reason = string(queue.ReasonDependency)
	case depNever:
		r.reason = string(queue.ReasonDependencyNeverSatisfied)
	default:
		r.deps = &Dependency{} // met for good, as Slurm clears it
		if err := g.place(ctx, r, now); err != nil && r.phase == atGrid && !errors.Is(err, ErrMemberDown) {
			return 0, err
		}
	}
	g.jobs[r.id] = r
	g.live = append(g.live, r)
	k := r.spec.User + "\x00" + r.spec.Name
	g.byUserName[k] = append(g.byUserName[k], r)
	g.stats.Submitted++
	return r.id, nil
}

// distinct is a copy of names, each name once, in the order of first
// mention (a name given twice is one candidate, not two).
func distinct(names []string) []string {
	out := make([]string, 0, len(names))
	for _, n := range names {
		if !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	return out
}

// newID is the caller's ID when given and free, else the source's next.
func (g *Grid) newID(ctx context.Context, want queue.JobID) (queue.JobID, error) {
	if want != 0 {
		if _, dup := g.jobs[want]; dup {
			return 0, fmt.Errorf("%w: %d", queue.ErrDuplicateID, want)
		}
		g.chosenIDs++
		return want, nil
	}
	// A source never repeats an ID, so one in use is a caller's choice:
	// skip it, as the queue's own counter does. Each skip passes a
	// different chosen ID, so a source that does repeat is still caught.
	for skips := 0; ; skips++ {
		id, err := g.ids.NextJobID(ctx)
		switch {
		case err != nil:
			return 0, fmt.Errorf("federation: job ID source: %w", err)
		case id == 0:
			return 0, errors.New("federation: job ID source returned 0")
		}
		if _, dup := g.jobs[id]; !dup {
			return id, nil
		}
		if skips >= g.chosenIDs {
			return 0, fmt.Errorf("%w: the ID source repeated %d", queue.ErrDuplicateID, id)
		}
	}
}
