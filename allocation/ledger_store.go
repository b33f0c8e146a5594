package allocation

import (
	"context"
	"time"
)

// The Store methods a Ledger passes on. They are written out, rather than
// left promoted from the embedded Store, so that a Ledger made without New
// (whose Store is nil) panics naming the method and New instead of with a
// bare nil dereference.

// store is l's Store; method names the caller for the panic of a Ledger
// without one.
func (l *Ledger) store(method string) Store {
	if l == nil || l.Store == nil {
		panic("allocation: Ledger." + method + " on a Ledger without a Store: use allocation.New")
	}
	return l.Store
}

// CreateProject is the Store's.
func (l *Ledger) CreateProject(ctx context.Context, p Project) (Project, error) {
	return l.store("CreateProject").CreateProject(ctx, p)
}

// UpdateProject is the Store's.
func (l *Ledger) UpdateProject(ctx context.Context, p Project) (Project, error) {
	return l.store("UpdateProject").UpdateProject(ctx, p)
}

// DeleteProject is the Store's.
func (l *Ledger) DeleteProject(ctx context.Context, id ProjectID) error {
	return l.store("DeleteProject").DeleteProject(ctx, id)
}

// Project is the Store's.
func (l *Ledger) Project(ctx context.Context, id ProjectID) (Project, error) {
	return l.store("Project").Project(ctx, id)
}

// Projects is the Store's.
func (l *Ledger) Projects(ctx context.Context) ([]Project, error) {
	return l.store("Projects").Projects(ctx)
}

// DeleteAllocation is the Store's.
func (l *Ledger) DeleteAllocation(ctx context.Context, id AllocationID) error {
	return l.store("DeleteAllocation").DeleteAllocation(ctx, id)
}

// Allocation is the Store's.
func (l *Ledger) Allocation(ctx context.Context, id AllocationID) (Allocation, error) {
	return l.store("Allocation").Allocation(ctx, id)
}

// Allocations is the Store's.
func (l *Ledger) Allocations(ctx context.Context) ([]Allocation, error) {
	return l.store("Allocations").Allocations(ctx)
}

// ActiveAllocation is the Store's.
func (l *Ledger) ActiveAllocation(ctx context.Context, account string, r Resource, t time.Time) (Allocation, error) {
	return l.store("ActiveAllocation").ActiveAllocation(ctx, account, r, t)
}

// PreDebit is the Store's.
func (l *Ledger) PreDebit(ctx context.Context, r PreDebitRequest, now time.Time) (Job, error) {
	return l.store("PreDebit").PreDebit(ctx, r, now)
}

// Complete is the Store's.
func (l *Ledger) Complete(ctx context.Context, c Completion, now time.Time) (Job, error) {
	return l.store("Complete").Complete(ctx, c, now)
}

// Forget is the Store's.
func (l *Ledger) Forget(ctx context.Context, id JobID, now time.Time) error {
	return l.store("Forget").Forget(ctx, id, now)
}

// Job is the Store's.
func (l *Ledger) Job(ctx context.Context, id JobID) (Job, error) { return l.store("Job").Job(ctx, id) }

// Jobs is the Store's.
func (l *Ledger) Jobs(ctx context.Context, id AllocationID) ([]Job, error) {
	return l.store("Jobs").Jobs(ctx, id)
}

// Failures is the Store's.
func (l *Ledger) Failures(ctx context.Context) ([]Failure, error) {
	return l.store("Failures").Failures(ctx)
}

// Balance is the Store's.
func (l *Ledger) Balance(ctx context.Context, id AllocationID) (Balance, error) {
	return l.store("Balance").Balance(ctx, id)
}

// Balances is the Store's.
func (l *Ledger) Balances(ctx context.Context) ([]Balance, error) {
	return l.store("Balances").Balances(ctx)
}

// History is the Store's.
func (l *Ledger) History(ctx context.Context, id AllocationID) ([]Activity, error) {
	return l.store("History").History(ctx, id)
}

// Debits is the Store's.
func (l *Ledger) Debits(ctx context.Context, id AllocationID) ([]OwnerDebit, error) {
	return l.store("Debits").Debits(ctx, id)
}
