package allocation

import (
	"fmt"
	"time"
)

// op is one change to a MemStore, as its journal records it: replaying
// the ops of a journal on the state they were made on gives the same
// state, since every op is a function of the state and its fields (now
// included).
type op struct {
	Seq        int64            `json:"seq"`
	Kind       string           `json:"op"`
	Now        time.Time        `json:"now,omitzero"`
	ID         int64            `json:"id,omitempty"`
	Amount     int64            `json:"amount,omitempty"`
	Comment    string           `json:"comment,omitempty"`
	Project    *Project         `json:"project,omitempty"`
	Allocation *Allocation      `json:"allocation,omitempty"`
	PreDebit   *PreDebitRequest `json:"predebit,omitempty"`
	Completion *Completion      `json:"completion,omitempty"`
}

const (
	opCreateProject    = "create-project"
	opUpdateProject    = "update-project"
	opDeleteProject    = "delete-project"
	opPutAllocation    = "put-allocation"
	opDeleteAllocation = "delete-allocation"
	opCredit           = "credit"
	opPreDebit         = "predebit"
	opComplete         = "complete"
	opForget           = "forget"
)

// run applies o to s: its result, whether s keeps the changes although
// err is set (a refused pre-debit keeps its failure), and the error.
func (o *op) run(s *state) (res any, keep bool, err error) {
	if err := o.validate(); err != nil { // a replayed op is checked as a new one is
		return nil, false, err
	}
	switch {
	case o.Kind == opCreateProject && o.Project != nil:
		res, err = s.createProject(*o.Project)
	case o.Kind == opUpdateProject && o.Project != nil:
		res, err = s.updateProject(*o.Project)
	case o.Kind == opDeleteProject:
		err = s.deleteProject(ProjectID(o.ID))
	case o.Kind == opPutAllocation && o.Allocation != nil:
		res, err = s.putAllocation(*o.Allocation)
	case o.Kind == opDeleteAllocation:
		err = s.deleteAllocation(AllocationID(o.ID))
	case o.Kind == opCredit:
		res, err = s.credit(AllocationID(o.ID), o.Amount, o.Comment, o.Now)
	case o.Kind == opPreDebit && o.PreDebit != nil:
		res, keep, err = s.preDebit(*o.PreDebit, o.Now)
	case o.Kind == opComplete && o.Completion != nil:
		res, err = s.complete(*o.Completion, o.Now)
	case o.Kind == opForget:
		err = s.forget(JobID(o.ID), o.Now)
	default:
		err = fmt.Errorf("%w: op %q is unknown or lacks its record", ErrFile, o.Kind)
	}
	return res, keep, err
}

func (o *op) validate() error {
	switch {
	case o.Project != nil:
		return o.Project.Validate()
	case o.Allocation != nil:
		return o.Allocation.Validate()
	case o.PreDebit != nil:
		return o.PreDebit.Validate()
	case o.Kind == opCredit && o.Amount <= 0:
		return invalidf("amount", "%d is not positive", o.Amount)
	}
	return nil
}

// result unpacks write's result as a T.
func result[T any](res any, err error) (T, error) {
	v, _ := res.(T)
	return v, err
}

func (s *state) createProject(p Project) (Project, error) {
	if other, ok := s.accounts.Get(Project{Account: p.Account}); ok {
		return Project{}, fmt.Errorf("%w: account %q belongs to project %d", ErrConflict, p.Account, other.ID)
	}
	p.ID = s.next.Project
	s.next.Project++
	s.projects.ReplaceOrInsert(p)
	s.accounts.ReplaceOrInsert(p)
	return p, nil
}

func (s *state) updateProject(p Project) (Project, error) {
	old, ok := s.projects.Get(p)
	if !ok {
		return Project{}, fmt.Errorf("%w: project %d", ErrNotFound, p.ID)
	}
	if other, ok := s.accounts.Get(Project{Account: p.Account}); ok && other.ID != p.ID {
		return Project{}, fmt.Errorf("%w: account %q belongs to project %d", ErrConflict, p.Account, other.ID)
	}
	s.accounts.Delete(old)
	s.projects.ReplaceOrInsert(p)
	s.accounts.ReplaceOrInsert(p)
	return p, nil
}

