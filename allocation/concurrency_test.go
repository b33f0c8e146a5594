package allocation_test

import (
	"path/filepath"
	"testing"

	"github.com/hpcsched/hpcsched/allocation"
	"github.com/hpcsched/hpcsched/allocation/storetest"
	"github.com/stretchr/testify/require"
)

func TestMemStoreConformance(t *testing.T) {
	storetest.Run(t, func(*testing.T) allocation.Store { return allocation.NewMemStore() })
}

// The file-backed store once more, on a lighter concurrent load (every
// write fsyncs the journal; the locking is MemStore's), compacting every
// few changes; reopened, it holds the same ledger.
func TestFileStoreUnderConcurrentLoad(t *testing.T) {
	s, err := allocation.OpenFile(filepath.Join(t.TempDir(), "ledger.json"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	allocation.SetCompactEvery(s, 7)
	a := storetest.Fixture(t, s, "lab", 1001, 60)
	if refused := storetest.Hammer(t, s, "lab", a.ID, 16, 2, 0); refused == 0 {
		t.Fatal("no pre-debit was refused; the grant should be too small")
	}
	storetest.CheckConsistent(t, s)
	r, err := allocation.OpenAfterCrash(s.Path())
	if err != nil {
		t.Fatal(err)
	}
	storetest.CheckConsistent(t, r)
	require.Equal(t, ledgerImage(s, a.ID), ledgerImage(r, a.ID))
}
