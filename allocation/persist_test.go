package allocation_test

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hpcsched/hpcsched/allocation"
	"github.com/hpcsched/hpcsched/allocation/storetest"
	"github.com/stretchr/testify/require"
)

// Reopening a ledger file gives the same ledger, whether it comes from
// the journal, a snapshot or both.
func TestFileStoreRoundTrip(t *testing.T) {
	for _, every := range []int{1024, 3, 1} {
		t.Run(fmt.Sprint("compact-every=", every), func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "ledger.json")
			s, err := allocation.OpenFile(path)
			require.NoError(t, err)
			allocation.SetCompactEvery(s, every)
			l, a := fixture(t, s, 1000)
			_, err = l.PreDebitJob(ctx, allocation.JobStart{Job: 1, UID: 5, Account: "lab", Partition: "standard", Usage: allocation.Usage{CPUs: 4}, TimeLimit: time.Hour}, t0)
			require.NoError(t, err)
			_, err = l.PreDebitJob(ctx, allocation.JobStart{Job: 2, UID: 6, Account: "lab", Partition: "standard", Usage: allocation.Usage{CPUs: 4}, TimeLimit: time.Hour}, t0)
			require.NoError(t, err)
			_, err = l.CompleteJob(ctx, 1, 10*time.Minute, allocation.OutcomeCompleted, t0.Add(10*time.Minute))
			require.NoError(t, err)
			_, err = l.PreDebit(ctx, allocation.PreDebitRequest{Job: 3, UID: 6, Account: "lab", Resource: allocation.CPU, Amount: 5000}, t0)
			require.ErrorIs(t, err, allocation.ErrInsufficient)

			r, err := allocation.OpenAfterCrash(path)
			require.NoError(t, err)
			for _, st := range []allocation.Store{s, r} {
				storetest.CheckConsistent(t, st)
			}
			require.Equal(t, ledgerImage(s, a.ID), ledgerImage(r, a.ID))
			// New ids continue after the stored ones.
			p, err := r.CreateProject(ctx, allocation.Project{Name: "x", Account: "x"})
			require.NoError(t, err)
			require.Equal(t, allocation.ProjectID(2), p.ID)
		})
	}
}

// ledgerImage is everything a store holds about allocation id.
func ledgerImage(st allocation.Store, id allocation.AllocationID) []any {
	ps, _ := st.Projects(ctx)
	as, _ := st.Allocations(ctx)
	bs, _ := st.Balances(ctx)
	h, _ := st.History(ctx, id)
	js, _ := st.Jobs(ctx, id)
	fs, _ := st.Failures(ctx)
	ds, _ := st.Debits(ctx, id)
	return []any{ps, as, bs, h, js, fs, ds}
}

// crashAt makes s fail at the named persistence step.
func crashAt(s *allocation.MemStore, step string) error {
	crash := errors.New("injected crash at " + step)
	allocation.SetFailAt(s, func(at string) error {
		if at == step {
			return crash
		}
		return nil
	})
	return crash
}

func balanceIn(t *testing.T, path string, id allocation.AllocationID) int64 {
	t.Helper()
	r, err := allocation.OpenAfterCrash(path)
	require.NoError(t, err)
	defer r.Close()
	storetest.CheckConsistent(t, r)
	b, err := r.Balance(ctx, id)
	require.NoError(t, err)
	return b.Balance
}

// A crash while a change is journaled: the change is not acknowledged, is
// not applied, and is not in the files; the store carries on.
func TestCrashWhileJournalingLosesNothing(t *testing.T) {
	for _, step := range []string{"append", "fsync"} {
		t.Run(step, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "ledger.json")
			s, err := allocation.OpenFile(path)
			require.NoError(t, err)
			defer s.Close()
			l, a := fixture(t, s, 100)
			crash := crashAt(s, step)
			_, err = l.Credit(ctx, a.ID, 50, "lost", t0)
			require.ErrorIs(t, err, crash)
			b, _ := l.Balance(ctx, a.ID)
			require.Equal(t, int64(100), b.Balance, "an unacknowledged write is not applied")
			require.Equal(t, int64(100), balanceIn(t, path, a.ID))

			allocation.SetFailAt(s, nil)
			_, err = l.Credit(ctx, a.ID, 1, "after", t0)
			require.NoError(t, err)
			require.Equal(t, int64(101), balanceIn(t, path, a.ID))
		})
	}
}

