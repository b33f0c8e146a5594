package allocation_test

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/hpcsched/hpcsched/allocation"
	"github.com/stretchr/testify/require"
)

// A journal whose header is whole but names a newer format version (a
// newer hpcsched wrote it, and the site went back to an older binary) is
// not damage: opening, checking and repairing refuse it with ErrFile and
// leave the files as they are, so going back to the binary that wrote it
// loses nothing. Repair used to set the journal aside as damaged.
func TestJournalOfANewerVersionIsRefusedNotRepaired(t *testing.T) {
	for _, version := range []int{3, 99} {
		t.Run(fmt.Sprint("version=", version), func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "ledger")
			s, err := allocation.OpenFile(path)
			require.NoError(t, err)
			_, a := fixture(t, s, 1000)
			require.NoError(t, s.Close())
			journal := path + ".journal"
			whole, err := os.ReadFile(journal)
			require.NoError(t, err)
			header := []byte("hpcsched-allocation-journal 2 ")
			require.True(t, bytes.HasPrefix(whole, header))
			other := append(fmt.Appendf(nil, "hpcsched-allocation-journal %d ", version), whole[len(header):]...)
			require.NoError(t, os.WriteFile(journal, other, 0o600))

			_, err = allocation.OpenFile(path)
			require.ErrorIs(t, err, allocation.ErrFile)
			var je *allocation.JournalError
			require.False(t, errors.As(err, &je), "a version is not damage: %v", err)
			require.Contains(t, err.Error(), fmt.Sprintf("format version %d", version))
			_, err = allocation.CheckFile(path)
			require.ErrorIs(t, err, allocation.ErrFile)
			_, err = allocation.RepairFile(path)
			require.ErrorIs(t, err, allocation.ErrFile)
			after, err := os.ReadFile(journal)
			require.NoError(t, err)
			require.Equal(t, other, after, "the journal is left as it was")
			kept, _ := filepath.Glob(journal + ".damaged-*")
			require.Empty(t, kept)

			// Back on the version that wrote it, every change is there.
			require.NoError(t, os.WriteFile(journal, whole, 0o600))
			r, err := allocation.OpenFile(path)
			require.NoError(t, err)
			defer r.Close()
			b, err := r.Balance(ctx, a.ID)
			require.NoError(t, err)
			require.Equal(t, int64(1000), b.Credits)
		})
	}
}

// A snapshot of a newer format version is refused alike, and the error
// says to use the hpcsched that wrote it, not to restore a backup.
func TestSnapshotOfANewerVersionIsRefusedNotRepaired(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ledger")
	s, err := allocation.OpenFile(path)
	require.NoError(t, err)
	fixture(t, s, 1000)
	require.NoError(t, s.Close())
	whole, err := os.ReadFile(path)
	require.NoError(t, err)
	header := fmt.Appendf(nil, "%s %d ", allocation.FileFormat, allocation.FileVersion)
	require.True(t, bytes.HasPrefix(whole, header))
	newer := append(fmt.Appendf(nil, "%s %d ", allocation.FileFormat, allocation.FileVersion+1), whole[len(header):]...)
	require.NoError(t, os.WriteFile(path, newer, 0o600))
	_, err = allocation.OpenFile(path)
	require.ErrorIs(t, err, allocation.ErrFile)
	require.Contains(t, err.Error(), "use the hpcsched that wrote it")
	for _, run := range []func(string) (allocation.FileReport, error){allocation.CheckFile, allocation.RepairFile} {
		_, err = run(path)
		require.ErrorIs(t, err, allocation.ErrFile)
		require.Contains(t, err.Error(), "use the hpcsched that wrote it")
		require.NotContains(t, err.Error(), "backup")
	}
	after, err := os.ReadFile(path)
	require.NoError(t, err)
	require.Equal(t, newer, after)
}
