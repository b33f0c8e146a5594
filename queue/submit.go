package queue

import (
	"context"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/hpcsched/hpcsched/selectnodes"
)

// IDSource hands out job IDs, so that several schedulers (a grid) can
// share one ID space. NextJobID must never return an ID it returned
// before; 0 is not an ID. It is called outside the scheduler's lock, once
// per Submit that does not name its own ID.
type IDSource interface {
	NextJobID(ctx context.Context) (JobID, error)
}

// WithIDSource takes job IDs from src instead of the scheduler's own
// counter (which starts at WithFirstJobID and skips IDs in use).
func WithIDSource(src IDSource) Option { return func(o *options) { o.ids = src } }

// Limits on what a submission may say. Beyond them Submit and Update
// return ErrInvalidSpec.
const (
	// MaxNice bounds |Nice|, as Slurm's --nice does.
	MaxNice = 2147483645
	// MaxBeginYear is the latest year a Begin time may fall in (the state
	// format writes RFC 3339 times, which have four-digit years).
	MaxBeginYear = 9999
	// MaxTimeLimit is the longest time limit (a century).
	MaxTimeLimit = 100 * 365 * 24 * time.Hour
)

// Submit validates spec and queues it. A job that can never run on this
// configuration (selectnodes ErrNodeConfig in TestOnly mode, as Slurm's
// job_allocate checks) is rejected with the selection error, which carries
// the explanation; so are invalid requests and dependencies naming
// unknown jobs. Every rejection matches ErrInvalidSpec, ErrDuplicateID,
// ErrLimit or ErrRefused.
func (s *Scheduler) Submit(spec Spec, now time.Time) (JobID, error) {
	return s.SubmitContext(context.Background(), spec, now)
}

// SubmitContext is Submit with a context for the plugins and the IDSource.
// AdmitPlugins see (and may rewrite) spec first, outside the lock.
func (s *Scheduler) SubmitContext(ctx context.Context, spec Spec, now time.Time) (JobID, error) {
	if len(s.opts.admit) > 0 {
		// the plugins get a copy of their own: handing them &spec would
		// move every submission's spec to the heap
		admitted := spec
		if err := s.runAdmit(ctx, &admitted, now); err != nil {
			return 0, err
		}
		spec = admitted
	}
	if err := checkSpec(&spec); err != nil {
		return 0, err
	}
	id := spec.ID
	if id == 0 && s.opts.ids != nil {
		var err error
		if id, err = s.opts.ids.NextJobID(ctx); err != nil {
			return 0, fmt.Errorf("queue: job ID source: %w", err)
		}
		if id == 0 {
			return 0, errors.New("queue: job ID source returned 0")
		}
	}
	s.lock(ctx)
	defer s.unlock()
	if id == 0 {
		var err error
		if id, err = s.counterID(); err != nil {
			return 0, err
		}
	} else if s.idUsed(id) {
		return 0, fmt.Errorf("%w: %d", ErrDuplicateID, id)
	}
	j, err := s.newJob(id, &spec, now)
	if err != nil {
		return 0, err
	}
	if id == s.nextID {
		s.nextID++
	}
	s.add(j)
	s.computePriority(j, now)
	s.enqueue(j)
	j.Reason = s.pendingReason(j, now)
	s.jobEvent(EventSubmit, j, now, "")
	return j.ID, nil
}

// counterID is the scheduler's own next free ID.
func (s *Scheduler) counterID() (JobID, error) {
	for {
		if s.nextID == 0 {
			return 0, fmt.Errorf("%w: job IDs exhausted", ErrLimit)
		}
		// above every ID in use (maxID, kept by add) it is free: no probe
		// of a large map for a key it does not hold
		if s.nextID > s.maxID {
			return s.nextID, nil
		}
		if !s.idUsed(s.nextID) {
			return s.nextID, nil
		}
		s.nextID++
	}
}

