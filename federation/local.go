package federation

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hpcsched/hpcsched/queue"
)

// Local is an in-process Member over a *queue.Scheduler.
type Local struct {
	name     string
	s        *queue.Scheduler
	info     Info
	capacity int
	byUser   bool

	// version counts the scheduler's changes that move forecasts (starts,
	// ends, node and partition changes); forecasts are cached until it
	// moves. Pending jobs do not count: WillRunSpec ignores them.
	version  atomic.Uint64
	mu       sync.Mutex
	cache    map[shape]Estimate
	cachedAt uint64
}

// LocalOption configures NewLocal.
type LocalOption func(*Local)

// Accounts makes the member accept only these accounts (Slurm's
// AccountingStorageEnforce=associations); by default, and with no names,
// it accepts any.
func Accounts(names ...string) LocalOption {
	return func(l *Local) { l.info.Accounts = append([]string(nil), names...) }
}

// ForecastByUser forecasts each user's requests apart. By default a
// request is forecast once whoever asks (the answer depends on the user
// only through AdmitPlugins): give it when the scheduler's AdmitPlugins
// rewrite or refuse requests by user.
func ForecastByUser() LocalOption { return func(l *Local) { l.byUser = true } }

// NewLocal makes s a member named name. Call it before anything else uses
// s (it reads the cluster's partitions and CPUs once, and subscribes to
// its events to know when cached forecasts go stale).
func NewLocal(name string, s *queue.Scheduler, opts ...LocalOption) *Local {
	if s == nil {
		panic("federation.NewLocal: the scheduler is nil")
	}
	c := s.Cluster()
	l := &Local{name: name, s: s}
	l.info.Partitions = append(l.info.Partitions, c.PartitionNames()...)
	for _, o := range opts {
		o(l)
	}
	s.Subscribe(func(e queue.Event) {
		if movesForecasts(e) {
			l.version.Add(1)
		}
	})
	for i := 0; i < c.NodeCount(); i++ {
		l.capacity += max(c.Node(i).CPUs, 1)
	}
	return l
}

// Scheduler is the member's scheduler.
func (l *Local) Scheduler() *queue.Scheduler { return l.s }

// Name implements Member.
func (l *Local) Name() string { return l.name }

// Info implements Member; the Info is the caller's.
func (l *Local) Info(ctx context.Context) (Info, error) { return l.info.clone(), ctx.Err() }

// Watch implements Watcher.
func (l *Local) Watch(f func(queue.Event)) func() { return l.s.Subscribe(f) }

// Submit implements Member.
func (l *Local) Submit(ctx context.Context, spec queue.Spec, now time.Time) error {
	_, err := l.s.SubmitContext(ctx, spec, now)
	return err
}

// Hold implements Member.
func (l *Local) Hold(_ context.Context, id queue.JobID, now time.Time) error {
	return l.s.Hold(id, now)
}

// Release implements Member.
func (l *Local) Release(_ context.Context, id queue.JobID, now time.Time) error {
	return l.s.Release(id, now)
}

// Cancel implements Member.
func (l *Local) Cancel(ctx context.Context, id queue.JobID, now time.Time) error {
	return l.s.CancelContext(ctx, id, now)
}

// Jobs implements Member.
func (l *Local) Jobs(ctx context.Context, ids []queue.JobID) ([]JobInfo, error) {
	out := make([]JobInfo, len(ids))
	for i, id := range ids {
		out[i].ID = id
		j, ok := l.s.Job(id)
		if !ok {
			continue
		}
		out[i] = JobInfo{ID: id, Found: true, State: j.State, Held: j.Held, Reason: j.Reason,
			Start: j.Start, End: j.End, ExitCode: j.ExitCode, Nodes: j.Nodes()}
	}
	return out, ctx.Err()
}

// Estimate implements Member: the start WillRunSpec forecasts (running
// jobs only, like Slurm's --test-only), but no earlier than the pending
// work ahead of the job could drain at full capacity — the work of all
// pending jobs for a new spec, the work queued before it for a pending
// job. Requests that ask the same are forecast once.
func (l *Local) Estimate(ctx context.Context, q EstimateQuery, now time.Time) (EstimateReply, error) {
	want := make(map[queue.JobID]int, len(q.Pending))
	for i, id := range q.Pending {
		want[id] = i
	}
	r := EstimateReply{Capacity: l.capacity, Specs: make([]Estimate, len(q.Specs)), Pending: make([]Estimate, len(q.Pending))}
	found := make([]bool, len(q.Pending))
	l.mu.Lock()
	defer l.mu.Unlock()
	if v := l.version.Load(); l.cache == nil || v != l.cachedAt {
		l.cache, l.cachedAt = map[shape]Estimate{}, v
	}
	for _, j := range l.s.Pending() { // in queue order: the work ahead of each job
		if i, ok := want[j.ID]; ok {
			spec := queue.Spec{User: j.User, Account: j.Account, Request: j.Request, TimeLimit: j.TimeLimit, Begin: j.Begin}
			r.Pending[i], found[i] = l.drain(l.willRun(ctx, spec, now, l.cache), r.Backlog, now), true
		}
		if !j.Held {
			r.Backlog += cpuSeconds(j.Request, j.TimeLimit)
		}
	}
	for i, ok := range found {
		if !ok {
			r.Pending[i].Err = fmt.Errorf("%w: job %d is not pending on %s", queue.ErrJobState, q.Pending[i], l.name)
		}
	}
	for i, spec := range q.Specs {
		r.Specs[i] = l.drain(l.willRun(ctx, spec, now, l.cache), r.Backlog, now)
	}
	return r, ctx.Err()
}

// willRun asks the scheduler once per distinct request.
func (l *Local) willRun(ctx context.Context, spec queue.Spec, now time.Time, cache map[shape]Estimate) Estimate {
	if !l.byUser {
		spec.User = ""
	}
	key := shapeKey(spec)
	if e, ok := cache[key]; ok {
		// computed at an earlier now on the same running jobs: the start
		// it was clamped to has only to be clamped to this now
		e.Start = later(e.Start, now)
		return e
	}
	start, _, err := l.s.WillRunSpec(ctx, spec, now) // spec.User may be blank: see ForecastByUser
	e := Estimate{Start: start}
	switch {
	case err == nil:
	case errors.Is(err, queue.ErrInvalidSpec) || errors.Is(err, queue.ErrRefused):
		e.Err = err
	default:
		e.Unavailable = true
	}
	cache[key] = e
	return e
}

// movesForecasts reports whether an event changes what WillRunSpec says:
// a change of the running jobs, the nodes or the partitions.
func movesForecasts(e queue.Event) bool {
	switch e.Kind {
	case queue.EventStart, queue.EventFinish, queue.EventRequeue, queue.EventSuspend, queue.EventResume,
		queue.EventUpdate, queue.EventNodeDown, queue.EventNodeDrain, queue.EventNodeResume, queue.EventPartition:
		return true
	case queue.EventCancel:
		_, ran := e.Payload.(*queue.EndPayload)
		return ran
	}
	return false
}

// drain delays e until work CPU-seconds could have run on the member.
func (l *Local) drain(e Estimate, work float64, now time.Time) Estimate {
	if e.Err != nil || e.Unavailable {
		return e
	}
	e.Start = later(e.Start, now.Add(drainTime(work, l.capacity)))
	return e
}
