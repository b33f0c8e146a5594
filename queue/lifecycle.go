package queue

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/hpcsched/hpcsched/selectnodes"
)

// Submit validates spec and queues it. A job that can never run on this
// configuration (selectnodes ErrNodeConfig in TestOnly mode, as Slurm's
// job_allocate checks) is rejected with the selection error, which carries
// the explanation; so are invalid requests and dependencies naming
// unknown jobs.
func (s *Scheduler) Submit(spec Spec, now time.Time) (JobID, error) {
	s.mu.Lock()
	defer s.unlock()
	deps, err := ParseDependency(spec.Dependency)
	if err != nil {
		return 0, err
	}
	for _, id := range deps.targets() {
		if id == s.nextID {
			return 0, fmt.Errorf("queue: job %d would depend on itself", id)
		}
		if _, ok := s.jobs[id]; !ok {
			return 0, fmt.Errorf("queue: dependency on unknown job %d", id)
		}
	}
	req := spec.Request
	if req.Partition == "" {
		req.Partition = s.c.DefaultPartition()
	}
	if err := s.admissible(&req); err != nil {
		return 0, err
	}
	limit := spec.TimeLimit
	if limit <= 0 {
		p, _ := s.c.Partition(req.Partition)
		limit = p.MaxTime
	}
	req.TimeLimit = limit
	s.seq++
	j := &job{Job: Job{ID: s.nextID, Name: spec.Name, User: spec.User, Account: spec.Account, Partition: req.Partition,
		AdminPriority: spec.Priority, Nice: spec.Nice, Submit: now, Begin: spec.Begin, TimeLimit: limit,
		Dependency: spec.Dependency, Requeue: spec.Requeue, Request: req, State: Pending,
		Held: spec.Hold || s.opts.external, seq: s.seq}, deps: deps}
	s.nextID++
	s.jobs[j.ID] = j
	key := j.User + "\x00" + j.Name
	s.byUserName[key] = append(s.byUserName[key], j)
	s.computePriority(j, now)
	s.enqueue(j)
	j.Reason = s.pendingReason(j, now)
	s.jobEvent(EventSubmit, j, now, "")
	return j.ID, nil
}

// neverRuns reports whether a selection error means the request can never
// run here (as opposed to not now).
func neverRuns(err error) bool {
	return errors.Is(err, selectnodes.ErrNodeConfig) || errors.Is(err, selectnodes.ErrInvalidRequest)
}

// admissible is Slurm's check at job_allocate: a TestOnly selection, which
// rejects only requests that can never run on this configuration.
func (s *Scheduler) admissible(req *selectnodes.Request) error {
	if _, err := s.c.SelectNodes(req, selectnodes.TestOnly); err != nil && neverRuns(err) {
		return err
	}
	return nil
}

// pendingReason is why an eligible-looking job waits, before selection.
func (s *Scheduler) pendingReason(j *job, now time.Time) Reason {
	switch {
	case j.Held && s.opts.external:
		return ReasonExternal
	case j.Held:
		return ReasonHeld
	case now.Before(j.Begin):
		return ReasonBeginTime
	}
	switch j.deps.evaluate(s, j, now) {
	case depWaiting:
		return ReasonDependency
	case depNever:
		return ReasonDependencyNeverSatisfied
	}
	return ReasonPriority
}

// end finishes a running or suspended job: release its nodes, set its
// terminal state and emit one event.
func (s *Scheduler) end(j *job, st State, kind EventKind, now time.Time, detail string) {
	if j.State == Running || j.State == Suspended {
		_ = s.c.Release(j.ID) // allocated by start; cannot be missing
		delete(s.active, j.ID)
	}
	s.dequeue(j)
	j.State, j.Reason, j.End = st, ReasonNone, now
	s.jobEvent(kind, j, now, detail)
}

// Cancel ends a pending, running or suspended job.
func (s *Scheduler) Cancel(id JobID, now time.Time) error {
	s.mu.Lock()
	defer s.unlock()
	j, err := s.get(id)
	if err != nil {
		return err
	}
	if j.State.Terminal() {
		return stateErr(j, "cancel")
	}
	s.end(j, Cancelled, EventCancel, now, "")
	return nil
}

