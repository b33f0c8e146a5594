package queue

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"time"

	"github.com/hpcsched/hpcsched/selectnodes"
)

// Update changes a job. Zero fields of u are left alone. A pending job's
// request, partition and time limit are revalidated as at Submit; a
// running job may change only its time limit and priority. As with Spec,
// the time limit is TimeLimit or Request.TimeLimit, not two different
// ones.
type Update struct {
	Partition  string
	TimeLimit  time.Duration
	Priority   int64 // administrator priority; -1 hands it back to the policy
	Nice       *int64
	Request    *selectnodes.Request
	Dependency *string
	Begin      *time.Time
	Account    string
}

// reshapes reports whether u changes what a job asks for, which the
// AdmitPlugins see again.
func (u *Update) reshapes() bool {
	return u.Partition != "" || u.Request != nil || u.TimeLimit > 0 || u.Account != ""
}

// pendingOnly names the first field u changes that only a pending job's
// may ("" for none), for the error that refuses it.
func (u *Update) pendingOnly() string {
	switch {
	case u.Request != nil:
		return "request"
	case u.Partition != "":
		return "partition"
	case u.Account != "":
		return "account"
	case u.Begin != nil:
		return "begin time"
	case u.Dependency != nil:
		return "dependency"
	}
	return ""
}

// check rejects values Submit would reject, and settles the time limit
// (see Spec): TimeLimit, or Request.TimeLimit when only that is given.
func (u *Update) check() error {
	if u.Request != nil {
		limit, err := oneTimeLimit(u.TimeLimit, u.Request.TimeLimit)
		if err != nil {
			return err
		}
		u.TimeLimit = limit
	}
	spec := Spec{TimeLimit: u.TimeLimit}
	if u.Nice != nil {
		spec.Nice = *u.Nice
	}
	if u.Begin != nil {
		spec.Begin = *u.Begin
	}
	if u.Priority < -1 {
		return invalid("priority %d is below -1", u.Priority)
	}
	return checkSpec(&spec)
}

// Update applies u to job id.
func (s *Scheduler) Update(id JobID, u Update, now time.Time) error {
	return s.UpdateContext(context.Background(), id, u, now)
}

// UpdateContext is Update with a context for the plugins. When u changes
// a pending job's request, partition, account or time limit, the
// AdmitPlugins see the job as a Spec with the change applied, outside the
// lock, and may rewrite or refuse it.
func (s *Scheduler) UpdateContext(ctx context.Context, id JobID, u Update, now time.Time) error {
	if err := u.check(); err != nil {
		return err
	}
	if len(s.opts.admit) > 0 && u.reshapes() {
		if err := s.admitUpdate(ctx, id, &u, now); err != nil {
			return err
		}
	}
	s.lock(ctx)
	defer s.unlock()
	j, err := s.getIn(id, "update", live)
	if err != nil {
		return err
	}
	if err := j.since(now); err != nil {
		return err
	}
	s.saw(now)
	pending := j.State == Pending
	if f := u.pendingOnly(); !pending && f != "" {
		return stateErr(j, "change the "+f+" of")
	}
	next, fields, err := s.updated(j, &u)
	if err != nil {
		return err
	}
	s.apply(j, next, fields, pending, now)
	return nil
}

// admitUpdate runs the AdmitPlugins over the job as u would leave it and
// writes what they decided back into u.
func (s *Scheduler) admitUpdate(ctx context.Context, id JobID, u *Update, now time.Time) error {
	cur, ok := s.Job(id)
	if !ok {
		return fmt.Errorf("%w %d", ErrUnknownJob, id)
	}
	if cur.State != Pending {
		return nil // no admission: the change is refused, or is a running job's limit
	}
	spec := Spec{ID: cur.ID, Name: cur.Name, User: cur.User, Account: cur.Account, Request: cur.Request,
		TimeLimit: cur.TimeLimit, TimeMin: cur.TimeMin, Begin: cur.Begin, Dependency: cur.Dependency, Requeue: cur.Requeue,
		Priority: cur.AdminPriority, Nice: cur.Nice, Hold: cur.Held}
	if u.Request != nil {
		spec.Request = cloneRequest(*u.Request)
		spec.Request.Partition = cur.Partition
	}
	if u.Partition != "" {
		spec.Request.Partition = u.Partition
	}
	if u.TimeLimit > 0 {
		spec.TimeLimit = u.TimeLimit
	}
	if u.Account != "" {
		spec.Account = u.Account
	}
	asked := spec
	asked.Request = cloneRequest(spec.Request)
	if err := s.runAdmit(ctx, &spec, now); err != nil {
		return err
	}
	admitted(u, &asked, &spec)
	return nil
}

