package queue

import (
	"context"
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
// A nil src panics.
func WithIDSource(src IDSource) Option {
	if src == nil {
		panic("queue.WithIDSource: src is nil")
	}
	return func(o *options) { o.ids = src }
}

// Limits on what a submission may say. Beyond them Submit and Update
// return ErrInvalidSpec (ErrTime for a Begin time).
const (
	// MaxNice bounds |Nice|, as Slurm's --nice does.
	MaxNice = 2147483645
	// MaxBeginYear is the latest year a Begin time may fall in: MaxYear,
	// like every time the scheduler accepts (an ErrTime error beyond).
	MaxBeginYear = MaxYear
	// MaxTimeLimit is the longest time limit (a century).
	MaxTimeLimit = 100 * 365 * 24 * time.Hour
)

// Submit validates spec and queues it. A job that can never run on this
// configuration (selectnodes ErrNodeConfig in TestOnly mode, as Slurm's
// job_allocate checks) is rejected with the selection error, which carries
// the explanation; so are invalid requests and dependencies naming
// unknown jobs. Every rejection matches one of ErrInvalidSpec,
// ErrDuplicateID, ErrLimit, ErrRefused, ErrTime or ErrIDSource (the
// IDSource failed; its own error is wrapped too). The check's pass for a
// plain request (no features, node lists, withheld nodes, GRES or groups)
// is remembered per request shape until SetNodeState or UpdatePartition
// changes the cluster, one more reason the cluster given to New changes
// only through the Scheduler.
func (s *Scheduler) Submit(spec Spec, now time.Time) (JobID, error) {
	return s.SubmitContext(context.Background(), spec, now)
}

// SubmitContext is Submit with a context for the plugins and the IDSource.
// AdmitPlugins see (and may rewrite) spec first, outside the lock.
func (s *Scheduler) SubmitContext(ctx context.Context, spec Spec, now time.Time) (JobID, error) {
	if err := CheckTime(now); err != nil {
		return 0, err
	}
	spec.own() // the caller may reuse its Spec
	if len(s.opts.admit) > 0 {
		// the plugins get a copy of their own: handing them &spec would
		// move every submission's spec to the heap
		admitted := spec
		if err := s.runAdmit(ctx, &admitted, now); err != nil {
			return 0, err
		}
		spec = admitted
		spec.own() // a plugin may keep the Spec it saw (an audit log): not its slices
	}
	if err := checkSpec(&spec); err != nil {
		return 0, err
	}
	id := spec.ID
	if id == 0 && s.opts.ids != nil {
		var err error
		if id, err = s.opts.ids.NextJobID(ctx); err != nil {
			return 0, fmt.Errorf("%w: %w", ErrIDSource, err)
		}
		if id == 0 {
			return 0, fmt.Errorf("%w: it returned 0", ErrIDSource)
		}
	}
	s.lock(ctx)
	defer s.unlock()
	s.submits++ // a submission only queues a job (EASY.BackfillSubmittedIDs)
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
	s.saw(now)
	if id == s.nextID && s.nextID < lastJobID {
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
		if s.nextID == 0 || s.nextID == lastJobID && s.idUsed(lastJobID) {
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

// lastJobID is the largest job ID; the counter stops there rather than
// wrap to 0.
const lastJobID = JobID(math.MaxUint64)

// checkSpec rejects values the scheduler cannot represent or order, and
// settles the time limit: Spec.TimeLimit, or Spec.Request.TimeLimit when
// only that is given (two different ones are an error).
func checkSpec(spec *Spec) error {
	limit, err := oneTimeLimit(spec.TimeLimit, spec.Request.TimeLimit)
	if err != nil {
		return err
	}
	spec.TimeLimit = limit
	switch {
	case spec.Nice < -MaxNice || spec.Nice > MaxNice:
		return invalid("nice %d outside ±%d", spec.Nice, MaxNice)
	case spec.Priority < 0:
		return invalid("priority %d is negative", spec.Priority)
	case spec.TimeMin < 0 || spec.TimeLimit > 0 && spec.TimeMin > spec.TimeLimit:
		return invalid("time-min %s outside 0 to the time limit %s", spec.TimeMin, spec.TimeLimit)
	case spec.TimeLimit > MaxTimeLimit:
		return invalid("time limit %s above the limit of %s", spec.TimeLimit, MaxTimeLimit)
	}
	if !spec.Begin.IsZero() {
		if err := CheckTime(spec.Begin); err != nil {
			return fmt.Errorf("begin time: %w", err)
		}
	}
	return nil
}

// newJob builds the record of a submission with ID id, validating its
// dependency and request against the scheduler.
func (s *Scheduler) newJob(id JobID, spec *Spec, now time.Time) (*job, error) {
	// most jobs name no dependency: their record keeps none (nil), which
	// every use reads as the empty one, rather than an allocation each
	var deps *Dependency
	if spec.Dependency != "" {
		var err error
		if deps, err = ParseDependency(spec.Dependency); err != nil {
			return nil, invalidErr(err)
		}
	}
	for _, t := range deps.targets() {
		if t == id {
			return nil, invalid("job %d would depend on itself", id)
		}
		if s.bare.has(t) {
			return nil, forgottenBare(t)
		}
		if !s.idUsed(t) {
			return nil, invalid("dependency on unknown job %d", t)
		}
	}
	// the admission check reads the request in the new record, where it
	// is kept: a local copy would go to the heap as well
	j := s.newRecord()
	j.Request, j.deps = spec.Request, deps
	req := &j.Request
	if req.Partition == "" {
		req.Partition = s.c.DefaultPartition()
	}
	if req.QOS == "" {
		req.QOS = DefaultQOS // as Slurm checks AllowQos/DenyQos
	}
	if err := s.admissible(req); err != nil {
		return nil, err
	}
	limit := s.timeLimit(spec.TimeLimit, req.Partition)
	req.TimeLimit = limit
	s.seq++
	// the fields set one by one in the new record (every other one is
	// zero): a Job literal would be built aside and copied in whole
	r := &j.Job
	r.ID, r.Name, r.User, r.Account, r.Partition = id, spec.Name, spec.User, spec.Account, req.Partition
	r.AdminPriority, r.Nice, r.Submit, r.Begin = spec.Priority, spec.Nice, now, spec.Begin
	r.TimeLimit, r.TimeMin, r.Dependency, r.Requeue = limit, spec.TimeMin, spec.Dependency, spec.Requeue
	r.State, r.Held, r.seq = Pending, spec.Hold || s.opts.external, s.seq
	return j, nil
}

// add records a new job.
func (s *Scheduler) add(j *job) {
	s.jobs[j.ID] = j
	s.maxID = max(s.maxID, j.ID)
	if j.deps.namesJobs() {
		s.depJobs++
	}
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
	return isSelectClass(err, selectnodes.ErrNodeConfig) || isSelectClass(err, selectnodes.ErrInvalidRequest)
}

// admissible is Slurm's check at job_allocate: a TestOnly selection, which
// rejects only requests that can never run on this configuration.
func (s *Scheduler) admissible(req *selectnodes.Request) error {
	// A probe settles the usual case, a request that fits an idle cluster,
	// without building an allocation; only a misfit pays for the classified
	// (and explained) selection.
	if s.admittedBefore(req) {
		return nil
	}
	if _, ok := s.c.ProbeNodes(req, selectnodes.TestOnly); ok {
		s.noteAdmitted(req)
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

// oneTimeLimit is the time limit of a Spec or Update that may give it as
// TimeLimit or as Request.TimeLimit: whichever is set (0 for neither); both
// set and different is ErrInvalidSpec.
func oneTimeLimit(own, request time.Duration) (time.Duration, error) {
	switch {
	case own < 0 || request < 0:
		return 0, invalid("negative time limit")
	case own > 0 && request > 0 && own != request:
		return 0, invalid("two time limits: TimeLimit %s and Request.TimeLimit %s (give one)", own, request)
	case own > 0:
		return own, nil
	}
	return request, nil
}

// DefaultQOS is the QOS of a job that names none, as Slurm's default
// association QOS: where the cluster checks QOS
// (selectnodes.WithQOSChecks), a partition's AllowQOS and DenyQOS judge
// it by this name.
const DefaultQOS = selectnodes.DefaultQOS

// timeLimit is a job's time limit in partition part: its own, else the
// partition's DefaultTime, else its MaxTime (0, none, when it has
// neither), as Slurm's job_submit gives it.
func (s *Scheduler) timeLimit(own time.Duration, part string) time.Duration {
	if own > 0 {
		return own
	}
	p, _ := s.c.PartitionLimits(part)
	if p.DefaultTime > 0 {
		return p.DefaultTime
	}
	return p.MaxTime
}
