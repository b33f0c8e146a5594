package pgstore

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/hpcsched/hpcsched/allocation"

	"github.com/hpcsched/hpcsched/queue"
	"github.com/stretchr/testify/require"
)

// Two pools (two controllers) drawing IDs concurrently never get the same
// one.
func TestJobIDsAreUniqueAcrossPools(t *testing.T) {
	dsn := freshDB(t)
	ctx := context.Background()
	var srcs []queue.IDSource
	for range 2 {
		s, err := Open(ctx, dsn)
		require.NoError(t, err)
		t.Cleanup(s.Close)
		srcs = append(srcs, s.JobIDs())
	}
	var mu sync.Mutex
	seen := map[queue.JobID]bool{}
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func(src queue.IDSource) {
			defer wg.Done()
			for range 50 {
				id, err := src.NextJobID(ctx)
				mu.Lock()
				if err != nil || seen[id] {
					t.Errorf("ID %d handed out twice, or %v", id, err)
				}
				seen[id] = true
				mu.Unlock()
			}
		}(srcs[g%2])
	}
	wg.Wait()
	require.Len(t, seen, 400)
}

// A Store not made by Open (the zero Store, or nil) answers ErrNotOpen
// from every method and never panics.
func TestStoreNotOpenedIsRefused(t *testing.T) {
	ctx := context.Background()
	for _, s := range []*Store{{}, nil} {
		var st allocation.Store = s
		_, err := st.Balance(ctx, 1)
		require.ErrorIs(t, err, ErrNotOpen)
		_, err = st.PreDebit(ctx, allocation.PreDebitRequest{Job: 1, Account: "a", Resource: allocation.CPU}, time.Time{})
		require.ErrorIs(t, err, ErrNotOpen)
		_, err = st.Complete(ctx, allocation.Completion{Job: 1, Outcome: allocation.OutcomeCompleted}, time.Time{})
		require.ErrorIs(t, err, ErrNotOpen)
		require.ErrorIs(t, st.Forget(ctx, 1, time.Time{}), ErrNotOpen)
		_, err = st.Projects(ctx)
		require.ErrorIs(t, err, ErrNotOpen)
		_, err = st.CreateAllocation(ctx, allocation.Allocation{})
		require.ErrorIs(t, err, ErrNotOpen)
		_, err = st.Failures(ctx)
		require.ErrorIs(t, err, ErrNotOpen)
		_, err = s.JobIDs().NextJobID(ctx)
		require.ErrorIs(t, err, ErrNotOpen)
		s.Close()
	}
}
