package allocation

import (
	"cmp"
	"time"

	"github.com/google/btree"
)

const degree = 16

// state is MemStore's tables. Writers work on a clone (btree clones are
// lazy copy-on-write) and swap it in only once it is persisted, so a
// failed write leaves the previous state untouched.
type state struct {
	projects  *btree.BTreeG[Project]    // by ID
	accounts  *btree.BTreeG[Project]    // by Account
	allocs    *btree.BTreeG[Allocation] // by ID
	periods   *btree.BTreeG[Allocation] // by Project, Resource, Start
	activity  *btree.BTreeG[Activity]   // by Allocation, ID
	jobs      *btree.BTreeG[Job]        // by ID
	byAlloc   *btree.BTreeG[Job]        // by Allocation, ID: the same jobs
	failures  *btree.BTreeG[Failure]    // by Job, Attempt
	balances  *btree.BTreeG[Balance]    // by Allocation
	debits    *btree.BTreeG[OwnerDebit] // by Allocation, UID
	next      nextIDs
	activityN int64 // number of activity records
	seq       int64 // the last journal op applied
	// The archive (see segment.go): the directory of the segments, their
	// index (never changed in place: a compaction appends to a copy), and
	// the archived jobs forgotten since they were archived.
	dir       string
	segs      []segmentMeta
	forgotten *btree.BTreeG[JobID]
}

type nextIDs struct {
	Project    ProjectID    `json:"project"`
	Allocation AllocationID `json:"allocation"`
	Activity   ActivityID   `json:"activity"`
}

func newState() *state {
	return &state{
		projects: btree.NewG(degree, func(a, b Project) bool { return a.ID < b.ID }),
		accounts: btree.NewG(degree, func(a, b Project) bool { return a.Account < b.Account }),
		allocs:   btree.NewG(degree, func(a, b Allocation) bool { return a.ID < b.ID }),
		periods: btree.NewG(degree, func(a, b Allocation) bool {
			return cmp.Or(cmp.Compare(a.Project, b.Project), cmp.Compare(a.Resource, b.Resource),
				a.Start.Compare(b.Start), cmp.Compare(a.ID, b.ID)) < 0
		}),
		activity: btree.NewG(degree, func(a, b Activity) bool {
			return cmp.Or(cmp.Compare(a.Allocation, b.Allocation), cmp.Compare(a.ID, b.ID)) < 0
		}),
		jobs: btree.NewG(degree, func(a, b Job) bool { return a.ID < b.ID }),
		byAlloc: btree.NewG(degree, func(a, b Job) bool {
			return cmp.Or(cmp.Compare(a.Allocation, b.Allocation), cmp.Compare(a.ID, b.ID)) < 0
		}),
		failures: btree.NewG(degree, func(a, b Failure) bool {
			return cmp.Or(cmp.Compare(a.Job, b.Job), cmp.Compare(a.Attempt, b.Attempt)) < 0
		}),
		balances: btree.NewG(degree, func(a, b Balance) bool { return a.Allocation < b.Allocation }),
		debits: btree.NewG(degree, func(a, b OwnerDebit) bool {
			return cmp.Or(cmp.Compare(a.Allocation, b.Allocation), cmp.Compare(a.UID, b.UID)) < 0
		}),
		forgotten: btree.NewOrderedG[JobID](degree),
		next:      nextIDs{1, 1, 1},
	}
}

func (s *state) clone() *state {
	c := *s
	c.projects, c.accounts = s.projects.Clone(), s.accounts.Clone()
	c.allocs, c.periods = s.allocs.Clone(), s.periods.Clone()
	c.activity, c.jobs, c.failures = s.activity.Clone(), s.jobs.Clone(), s.failures.Clone()
	c.byAlloc = s.byAlloc.Clone()
	c.balances, c.debits = s.balances.Clone(), s.debits.Clone()
	c.forgotten = s.forgotten.Clone()
	return &c
}

func all[T any](t *btree.BTreeG[T]) []T {
	out := make([]T, 0, t.Len())
	t.Ascend(func(x T) bool { out = append(out, x); return true })
	return out
}

// overlapping is an allocation of a's project and resource, other than a
// itself, whose period meets a's.
func (s *state) overlapping(a Allocation) (Allocation, bool) {
	var found Allocation
	ok := false
	// Periods of one project and resource never overlap, so only the one
	// starting last before a.End can meet a.
	s.periods.DescendLessOrEqual(Allocation{Project: a.Project, Resource: a.Resource, Start: a.End},
		func(b Allocation) bool {
			switch {
			case b.Project != a.Project || b.Resource != a.Resource:
				return false
			case b.ID == a.ID: // the stored version of an allocation being updated
				return true
			case b.overlaps(a):
				found, ok = b, true
			}
			// b starts before a ends and does not overlap it, so b and
			// every earlier one end before a starts.
			return false
		})
	return found, ok
}

// active is the allocation of project p and resource r at t.
func (s *state) active(p ProjectID, r Resource, t time.Time) (Allocation, bool) {
	var found Allocation
	ok := false
	s.periods.DescendLessOrEqual(Allocation{Project: p, Resource: r, Start: t, ID: 1<<63 - 1},
		func(b Allocation) bool {
			if b.Project == p && b.Resource == r && b.Active(t) {
				found, ok = b, true
			}
			return false
		})
	return found, ok
}

// putJob records j in the jobs table and its allocation index.
func (s *state) putJob(j Job) {
	s.jobs.ReplaceOrInsert(j)
	s.byAlloc.ReplaceOrInsert(j)
}

func (s *state) deleteJob(j Job) {
	s.jobs.Delete(j)
	s.byAlloc.Delete(j)
}

// apply records an activity and updates the balance it changes.
func (s *state) apply(a Activity) (Activity, error) {
	b, _ := s.balances.Get(Balance{Allocation: a.Allocation})
	b.Allocation = a.Allocation
	var err error
	switch a.Kind {
	case KindCredit:
		b.Credits, err = add(b.Credits, a.Amount)
	case KindPreDebit:
		b.Pending, err = add(b.Pending, -a.Amount)
	case KindRelease:
		b.Pending, err = add(b.Pending, -a.Amount)
	case KindDebit:
		b.Debited, err = add(b.Debited, -a.Amount)
	default:
		err = invalidf("kind", "%q is not an activity kind", a.Kind)
	}
	if err != nil {
		return a, err
	}
	if b.Balance, err = add(b.Balance, a.Amount); err != nil {
		return a, err
	}
	a.ID = s.next.Activity
	s.next.Activity++
	s.activity.ReplaceOrInsert(a)
	s.activityN++
	s.balances.ReplaceOrInsert(b)
	return a, nil
}

// add is x+y or ErrOverflow.
func add(x, y int64) (int64, error) {
	s := x + y
	if (y > 0 && s < x) || (y < 0 && s > x) {
		return 0, ErrOverflow
	}
	return s, nil
}
