package allocation

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync"
	"time"
)

// MemStore is the default Store: tables in memory on google/btree,
// optionally persisted to a file (see the package doc and OpenFile).
// Safe for concurrent use; writers are serialised by one mutex. The zero
// MemStore is an empty store that is not persisted, as NewMemStore's.
type MemStore struct {
	mu   sync.RWMutex
	st   *state
	path string
	// The journal of ops since the last snapshot (see journal.go).
	journal       *os.File
	lock          *os.File // holds the flock while the store is open
	journalSize   int64
	sinceSnapshot int
	compactEvery  int
	segmentSize   int64 // the size at which a compaction starts a new segment
	compacting    bool  // a compaction is writing a snapshot
	// broken is set when the journal could not be restored after a failed
	// append; every later write returns it.
	broken error
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
	if m.st == nil { // the zero MemStore, not written yet
		return f(newState())
	}
	return f(m.st)
}

// write runs o on a clone of the state and, when o keeps its changes,
// journals o and makes the clone current: o's changes are durable before
// write returns. A failure leaves the previous state. When enough ops
// have been journaled, the writer then compacts, outside the lock (see
// compact), so other writers do not wait for the snapshot.
func (m *MemStore) write(ctx context.Context, o *op) (any, error) {
	res, c, err := m.writeLocked(ctx, o)
	if c != nil {
		m.compact(c)
	}
	return res, err
}

func (m *MemStore) writeLocked(ctx context.Context, o *op) (any, *compaction, error) {
	if ctx == nil {
		return nil, nil, invalidf("ctx", "nil context")
	}
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.broken != nil {
		return nil, nil, m.broken
	}
	if m.st == nil { // the zero MemStore
		m.st = newState()
	}
	next := m.st.clone()
	res, keep, err := o.run(next)
	if err != nil && !keep {
		return nil, nil, err
	}
	if m.path != "" {
		next.seq++
		o.Seq = next.seq
		if jerr := m.logOp(o); jerr != nil {
			return nil, nil, jerr
		}
		m.st = next
		return res, m.startCompaction(), err
	}
	m.st = next
	return res, nil, err
}

// CreateProject adds a project; its ID is assigned and returned. An account another project has is refused (ErrConflict).
func (m *MemStore) CreateProject(ctx context.Context, p Project) (Project, error) {
	p.Name, p.Account = strings.TrimSpace(p.Name), strings.TrimSpace(p.Account)
	if err := p.Validate(); err != nil {
		return Project{}, err
	}
	return result[Project](m.write(ctx, &op{Kind: opCreateProject, Project: &p}))
}

// UpdateProject replaces the project with p.ID (ErrNotFound when none); an account another project has is refused (ErrConflict).
func (m *MemStore) UpdateProject(ctx context.Context, p Project) (Project, error) {
	p.Name, p.Account = strings.TrimSpace(p.Name), strings.TrimSpace(p.Account)
	if err := p.Validate(); err != nil {
		return Project{}, err
	}
	return result[Project](m.write(ctx, &op{Kind: opUpdateProject, Project: &p}))
}

// DeleteProject removes a project without allocations (ErrConflict otherwise, ErrNotFound when none).
func (m *MemStore) DeleteProject(ctx context.Context, id ProjectID) error {
	_, err := m.write(ctx, &op{Kind: opDeleteProject, ID: int64(id)})
	return err
}

// Project is the project with this ID (ErrNotFound when none).
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

// Projects lists every project by ID; the slice is the caller's.
func (m *MemStore) Projects(context.Context) (ps []Project, _ error) {
	return ps, m.read(func(s *state) error { ps = all(s.projects); return nil })
}

// CreateAllocation adds an allocation (a.ID is ignored and assigned); an overlap with another of its project and resource is an *OverlapError.
func (m *MemStore) CreateAllocation(ctx context.Context, a Allocation) (Allocation, error) {
	a.ID = 0
	return m.putAllocation(ctx, a)
}

// UpdateAllocation replaces the allocation with a.ID; its project and resource are fixed once it has activity (ErrConflict); overlaps are an *OverlapError.
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
	return result[Allocation](m.write(ctx, &op{Kind: opPutAllocation, Allocation: &a}))
}

func (s *state) hasActivity(id AllocationID) bool {
	// Every activity, archived or live, made a balance record.
	_, found := s.balances.Get(Balance{Allocation: id})
	return found
}

// DeleteAllocation removes an allocation without activity (ErrConflict otherwise, ErrNotFound when none).
func (m *MemStore) DeleteAllocation(ctx context.Context, id AllocationID) error {
	_, err := m.write(ctx, &op{Kind: opDeleteAllocation, ID: int64(id)})
	return err
}

// Allocation is the allocation with this ID (ErrNotFound when none).
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

// Allocations lists every allocation by ID; the slice is the caller's.
func (m *MemStore) Allocations(context.Context) (as []Allocation, _ error) {
	return as, m.read(func(s *state) error { as = all(s.allocs); return nil })
}

// ActiveAllocation is the allocation of the account's project and resource r whose period holds t (ErrNoAllocation when none).
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
