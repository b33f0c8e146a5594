package allocation_test

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/hpcsched/hpcsched/allocation"
	"github.com/hpcsched/hpcsched/allocation/storetest"
	"github.com/stretchr/testify/require"
)

func TestFileStoreRoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ledger.json")
	s, err := allocation.OpenFile(path)
	require.NoError(t, err)
	l, a := fixture(t, s, 1000)
	_, err = l.PreDebitJob(ctx, allocation.JobStart{Job: 1, UID: 5, Account: "lab", Partition: "standard", Usage: allocation.Usage{CPUs: 4}, TimeLimit: time.Hour}, t0)
	require.NoError(t, err)
	_, err = l.PreDebitJob(ctx, allocation.JobStart{Job: 2, UID: 6, Account: "lab", Partition: "standard", Usage: allocation.Usage{CPUs: 4}, TimeLimit: time.Hour}, t0)
	require.NoError(t, err)
	_, err = l.CompleteJob(ctx, 1, 10*time.Minute, allocation.OutcomeCompleted, t0.Add(10*time.Minute))
	require.NoError(t, err)
	_, err = l.PreDebit(ctx, allocation.PreDebitRequest{Job: 3, UID: 6, Account: "lab", Resource: allocation.CPU, Amount: 5000}, t0)
	require.ErrorIs(t, err, allocation.ErrInsufficient)

	r, err := allocation.OpenFile(path)
	require.NoError(t, err)
	for _, st := range []allocation.Store{s, r} {
		storetest.CheckConsistent(t, st)
	}
	snapshot := func(st allocation.Store) []any {
		ps, _ := st.Projects(ctx)
		as, _ := st.Allocations(ctx)
		bs, _ := st.Balances(ctx)
		h, _ := st.History(ctx, a.ID)
		js, _ := st.Jobs(ctx, a.ID)
		fs, _ := st.Failures(ctx)
		ds, _ := st.Debits(ctx, a.ID)
		return []any{ps, as, bs, h, js, fs, ds}
	}
	require.Equal(t, snapshot(s), snapshot(r))
	// New ids continue after the stored ones.
	p, err := r.CreateProject(ctx, allocation.Project{Name: "x", Account: "x"})
	require.NoError(t, err)
	require.Equal(t, allocation.ProjectID(2), p.ID)
}

// A crash at any step of a write loses nothing that was acknowledged: the
// write is not acknowledged, the file still holds the previous state, the
// store carries on from it, and leftover temporary files are harmless.
func TestCrashMidWriteLosesNothing(t *testing.T) {
	for _, step := range []string{"write", "sync", "close", "rename", "syncdir"} {
		t.Run(step, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "ledger.json")
			s, err := allocation.OpenFile(path)
			require.NoError(t, err)
			l, a := fixture(t, s, 100)
			crash := errors.New("injected crash")
			allocation.SetFailAt(s, func(at string) error {
				if at == step {
					return crash
				}
				return nil
			})
			_, err = l.Credit(ctx, a.ID, 50, "lost", t0)
			require.ErrorIs(t, err, crash)
			b, _ := l.Balance(ctx, a.ID)
			require.Equal(t, int64(100), b.Balance, "an unacknowledged write is not applied")

			r, err := allocation.OpenFile(path)
			require.NoError(t, err)
			rb, err := r.Balance(ctx, a.ID)
			require.NoError(t, err)
			if step == "syncdir" {
				// The rename happened; only its durability is unknown.
				require.Contains(t, []int64{100, 150}, rb.Balance)
			} else {
				require.Equal(t, int64(100), rb.Balance, "the previous file is intact")
			}

			allocation.SetFailAt(s, nil)
			_, err = l.Credit(ctx, a.ID, 1, "after", t0)
			require.NoError(t, err)
			r, err = allocation.OpenFile(path)
			require.NoError(t, err)
			rb, _ = r.Balance(ctx, a.ID)
			require.Equal(t, int64(101), rb.Balance)
			storetest.CheckConsistent(t, r)
			left, _ := filepath.Glob(filepath.Join(dir, ".ledger.json.tmp-*"))
			require.Empty(t, left)
		})
	}
}

func TestOpenFileRejectsBadFiles(t *testing.T) {
	dir := t.TempDir()
	for name, body := range map[string]string{
		"garbage":     "not json",
		"version":     `{"format":"hpcsched-allocation-ledger","version":2}`,
		"format":      `{"format":"other","version":1}`,
		"unknown":     `{"format":"hpcsched-allocation-ledger","version":1,"extra":true}`,
		"truncated":   `{"format":"hpcsched-allocation-ledger","version":1,"projects":[`,
		"overflowing": `{"format":"hpcsched-allocation-ledger","version":1,"activity":[{"id":1,"allocation_id":1,"kind":"credit","amount":9223372036854775807},{"id":2,"allocation_id":1,"kind":"credit","amount":1}]}`,
	} {
		path := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(path, []byte(body), 0o600))
		_, err := allocation.OpenFile(path)
		require.ErrorIs(t, err, allocation.ErrFile, name)
	}
	_, err := allocation.OpenFile(dir) // a directory
	require.ErrorIs(t, err, allocation.ErrFile)
}