// A crash at any step of a snapshot (every change compacts here): the
// change was journaled first, so it is acknowledged and survives; the
// old snapshot stays whole and leftover temporary files are removed.
func TestCrashWhileCompactingLosesNothing(t *testing.T) {
	for _, step := range []string{"write", "sync", "close", "rename", "syncdir", "truncate"} {
		t.Run(step, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "ledger.json")
			s, err := allocation.OpenFile(path)
			require.NoError(t, err)
			defer s.Close()
			allocation.SetCompactEvery(s, 1)
			l, a := fixture(t, s, 100)
			crashAt(s, step)
			_, err = l.Credit(ctx, a.ID, 50, "kept", t0)
			require.NoError(t, err, "journaled, so acknowledged")
			require.Equal(t, int64(150), balanceIn(t, path, a.ID))
			allocation.SetFailAt(s, nil)
			_, err = l.Credit(ctx, a.ID, 1, "after", t0)
			require.NoError(t, err)
			require.Equal(t, int64(151), balanceIn(t, path, a.ID))
			left, _ := filepath.Glob(filepath.Join(dir, ".ledger.json.tmp-*"))
			require.Empty(t, left)
		})
	}
}

// Damage to the journal or the loss of a file is refused with the file,
// offset and record, never replayed or silently dropped; RepairFile keeps
// what is intact and the damaged journal beside it.
func TestDamagedLedgerIsRefusedAndRepaired(t *testing.T) {
	for _, tc := range []struct {
		name    string
		damage  func(t *testing.T, path string)
		record  int   // the record named (0: no *JournalError)
		balance int64 // after RepairFile
	}{
		{"cut 1 byte", func(t *testing.T, path string) { cut(t, path+".journal", 1) }, 4, 100},
		{"cut 30 bytes", func(t *testing.T, path string) { cut(t, path+".journal", 30) }, 4, 100},
		{"amount changed", func(t *testing.T, path string) {
			edit(t, path+".journal", `"amount":3000`, `"amount":9000`)
		}, 4, 100},
		{"journal deleted", func(t *testing.T, path string) { require.NoError(t, os.Remove(path+".journal")) }, 0, 0},
		{"snapshot deleted", func(t *testing.T, path string) { require.NoError(t, os.Remove(path)) }, 0, 3100},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "ledger.json")
			s, err := allocation.OpenFile(path)
			require.NoError(t, err)
			_, a := fixture(t, s, 100)
			_, err = s.Credit(ctx, a.ID, 3000, "acknowledged", t0)
			require.NoError(t, err)
			require.NoError(t, s.Close())
			tc.damage(t, path)

			_, err = allocation.OpenFile(path)
			require.ErrorIs(t, err, allocation.ErrFile)
			var je *allocation.JournalError
			if tc.record > 0 {
				require.ErrorAs(t, err, &je)
				require.Equal(t, tc.record, je.Record, "%v", err)
				require.Positive(t, je.Offset)
				require.Contains(t, err.Error(), path+".journal")
			}
			rep, err := allocation.CheckFile(path)
			require.NoError(t, err)
			require.NotEmpty(t, rep.Damage)

			rep, err = allocation.RepairFile(path)
			require.NoError(t, err)
			if tc.record > 0 {
				require.FileExists(t, rep.Kept, "the damaged journal is kept")
			}
			r, err := allocation.OpenFile(path)
			require.NoError(t, err)
			defer r.Close()
			b, err := r.Balance(ctx, a.ID)
			if tc.balance == 0 { // the journal held everything: nothing is left
				require.ErrorIs(t, err, allocation.ErrNotFound)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tc.balance, b.Balance)
			storetest.CheckConsistent(t, r)
		})
	}
}

func cut(t *testing.T, path string, n int64) {
	info, err := os.Stat(path)
	require.NoError(t, err)
	require.NoError(t, os.Truncate(path, info.Size()-n))
}

