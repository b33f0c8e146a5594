package allocation

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"
)

// MemStore is the default Store: tables in memory on google/btree,
// optionally persisted to a file after every change (see the package doc).
// Safe for concurrent use; writers are serialised by one mutex.
type MemStore struct {
	mu   sync.RWMutex
	st   *state
	path string
	// failAt, set by tests, fails the persistence step it names.
	failAt func(step string) error
}

var _ Store = (*MemStore)(nil)

// Path is the file the store persists to ("" when it does not).
func (m *MemStore) Path() string { return m.path }

// NewMemStore is an empty store that is not persisted.
func NewMemStore() *MemStore { return &MemStore{st: newState()} }

// read runs f on the current state under the read lock.
func (m *MemStore) read(f func(*state) error) error {
	m.mu.RLock()
	defer m.mu.RUnlock()
	return f(m.st)
}

// write runs f on a clone of the state and, when f keeps its changes,
// persists the clone and makes it current. f keeps them when it returns
// nil or when keep is true (a refused pre-debit keeps its failure record).
func (m *MemStore) write(ctx context.Context, f func(*state) (keep bool, err error)) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	next := m.st.clone()
	keep, err := f(next)
	if err != nil && !keep {
		return err
	}
	if m.path != "" {
		if perr := m.persist(next); perr != nil {
			return perr
		}
	}
	m.st = next
	return err
}

func (m *MemStore) CreateProject(ctx context.Context, p Project) (Project, error) {
	p.Name, p.Account = strings.TrimSpace(p.Name), strings.TrimSpace(p.Account)
	if err := p.Validate(); err != nil {
		return Project{}, err
	}
	err := m.write(ctx, func(s *state) (bool, error) {
		if other, ok := s.accounts.Get(Project{Account: p.Account}); ok {
			return false, fmt.Errorf("%w: account %q belongs to project %d", ErrConflict, p.Account, other.ID)
		}
		p.ID = s.next.Project
		s.next.Project++
		s.projects.ReplaceOrInsert(p)
		s.accounts.ReplaceOrInsert(p)
		return false, nil
	})
	return p, err
}

func (m *MemStore) UpdateProject(ctx context.Context, p Project) (Project, error) {
	p.Name, p.Account = strings.TrimSpace(p.Name), strings.TrimSpace(p.Account)
	if err := p.Validate(); err != nil {
		return Project{}, err
	}
	err := m.write(ctx, func(s *state) (bool, error) {
		old, ok := s.projects.Get(p)
		if !ok {
			return false, fmt.Errorf("%w: project %d", ErrNotFound, p.ID)
		}
		if other, ok := s.accounts.Get(Project{Account: p.Account}); ok && other.ID != p.ID {
			return false, fmt.Errorf("%w: account %q belongs to project %d", ErrConflict, p.Account, other.ID)
		}
		s.accounts.Delete(old)
		s.projects.ReplaceOrInsert(p)
		s.accounts.ReplaceOrInsert(p)
		return false, nil
	})
	return p, err
}

func (m *MemStore) DeleteProject(ctx context.Context, id ProjectID) error {
	return m.write(ctx, func(s *state) (bool, error) {
		p, ok := s.projects.Get(Project{ID: id})
		if !ok {
			return false, fmt.Errorf("%w: project %d", ErrNotFound, id)
		}
		inUse := false
		s.periods.AscendGreaterOrEqual(Allocation{Project: id}, func(a Allocation) bool {
			inUse = a.Project == id
			return false
		})
		if inUse {
			return false, fmt.Errorf("%w: project %d has allocations", ErrConflict, id)
		}
		s.projects.Delete(p)
		s.accounts.Delete(p)
		return false, nil
	})
}

func (m *MemStore) Project(_ context.Context, id ProjectID) (p Project, err error) {
	err = m.read(func(s *state) error {
		var ok bool
		if p, ok = s.projects.Get(Project{ID: id}); !ok {
			return fmt.Errorf("%w: project %d", ErrNotFound, id)
		}
		return nil
	})
	return p, err
}

func (m *MemStore) Projects(context.Context) (ps []Project, _ error) {
	return ps, m.read(func(s *state) error { ps = all(s.projects); return nil })
}