func (s *state) deleteProject(id ProjectID) error {
	p, ok := s.projects.Get(Project{ID: id})
	if !ok {
		return fmt.Errorf("%w: project %d", ErrNotFound, id)
	}
	inUse := false
	s.periods.AscendGreaterOrEqual(Allocation{Project: id}, func(a Allocation) bool {
		inUse = a.Project == id
		return false
	})
	if inUse {
		return fmt.Errorf("%w: project %d has allocations", ErrConflict, id)
	}
	s.projects.Delete(p)
	s.accounts.Delete(p)
	return nil
}

// putAllocation inserts a (ID 0) or replaces it, refusing overlaps.
func (s *state) putAllocation(a Allocation) (Allocation, error) {
	if _, ok := s.projects.Get(Project{ID: a.Project}); !ok {
		return Allocation{}, fmt.Errorf("%w: project %d", ErrNotFound, a.Project)
	}
	var old Allocation
	if a.ID != 0 {
		var ok bool
		if old, ok = s.allocs.Get(a); !ok {
			return Allocation{}, fmt.Errorf("%w: allocation %d", ErrNotFound, a.ID)
		}
	}
	if other, ok := s.overlapping(a); ok {
		return Allocation{}, &OverlapError{New: a, Existing: other}
	}
	if a.ID != 0 {
		if (old.Project != a.Project || old.Resource != a.Resource) && s.hasActivity(a.ID) {
			return Allocation{}, fmt.Errorf("%w: allocation %d has activity; its project and resource are fixed", ErrConflict, a.ID)
		}
		s.periods.Delete(old)
	} else {
		a.ID = s.next.Allocation
		s.next.Allocation++
	}
	s.allocs.ReplaceOrInsert(a)
	s.periods.ReplaceOrInsert(a)
	return a, nil
}

func (s *state) deleteAllocation(id AllocationID) error {
	a, ok := s.allocs.Get(Allocation{ID: id})
	if !ok {
		return fmt.Errorf("%w: allocation %d", ErrNotFound, id)
	}
	if s.hasActivity(id) {
		return fmt.Errorf("%w: allocation %d has activity", ErrConflict, id)
	}
	s.allocs.Delete(a)
	s.periods.Delete(a)
	s.balances.Delete(Balance{Allocation: id})
	return nil
}

func (s *state) credit(id AllocationID, amount int64, comment string, now time.Time) (Activity, error) {
	if _, ok := s.allocs.Get(Allocation{ID: id}); !ok {
		return Activity{}, fmt.Errorf("%w: allocation %d", ErrNotFound, id)
	}
	return s.apply(Activity{Allocation: id, Kind: KindCredit, Amount: amount, Time: now, Comment: comment})
}

// forget drops a job's record, returning an executing pre-debit.
func (s *state) forget(id JobID, now time.Time) error {
	j, ok := s.jobs.Get(Job{ID: id})
	if !ok {
		return s.forgetArchived(id)
	}
	if j.Status == Executing {
		if _, err := s.apply(Activity{Allocation: j.Allocation, Kind: KindRelease, Amount: j.Amount, Job: j.ID, UID: j.UID,
			Time: now, Comment: "not started"}); err != nil {
			return err
		}
	}
	s.deleteJob(j)
	return s.forgetArchived(id)
}

// forgetArchived hides the job's archived record, if any, from now on.
func (s *state) forgetArchived(id JobID) error {
	if len(s.segs) == 0 || s.forgotten.Has(id) {
		return nil
	}
	_, ok, err := s.archivedJob(id)
	if ok {
		s.forgotten.ReplaceOrInsert(id)
	}
	return err
}