// checkSpec rejects values the scheduler cannot represent or order.
func checkSpec(spec *Spec) error {
	switch {
	case spec.Nice < -MaxNice || spec.Nice > MaxNice:
		return invalid("nice %d outside ±%d", spec.Nice, MaxNice)
	case spec.Priority < 0:
		return invalid("priority %d is negative", spec.Priority)
	case spec.TimeMin < 0 || spec.TimeLimit > 0 && spec.TimeMin > spec.TimeLimit:
		return invalid("time-min %s outside 0 to the time limit %s", spec.TimeMin, spec.TimeLimit)
	case spec.TimeLimit > MaxTimeLimit:
		return invalid("time limit %s above the limit of %s", spec.TimeLimit, MaxTimeLimit)
	case !spec.Begin.IsZero() && (spec.Begin.Year() < 1 || spec.Begin.Year() > MaxBeginYear):
		return invalid("begin time %s outside years 1 to %d", spec.Begin.Format(time.RFC3339), MaxBeginYear)
	}
	return nil
}

// newJob builds the record of a submission with ID id, validating its
// dependency and request against the scheduler.
func (s *Scheduler) newJob(id JobID, spec *Spec, now time.Time) (*job, error) {
	deps, err := ParseDependency(spec.Dependency)
	if err != nil {
		return nil, invalidErr(err)
	}
	for _, t := range deps.targets() {
		if t == id {
			return nil, invalid("job %d would depend on itself", id)
		}
		if !s.idUsed(t) {
			return nil, invalid("dependency on unknown job %d", t)
		}
	}
	// the admission check reads the request in the new record, where it
	// is kept: a local copy would go to the heap as well
	j := &job{Job: Job{Request: spec.Request}, deps: deps}
	req := &j.Request
	if req.Partition == "" {
		req.Partition = s.c.DefaultPartition()
	}
	if err := s.admissible(req); err != nil {
		return nil, err
	}
	limit := spec.TimeLimit
	if limit <= 0 {
		p, _ := s.c.Partition(req.Partition)
		limit = p.MaxTime
	}
	req.TimeLimit = limit
	s.seq++
	j.Job = Job{ID: id, Name: spec.Name, User: spec.User, Account: spec.Account, Partition: req.Partition,
		AdminPriority: spec.Priority, Nice: spec.Nice, Submit: now, Begin: spec.Begin, TimeLimit: limit, TimeMin: spec.TimeMin,
		Dependency: spec.Dependency, Requeue: spec.Requeue, Request: *req, State: Pending,
		Held: spec.Hold || s.opts.external, seq: s.seq}
	return j, nil
}

// add records a new job.
func (s *Scheduler) add(j *job) {
	s.jobs[j.ID] = j
	s.maxID = max(s.maxID, j.ID)
	if s.byUserName != nil {
		key := userName(j)
		s.byUserName[key] = append(s.byUserName[key], j)
	}
}

// sameUserName lists the jobs of j's user and name. The index is built on
// the first call (a singleton dependency) and kept by add from then on:
// a queue that never sees one pays no key and no map entry per job.
func (s *Scheduler) sameUserName(j *job) []*job {
	if s.byUserName == nil {
		s.byUserName = make(map[string][]*job, len(s.jobs))
		for _, id := range s.ids() {
			o := s.jobs[id]
			s.byUserName[userName(o)] = append(s.byUserName[userName(o)], o)
		}
	}
	return s.byUserName[userName(j)]
}

func userName(j *job) string { return j.User + "\x00" + j.Name }

// neverRuns reports whether a selection error means the request can never
// run here (as opposed to not now).
func neverRuns(err error) bool {
	return errors.Is(err, selectnodes.ErrNodeConfig) || errors.Is(err, selectnodes.ErrInvalidRequest)
}

// admissible is Slurm's check at job_allocate: a TestOnly selection, which
// rejects only requests that can never run on this configuration.
func (s *Scheduler) admissible(req *selectnodes.Request) error {
	// A probe settles the usual case, a request that fits an idle cluster,
	// without building an allocation; only a misfit pays for the classified
	// (and explained) selection.
	if _, ok := s.c.ProbeNodes(req, selectnodes.TestOnly); ok {
		return nil
	}
	if _, err := s.c.SelectNodes(req, selectnodes.TestOnly); err != nil && neverRuns(err) {
		return invalidErr(err)
	}
	return nil
}

// effectivePriority is the admin or policy priority less nice, saturating
// so that no combination of user numbers overflows, and at least 1.
func effectivePriority(p, nice int64) int64 {
	switch {
	case nice > 0 && p < math.MinInt64+nice:
		p = math.MinInt64
	case nice < 0 && p > math.MaxInt64+nice:
		p = math.MaxInt64
	default:
		p -= nice
	}
	return max(1, p)
}
