package allocation

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"time"
)

// Credit adds amount (positive) SU to an allocation, recorded as a credit activity with the comment.
func (m *MemStore) Credit(ctx context.Context, id AllocationID, amount int64, comment string, now time.Time) (Activity, error) {
	if amount <= 0 {
		return Activity{}, invalidf("amount", "%d is not positive", amount)
	}
	if err := CheckTime("now", now); err != nil {
		return Activity{}, err
	}
	if err := CheckText("comment", comment); err != nil {
		return Activity{}, err
	}
	return result[Activity](m.write(ctx, &op{Kind: opCredit, ID: int64(id), Amount: amount, Comment: comment, Now: now.UTC()}))
}

// PreDebit records a job's maximum SU against the allocation active at now, or records a Failure and returns an *InsufficientError; see Store.PreDebit for retries.
func (m *MemStore) PreDebit(ctx context.Context, r PreDebitRequest, now time.Time) (Job, error) {
	if err := r.Validate(); err != nil {
		return Job{}, err
	}
	if err := CheckTime("now", now); err != nil {
		return Job{}, err
	}
	return result[Job](m.write(ctx, &op{Kind: opPreDebit, PreDebit: &r, Now: now.UTC()}))
}

// preDebit checks and records a pre-debit; a refusal keeps its failure.
func (s *state) preDebit(r PreDebitRequest, now time.Time) (Job, bool, error) {
	j, ok, err := s.job(r.Job)
	if err != nil {
		return Job{}, false, err
	}
	if ok {
		if !SamePreDebit(j, r) {
			return Job{}, false, fmt.Errorf("%w: job %d was pre-debited with other values", ErrConflict, r.Job)
		}
		return j, false, nil
	}
	a, err := s.activeFor(r.Account, r.Resource, now)
	if err != nil {
		return Job{}, false, err
	}
	b, _ := s.balances.Get(Balance{Allocation: a.ID})
	if r.Amount > b.Balance {
		refused := &InsufficientError{Job: r.Job, Allocation: a.ID, Amount: r.Amount, Balance: b.Balance}
		last, err := s.lastFailure(r.Job)
		if err != nil {
			return Job{}, false, err
		}
		if last.Attempt > 0 && last.Allocation == a.ID && last.Amount == r.Amount && last.Balance == b.Balance {
			return Job{}, false, refused // a retry against the same balance: nothing new to record
		}
		f := Failure{Job: r.Job, Attempt: last.Attempt + 1, Allocation: a.ID, UID: r.UID, Amount: r.Amount, Balance: b.Balance, Time: now}
		s.failures.ReplaceOrInsert(f)
		return Job{}, true, refused
	}
	if _, err := s.apply(Activity{Allocation: a.ID, Kind: KindPreDebit, Amount: -r.Amount, Job: r.Job, UID: r.UID, Time: now, Comment: r.Comment}); err != nil {
		return Job{}, false, err
	}
	j = Job{ID: r.Job, Allocation: a.ID, UID: r.UID, Amount: r.Amount, Rate: r.Rate, Status: Executing, Started: now}
	s.putJob(j)
	return j, false, nil
}

// lastFailure is the job's latest refusal (Attempt 0 when none): a live
// one, else an archived one.
func (s *state) lastFailure(id JobID) (Failure, error) {
	var last Failure
	s.failures.DescendLessOrEqual(Failure{Job: id, Attempt: 1<<63 - 1}, func(f Failure) bool {
		if f.Job == id {
			last = f
		}
		return false
	})
	if last.Attempt > 0 {
		return last, nil
	}
	return s.lastArchivedFailure(id)
}

// Complete resolves a job's pre-debit into its actual debit (see ActualDebit); a repeated completion returns the recorded job, a different one ErrConflict.
func (m *MemStore) Complete(ctx context.Context, c Completion, now time.Time) (Job, error) {
	// The completion's own checks first, on a job that has a rate: a
	// malformed completion is invalid whether or not the job is known.
	if _, err := ActualDebit(Job{Rate: 1}, c); err != nil {
		return Job{}, err
	}
	if err := CheckTime("now", now); err != nil {
		return Job{}, err
	}
	return result[Job](m.write(ctx, &op{Kind: opComplete, Completion: &c, Now: now.UTC()}))
}