// Finish records how a running (or suspended) job ended. A node failure
// requeues a job submitted with Requeue.
func (s *Scheduler) Finish(id JobID, out Outcome, now time.Time) error {
	s.mu.Lock()
	defer s.unlock()
	j, err := s.get(id)
	if err != nil {
		return err
	}
	if j.State != Running && j.State != Suspended {
		return stateErr(j, "finish")
	}
	j.ExitCode = out.ExitCode
	switch {
	case out.Kind == NodeFailure && j.Requeue:
		s.requeue(j, now, "node failure")
	case out.Kind == NodeFailure:
		s.end(j, NodeFail, EventFinish, now, "node failure")
	case out.Kind == Failure || out.ExitCode != 0:
		s.end(j, Failed, EventFinish, now, fmt.Sprintf("exit code %d", out.ExitCode))
	default:
		s.end(j, Complete, EventFinish, now, "exit code 0")
	}
	return nil
}

// Tick ends running jobs whose time limit has passed (TIMEOUT) and returns
// their IDs.
func (s *Scheduler) Tick(now time.Time) []JobID {
	s.mu.Lock()
	defer s.unlock()
	var out []JobID
	for _, id := range s.runningIDs() {
		j := s.jobs[id]
		if j.State == Running && j.TimeLimit > 0 && !now.Before(j.End) {
			s.end(j, Timeout, EventFinish, now, "time limit")
			out = append(out, id)
		}
	}
	return out
}

// runningIDs are the running and suspended jobs, ascending.
func (s *Scheduler) runningIDs() []JobID { return slices.Sorted(maps.Keys(s.active)) }

func (s *Scheduler) ids() []JobID { return slices.Sorted(maps.Keys(s.jobs)) }

// Requeue puts a running or suspended job back in the queue.
func (s *Scheduler) Requeue(id JobID, now time.Time) error {
	s.mu.Lock()
	defer s.unlock()
	j, err := s.get(id)
	if err != nil {
		return err
	}
	if j.State != Running && j.State != Suspended {
		return stateErr(j, "requeue")
	}
	s.requeue(j, now, "")
	return nil
}

func (s *Scheduler) requeue(j *job, now time.Time, detail string) {
	_ = s.c.Release(j.ID)
	delete(s.active, j.ID)
	j.State, j.Start, j.End = Pending, time.Time{}, time.Time{}
	j.Restarts++
	s.enqueue(j)
	j.Reason = s.pendingReason(j, now)
	s.jobEvent(EventRequeue, j, now, detail)
}

// transition applies one simple state change to job id: ok says whether
// the job's state allows it (op names it in the error), apply makes it,
// and one event of kind reports it.
func (s *Scheduler) transition(id JobID, now time.Time, op string, kind EventKind, ok func(*job) bool, apply func(*job)) error {
	s.mu.Lock()
	defer s.unlock()
	j, err := s.get(id)
	if err != nil {
		return err
	}
	if !ok(j) {
		return stateErr(j, op)
	}
	apply(j)
	s.jobEvent(kind, j, now, "")
	return nil
}

// Suspend stops a running job; it keeps its nodes.
func (s *Scheduler) Suspend(id JobID, now time.Time) error {
	return s.transition(id, now, "suspend", EventSuspend,
		func(j *job) bool { return j.State == Running },
		func(j *job) { j.State, j.suspendedAt = Suspended, now })
}

// Resume restarts a suspended job; its expected end moves by the time it
// was suspended.
func (s *Scheduler) Resume(id JobID, now time.Time) error {
	return s.transition(id, now, "resume", EventResume,
		func(j *job) bool { return j.State == Suspended },
		func(j *job) {
			if j.TimeLimit > 0 {
				j.End = j.End.Add(now.Sub(j.suspendedAt))
			}
			j.State = Running
		})
}

// Hold keeps a pending job from starting.
func (s *Scheduler) Hold(id JobID, now time.Time) error {
	return s.transition(id, now, "hold", EventHold,
		func(j *job) bool { return j.State == Pending && !j.Held },
		func(j *job) { j.Held, j.Reason = true, ReasonHeld })
}

// Release lets a held job start again.
func (s *Scheduler) Release(id JobID, now time.Time) error {
	return s.transition(id, now, "release", EventRelease,
		func(j *job) bool { return j.State == Pending && j.Held },
		func(j *job) {
			j.Held = false
			j.Reason = s.pendingReason(j, now)
		})
}

// Update changes a job. Zero fields of u are left alone. A pending job's
// request, partition and time limit are revalidated as at Submit; a
// running job may change only its time limit and priority.
type Update struct {
	Partition  string
	TimeLimit  time.Duration
	Priority   int64 // administrator priority; -1 hands it back to the policy
	Nice       *int64
	Request    *selectnodes.Request
	Dependency *string
	Begin      *time.Time
}

