package allocation

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

var (
	ctx  = context.Background()
	t0   = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	year = 365 * 24 * time.Hour
)

// fixture is a ledger with project "lab" (account lab, gid 1001) holding a
// CPU allocation for 2026 credited with credit SU.
func fixture(t *testing.T, store Store, credit int64) (*Ledger, Allocation) {
	t.Helper()
	l := New(store, WithPartitions(map[string]Partition{
		"standard": {Resource: CPU},
		"gpu-v100": {Resource: GPU},
	}))
	p, err := l.CreateProject(ctx, Project{Name: "lab", GID: 1001, Account: "lab"})
	require.NoError(t, err)
	a, err := l.CreateAllocation(ctx, Allocation{Project: p.ID, Category: "startup", Resource: CPU, Start: t0, End: t0.Add(year)})
	require.NoError(t, err)
	if credit > 0 {
		_, err = l.Credit(ctx, a.ID, credit, "grant", t0)
		require.NoError(t, err)
	}
	return l, a
}

// requireConsistent checks the ledger invariant: each balance equals the
// sum of its allocation's activity, is never negative, and its parts add
// up; per-owner debits add up to the debited total.
func requireConsistent(t *testing.T, s Store) {
	t.Helper()
	bs, err := s.Balances(ctx)
	require.NoError(t, err)
	for _, b := range bs {
		h, err := s.History(ctx, b.Allocation)
		require.NoError(t, err)
		var sum int64
		for _, a := range h {
			sum += a.Amount
		}
		require.Equal(t, sum, b.Balance, "allocation %d: balance vs activity", b.Allocation)
		require.Equal(t, b.Credits-b.Debited-b.Pending, b.Balance)
		require.GreaterOrEqual(t, b.Balance, int64(0), "allocation %d overdrawn", b.Allocation)
		ds, err := s.Debits(ctx, b.Allocation)
		require.NoError(t, err)
		var debited int64
		for _, d := range ds {
			debited += d.Amount
		}
		require.Equal(t, b.Debited, debited, "allocation %d: per-owner debits", b.Allocation)
	}
}