func (s *state) complete(c Completion, now time.Time) (Job, error) {
	j, ok, err := s.job(c.Job)
	if err != nil {
		return Job{}, err
	}
	if !ok {
		return Job{}, fmt.Errorf("%w: job %d has no pre-debit", ErrNotFound, c.Job)
	}
	if j.Status == Completed {
		if !SameCompletion(j, c) {
			return Job{}, fmt.Errorf("%w: job %d was completed with other values", ErrConflict, c.Job)
		}
		return j, nil
	}
	actual, err := ActualDebit(j, c)
	if err != nil {
		return Job{}, err
	}
	if _, err := s.apply(Activity{Allocation: j.Allocation, Kind: KindRelease, Amount: j.Amount, Job: j.ID, UID: j.UID, Time: now}); err != nil {
		return Job{}, err
	}
	if actual > 0 {
		if _, err := s.apply(Activity{Allocation: j.Allocation, Kind: KindDebit, Amount: -actual, Job: j.ID, UID: j.UID, Time: now}); err != nil {
			return Job{}, err
		}
	}
	d, _ := s.debits.Get(OwnerDebit{Allocation: j.Allocation, UID: j.UID})
	d.Allocation, d.UID = j.Allocation, j.UID
	if d.Amount, err = add(d.Amount, actual); err != nil {
		return Job{}, err
	}
	d.Jobs++
	s.debits.ReplaceOrInsert(d)
	j.Status, j.Ended, j.Elapsed, j.Outcome, j.Debited = Completed, now, c.Elapsed, c.Outcome, actual
	s.putJob(j)
	return j, nil
}

// Forget drops a job's record: an executing pre-debit is returned in full, a completed job keeps its debit. Unknown jobs are ignored.
func (m *MemStore) Forget(ctx context.Context, id JobID, now time.Time) error {
	if err := CheckTime("now", now); err != nil {
		return err
	}
	_, err := m.write(ctx, &op{Kind: opForget, ID: int64(id), Now: now.UTC()})
	return err
}

// Job is the job's pre-debit record (ErrNotFound when none).
func (m *MemStore) Job(_ context.Context, id JobID) (j Job, err error) {
	err = m.read(func(s *state) error {
		var ok bool
		var err error
		if j, ok, err = s.job(id); err == nil && !ok {
			return fmt.Errorf("%w: job %d", ErrNotFound, id)
		}
		return err
	})
	return j, err
}

// Jobs lists the jobs pre-debited against an allocation, by job ID; the slice is the caller's.
func (m *MemStore) Jobs(_ context.Context, id AllocationID) (js []Job, _ error) {
	return js, m.read(func(s *state) error {
		s.byAlloc.AscendGreaterOrEqual(Job{Allocation: id}, func(j Job) bool {
			if j.Allocation != id {
				return false
			}
			js = append(js, j)
			return true
		})
		if len(s.segs) == 0 {
			return nil
		}
		err := s.eachArchived(id, func(a archived) bool { return a.Job.Allocation == id },
			func(a archived) { js = append(js, a.Job) })
		sortJobs(js)
		return err
	})
}

// Failures lists every refusal, by job and attempt; the slice is the caller's.
// A file store reads the archived ones from the segments that hold some.
func (m *MemStore) Failures(context.Context) (fs []Failure, _ error) {
	return fs, m.read(func(s *state) error {
		old, err := s.archivedFailures()
		if err != nil {
			return err
		}
		fs = append(old, all(s.failures)...)
		slices.SortFunc(fs, func(a, b Failure) int { return cmp.Or(cmp.Compare(a.Job, b.Job), cmp.Compare(a.Attempt, b.Attempt)) })
		return nil
	})
}

// Balance is an allocation's standing (ErrNotFound for an unknown allocation).
func (m *MemStore) Balance(_ context.Context, id AllocationID) (b Balance, err error) {
	err = m.read(func(s *state) error {
		if _, ok := s.allocs.Get(Allocation{ID: id}); !ok {
			return fmt.Errorf("%w: allocation %d", ErrNotFound, id)
		}
		b, _ = s.balances.Get(Balance{Allocation: id})
		b.Allocation = id
		return nil
	})
	return b, err
}

// Balances lists every allocation's balance, zero ones included, by
// allocation ID; the slice is the caller's.
func (m *MemStore) Balances(context.Context) (bs []Balance, _ error) {
	return bs, m.read(func(s *state) error {
		s.allocs.Ascend(func(a Allocation) bool {
			b, _ := s.balances.Get(Balance{Allocation: a.ID})
			b.Allocation = a.ID
			bs = append(bs, b)
			return true
		})
		return nil
	})
}

// History is the allocation's activity in order; the slice is the caller's.
func (m *MemStore) History(_ context.Context, id AllocationID) (as []Activity, _ error) {
	return as, m.read(func(s *state) error {
		s.activity.AscendGreaterOrEqual(Activity{Allocation: id}, func(a Activity) bool {
			if a.Allocation != id {
				return false
			}
			as = append(as, a)
			return true
		})
		if len(s.segs) == 0 {
			return nil
		}
		old, err := s.archivedHistory(id)
		as = append(as, old...)
		sortActivity(as)
		return err
	})
}

// Debits is the SU debited to the allocation per owner uid, by uid.
func (m *MemStore) Debits(_ context.Context, id AllocationID) (ds []OwnerDebit, _ error) {
	return ds, m.read(func(s *state) error {
		s.debits.AscendGreaterOrEqual(OwnerDebit{Allocation: id}, func(d OwnerDebit) bool {
			if d.Allocation != id {
				return false
			}
			ds = append(ds, d)
			return true
		})
		return nil
	})
}
