package allocation_test

import (
	"path/filepath"
	"testing"

	"github.com/hpcsched/hpcsched/allocation"
	"github.com/stretchr/testify/require"
)

// A change to a closed file store is refused with ErrClosed, a sentinel,
// and reaches neither the store nor its files.
func TestClosedFileStoreRefusesChangesWithErrClosed(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ledger")
	s, err := allocation.OpenFile(path)
	require.NoError(t, err)
	l, a := fixture(t, s, 100)
	require.NoError(t, s.Close())
	require.NoError(t, s.Close())
	_, err = l.Credit(ctx, a.ID, 5, "", t0)
	require.ErrorIs(t, err, allocation.ErrClosed)
	_, err = l.PreDebit(ctx, allocation.PreDebitRequest{Job: 1, Account: "lab", Resource: allocation.CPU, Amount: 5}, t0)
	require.ErrorIs(t, err, allocation.ErrClosed)
	r, err := allocation.OpenFile(path)
	require.NoError(t, err)
	defer r.Close()
	b, err := r.Balance(ctx, a.ID)
	require.NoError(t, err)
	require.Equal(t, int64(100), b.Credits)
	_, err = r.Job(ctx, 1)
	require.ErrorIs(t, err, allocation.ErrNotFound)
}
