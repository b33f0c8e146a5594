package allocation_test

import (
	"context"
	"errors"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hpcsched/hpcsched/allocation"
	"github.com/hpcsched/hpcsched/queue"
	"github.com/stretchr/testify/require"
)

// downStore fails every completion while down is set, as a store whose
// database is unreachable does.
type downStore struct {
	*allocation.MemStore
	down atomic.Bool
}

var errUnreachable = errors.New("connection refused")

func (s *downStore) Complete(ctx context.Context, c allocation.Completion, now time.Time) (allocation.Job, error) {
	if s.down.Load() {
		return allocation.Job{}, errUnreachable
	}
	return s.MemStore.Complete(ctx, c, now)
}

// A job end the ledger could not record is kept on disk and recorded by
// a retry after a restart, as it would have been at the time.
func TestFailedReleaseIsRetriedFromDiskAfterRestart(t *testing.T) {
	store := &downStore{MemStore: allocation.NewMemStore()}
	l, a := fixture(t, store, 1000)
	path := filepath.Join(t.TempDir(), "releases.json")
	q, err := allocation.OpenReleaseQueue(path)
	require.NoError(t, err)
	var reported []error
	p := &allocation.QueuePlugin{Ledger: l, Retry: q, OnError: func(_ queue.JobID, err error) { reported = append(reported, err) }}
	_, err = l.PreDebit(ctx, allocation.PreDebitRequest{Job: 7, Account: "lab", Resource: allocation.CPU, Amount: 120, Rate: 2_000_000}, t0)
	require.NoError(t, err)

	store.down.Store(true)
	p.Release(ctx, &queue.Job{ID: 7}, queue.JobEnd{State: queue.Complete, Elapsed: 10 * time.Minute}, t0.Add(10*time.Minute))
	require.Len(t, reported, 1)
	require.ErrorIs(t, reported[0], errUnreachable)

	restarted, err := allocation.OpenReleaseQueue(path) // a new process reads the file
	require.NoError(t, err)
	require.Len(t, restarted.Pending(), 1)
	done, failed, err := restarted.Retry(ctx, l)
	require.NoError(t, err)
	require.Zero(t, done, "still down: kept")
	require.Empty(t, failed)
	require.Equal(t, 1, restarted.Pending()[0].Attempts)

	store.down.Store(false)
	done, failed, err = restarted.Retry(ctx, l)
	require.NoError(t, err)
	require.Equal(t, 1, done)
	require.Empty(t, failed)
	require.Empty(t, restarted.Pending())
	j, err := l.Job(ctx, 7)
	require.NoError(t, err)
	require.Equal(t, allocation.Completed, j.Status)
	require.Equal(t, t0.Add(10*time.Minute), j.Ended, "recorded at the time of the end")
	require.Equal(t, int64(20), j.Debited)
	b, err := l.Balance(ctx, a.ID)
	require.NoError(t, err)
	require.Equal(t, int64(980), b.Balance)
	again, err := allocation.OpenReleaseQueue(path)
	require.NoError(t, err)
	require.Empty(t, again.Pending(), "the file no longer holds it")
}