func edit(t *testing.T, path, from, to string) {
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	require.Contains(t, string(data), from)
	require.NoError(t, os.WriteFile(path, []byte(strings.Replace(string(data), from, to, 1)), 0o600))
}

func TestOpenFileRejectsBadFiles(t *testing.T) {
	dir := t.TempDir()
	for name, body := range map[string]string{
		"garbage":     "not json",
		"version":     `{"format":"hpcsched-allocation-ledger","version":3}`,
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

// Two stores on one ledger would each acknowledge writes the other then
// overwrites: the second is refused, naming the first, until it closes.
func TestSecondStoreOnOneLedgerIsRefused(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ledger.json")
	first, err := allocation.OpenFile(path)
	require.NoError(t, err)
	_, err = allocation.OpenFile(path)
	var le *allocation.LockedError
	require.ErrorAs(t, err, &le)
	require.ErrorIs(t, err, allocation.ErrLocked)
	require.Contains(t, le.Holder, fmt.Sprintf("pid %d", os.Getpid()))
	require.NoError(t, first.Close())
	second, err := allocation.OpenFile(path)
	require.NoError(t, err, "the lock goes with the store that held it")
	require.NoError(t, second.Close())
}

// The snapshot is written without the write lock: while one writer
// compacts (held here inside the snapshot's write), others read and
// write; their ops reach the new journal.
func TestCompactionDoesNotHoldTheWriteLock(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ledger.json")
	s, err := allocation.OpenFile(path)
	require.NoError(t, err)
	defer s.Close()
	_, a := fixture(t, s, 100)
	allocation.SetCompactEvery(s, 1)
	inSnapshot, release := make(chan struct{}), make(chan struct{})
	var once sync.Once
	allocation.SetFailAt(s, func(step string) error {
		if step == "write" {
			once.Do(func() { close(inSnapshot); <-release })
		}
		return nil
	})
	done := make(chan error)
	go func() { _, err := s.Credit(ctx, a.ID, 1, "compacts", t0); done <- err }()
	<-inSnapshot
	require.True(t, allocation.WriteLockFree(s), "the snapshot is written under the write lock")
	_, err = s.Credit(ctx, a.ID, 2, "during the snapshot", t0)
	require.NoError(t, err)
	close(release)
	require.NoError(t, <-done)
	allocation.SetFailAt(s, nil)
	require.Equal(t, int64(103), balanceIn(t, path, a.ID))
}

// An empty path or one naming a directory is refused before any file is
// made: an empty one would put ".lock" and ".journal" in the working
// directory.
func TestOpenFileRefusesAPathThatIsNoLedgerFile(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	_, err := allocation.OpenFile("")
	require.ErrorIs(t, err, allocation.ErrInvalid)
	_, err = allocation.CheckFile("")
	require.ErrorIs(t, err, allocation.ErrInvalid)
	_, err = allocation.RepairFile("")
	require.ErrorIs(t, err, allocation.ErrInvalid)
	sub := filepath.Join(dir, "sub")
	require.NoError(t, os.Mkdir(sub, 0o755))
	_, err = allocation.OpenFile(sub)
	require.ErrorIs(t, err, allocation.ErrFile)
	_, err = allocation.CheckFile(sub)
	require.ErrorIs(t, err, allocation.ErrFile)
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	require.Len(t, entries, 1, "only sub")
}

// Checking or repairing a path where no ledger is (a typo) is an error
// that says so, and leaves nothing behind: no lock file, no journal.
func TestCheckAndRepairRefuseAPathWithNoLedger(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "ledgr.json")
	for name, f := range map[string]func(string) (allocation.FileReport, error){
		"check": allocation.CheckFile, "repair": allocation.RepairFile,
	} {
		_, err := f(path)
		require.ErrorIs(t, err, allocation.ErrFile, name)
		require.ErrorIs(t, err, fs.ErrNotExist, name)
		require.ErrorContains(t, err, "no ledger at "+path, name)
	}
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	require.Empty(t, entries)

	s, err := allocation.OpenFile(path) // a new ledger is there once opened
	require.NoError(t, err)
	require.NoError(t, s.Close())
	rep, err := allocation.CheckFile(path)
	require.NoError(t, err)
	require.Empty(t, rep.Damage)
}