// admitted writes into u what the AdmitPlugins left in spec, where it
// differs from what they were asked (or u gave it): a plugin that changes
// nothing leaves u as it was, so a time limit update stays one and does
// not become a request update (which a job that starts meanwhile refuses).
func admitted(u *Update, asked, spec *Spec) {
	if u.Request != nil || !reflect.DeepEqual(asked.Request, spec.Request) {
		req := spec.Request
		u.Request = &req
	}
	if u.Partition != "" || spec.Request.Partition != asked.Request.Partition {
		u.Partition = spec.Request.Partition
	}
	if u.TimeLimit > 0 || spec.TimeLimit != asked.TimeLimit {
		u.TimeLimit = spec.TimeLimit
	}
	if u.Account != "" || spec.Account != asked.Account {
		u.Account = spec.Account
	}
}

// updated is j with u applied and validated, and the names of the fields
// that changed.
func (s *Scheduler) updated(j *job, u *Update) (job, []string, error) {
	next := *j
	next.class = "" // the request or partition may change: render it again
	var fields []string
	if u.Request != nil {
		next.Request = cloneRequest(*u.Request)
		next.Request.Partition = j.Partition
		next.Request.TimeLimit = j.TimeLimit // unless u.TimeLimit changes it below
		if next.Request.QOS == "" {
			next.Request.QOS = DefaultQOS
		}
		fields = append(fields, "Request")
	}
	if u.Partition != "" && u.Partition != j.Partition {
		next.Partition, next.Request.Partition = u.Partition, u.Partition
		fields = append(fields, "Partition")
	}
	if u.Account != "" && u.Account != j.Account {
		next.Account = u.Account
		fields = append(fields, "Account")
	}
	if u.TimeLimit > 0 {
		next.TimeLimit, next.Request.TimeLimit = u.TimeLimit, u.TimeLimit
		fields = append(fields, "TimeLimit")
	}
	if u.Dependency != nil {
		d, err := ParseDependency(*u.Dependency)
		if err != nil {
			return next, nil, invalidErr(err)
		}
		if err := s.checkCycle(j.ID, d); err != nil {
			return next, nil, err
		}
		next.deps, next.Dependency = d, *u.Dependency
		if d.namesJobs() {
			s.depJobs++ // before any Forget can drop a target's tombstone
		}
		fields = append(fields, "Dependency")
	}
	if u.Begin != nil {
		next.Begin = *u.Begin
		fields = append(fields, "Begin")
	}
	if j.State == Pending {
		if err := s.admissible(&next.Request); err != nil {
			return next, nil, err
		}
	}
	switch {
	case u.Priority == -1:
		next.AdminPriority = 0
		fields = append(fields, "Priority")
	case u.Priority > 0:
		next.AdminPriority = u.Priority
		fields = append(fields, "Priority")
	}
	if u.Nice != nil {
		next.Nice = *u.Nice
		fields = append(fields, "Nice")
	}
	return next, fields, nil
}

// apply installs next as j's record and reports the change.
func (s *Scheduler) apply(j *job, next job, fields []string, pending bool, now time.Time) {
	oldPrio := j.Priority
	s.dequeue(j)
	*j = next   // next is a copy of *j: its place in the running list too
	s.updates++ // a kept busy answer may name this job's old request (busymemo.go)
	j.queued = false
	if !pending && j.TimeLimit > 0 && slices.Contains(fields, "TimeLimit") {
		j.End = later(later(j.Start, j.TimeLimit), j.suspendedFor)
		s.moveAllocationEnd(j)
	}
	s.computePriority(j, now)
	if pending {
		s.enqueue(j)
		j.Reason = s.pendingReason(j, now)
	}
	s.jobEventWith(EventUpdate, j, now, "", &UpdatePayload{Fields: fields})
	if j.Priority != oldPrio {
		s.jobEventWith(EventPriority, j, now, fmt.Sprintf("%d -> %d", oldPrio, j.Priority),
			&PriorityPayload{Old: oldPrio, New: j.Priority})
	}
}