// Update applies u to job id.
func (s *Scheduler) Update(id JobID, u Update, now time.Time) error {
	s.mu.Lock()
	defer s.unlock()
	j, err := s.get(id)
	if err != nil {
		return err
	}
	if j.State.Terminal() {
		return stateErr(j, "update")
	}
	pending := j.State == Pending
	if !pending && (u.Partition != "" || u.Request != nil || u.Dependency != nil || u.Begin != nil) {
		return stateErr(j, "change the request of")
	}
	next := *j
	if u.Request != nil {
		next.Request = *u.Request
		next.Request.Partition = j.Partition
	}
	if u.Partition != "" {
		next.Partition, next.Request.Partition = u.Partition, u.Partition
	}
	if u.TimeLimit > 0 {
		next.TimeLimit = u.TimeLimit
		next.Request.TimeLimit = u.TimeLimit
	}
	if u.Dependency != nil {
		d, err := ParseDependency(*u.Dependency)
		if err != nil {
			return err
		}
		if err := s.checkCycle(j.ID, d); err != nil {
			return err
		}
		next.deps, next.Dependency = d, *u.Dependency
	}
	if u.Begin != nil {
		next.Begin = *u.Begin
	}
	if pending {
		if err := s.admissible(&next.Request); err != nil {
			return err
		}
	}
	switch {
	case u.Priority == -1:
		next.AdminPriority = 0
	case u.Priority > 0:
		next.AdminPriority = u.Priority
	}
	if u.Nice != nil {
		next.Nice = *u.Nice
	}
	if !pending && u.TimeLimit > 0 {
		next.End = next.Start.Add(next.TimeLimit)
	}
	oldPrio := j.Priority
	s.dequeue(j)
	*j = next
	j.queued = false
	s.computePriority(j, now)
	if pending {
		s.enqueue(j)
		j.Reason = s.pendingReason(j, now)
	}
	s.jobEvent(EventUpdate, j, now, "")
	if j.Priority != oldPrio {
		s.jobEvent(EventPriority, j, now, fmt.Sprintf("%d -> %d", oldPrio, j.Priority))
	}
	return nil
}

// checkCycle rejects a dependency of job id that leads back to it.
func (s *Scheduler) checkCycle(id JobID, d *Dependency) error {
	seen := map[JobID]bool{}
	stack := d.targets()
	for len(stack) > 0 {
		t := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if t == id {
			return fmt.Errorf("queue: dependency of job %d is circular", id)
		}
		if seen[t] {
			continue
		}
		seen[t] = true
		o, ok := s.jobs[t]
		if !ok {
			return fmt.Errorf("queue: dependency on unknown job %d", t)
		}
		stack = append(stack, o.deps.targets()...)
	}
	return nil
}

// SetNodeState changes a node's state in the cluster. Jobs running on a
// node that goes down end with NODE_FAIL (or are requeued when they asked
// to be).
func (s *Scheduler) SetNodeState(name string, st selectnodes.NodeState, now time.Time) error {
	s.mu.Lock()
	defer s.unlock()
	if err := s.c.SetNodeState(name, st); err != nil {
		return err
	}
	kind := map[selectnodes.NodeState]EventKind{selectnodes.NodeUp: EventNodeResume,
		selectnodes.NodeDrain: EventNodeDrain, selectnodes.NodeDown: EventNodeDown}[st]
	s.emit(Event{Kind: kind, Time: now, Node: name})
	if st != selectnodes.NodeDown {
		return nil
	}
	for _, id := range s.runningIDs() {
		j := s.jobs[id]
		if (j.State == Running || j.State == Suspended) && j.Placement != nil && containsName(j.Placement.Names, name) {
			if j.Requeue {
				s.requeue(j, now, "node "+name+" down")
			} else {
				s.end(j, NodeFail, EventFinish, now, "node "+name+" down")
			}
		}
	}
	return nil
}

func containsName(names []string, n string) bool { return slices.Contains(names, n) }

// UpdatePartition adds or changes a partition; pending jobs of it are
// re-ordered by its new priority.
func (s *Scheduler) UpdatePartition(p selectnodes.Partition, now time.Time) error {
	s.mu.Lock()
	defer s.unlock()
	if err := s.c.UpdatePartition(p); err != nil {
		return err
	}
	s.maxPartPrio = -1
	for _, id := range s.ids() {
		if j := s.jobs[id]; j.State == Pending && j.Partition == p.Name {
			s.enqueue(j)
		}
	}
	s.emit(Event{Kind: EventPartition, Time: now, Partition: p.Name})
	return nil
}