func (m *MemStore) CreateAllocation(ctx context.Context, a Allocation) (Allocation, error) {
	a.ID = 0
	return m.putAllocation(ctx, a)
}

func (m *MemStore) UpdateAllocation(ctx context.Context, a Allocation) (Allocation, error) {
	if a.ID <= 0 {
		return Allocation{}, invalidf("id", "missing")
	}
	return m.putAllocation(ctx, a)
}

// putAllocation inserts a (ID 0) or replaces it, refusing overlaps.
func (m *MemStore) putAllocation(ctx context.Context, a Allocation) (Allocation, error) {
	a.Category = strings.TrimSpace(a.Category)
	if err := a.Validate(); err != nil {
		return Allocation{}, err
	}
	a.Start, a.End = a.Start.UTC(), a.End.UTC()
	err := m.write(ctx, func(s *state) (bool, error) {
		if _, ok := s.projects.Get(Project{ID: a.Project}); !ok {
			return false, fmt.Errorf("%w: project %d", ErrNotFound, a.Project)
		}
		if a.ID != 0 {
			old, ok := s.allocs.Get(a)
			if !ok {
				return false, fmt.Errorf("%w: allocation %d", ErrNotFound, a.ID)
			}
			if (old.Project != a.Project || old.Resource != a.Resource) && s.hasActivity(a.ID) {
				return false, fmt.Errorf("%w: allocation %d has activity; its project and resource are fixed", ErrConflict, a.ID)
			}
			if other, ok := s.overlapping(a); ok {
				return false, &OverlapError{New: a, Existing: other}
			}
			s.periods.Delete(old)
		} else {
			if other, ok := s.overlapping(a); ok {
				return false, &OverlapError{New: a, Existing: other}
			}
			a.ID = s.next.Allocation
			s.next.Allocation++
		}
		s.allocs.ReplaceOrInsert(a)
		s.periods.ReplaceOrInsert(a)
		return false, nil
	})
	return a, err
}

func (s *state) hasActivity(id AllocationID) bool {
	found := false
	s.activity.AscendGreaterOrEqual(Activity{Allocation: id}, func(a Activity) bool {
		found = a.Allocation == id
		return false
	})
	return found
}

func (m *MemStore) DeleteAllocation(ctx context.Context, id AllocationID) error {
	return m.write(ctx, func(s *state) (bool, error) {
		a, ok := s.allocs.Get(Allocation{ID: id})
		if !ok {
			return false, fmt.Errorf("%w: allocation %d", ErrNotFound, id)
		}
		if s.hasActivity(id) {
			return false, fmt.Errorf("%w: allocation %d has activity", ErrConflict, id)
		}
		s.allocs.Delete(a)
		s.periods.Delete(a)
		s.balances.Delete(Balance{Allocation: id})
		return false, nil
	})
}

func (m *MemStore) Allocation(_ context.Context, id AllocationID) (a Allocation, err error) {
	err = m.read(func(s *state) error {
		var ok bool
		if a, ok = s.allocs.Get(Allocation{ID: id}); !ok {
			return fmt.Errorf("%w: allocation %d", ErrNotFound, id)
		}
		return nil
	})
	return a, err
}

func (m *MemStore) Allocations(context.Context) (as []Allocation, _ error) {
	return as, m.read(func(s *state) error { as = all(s.allocs); return nil })
}

func (m *MemStore) ActiveAllocation(_ context.Context, account string, r Resource, t time.Time) (a Allocation, err error) {
	err = m.read(func(s *state) error {
		var e error
		a, e = s.activeFor(account, r, t)
		return e
	})
	return a, err
}

func (s *state) activeFor(account string, r Resource, t time.Time) (Allocation, error) {
	p, ok := s.accounts.Get(Project{Account: account})
	if !ok {
		return Allocation{}, fmt.Errorf("%w: no project has account %q", ErrNoAllocation, account)
	}
	a, ok := s.active(p.ID, r, t)
	if !ok {
		return Allocation{}, fmt.Errorf("%w: account %q has no %s allocation at %s", ErrNoAllocation, account, r, t.UTC().Format(time.RFC3339))
	}
	return a, nil
}
