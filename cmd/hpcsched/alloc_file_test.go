package main

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/hpcsched/hpcsched/allocation"
	"github.com/stretchr/testify/require"
)

func TestAllocCheckAndRepair(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ledger.json")
	s, err := allocation.OpenFile(path)
	require.NoError(t, err)
	ctx := context.Background()
	p, err := s.CreateProject(ctx, allocation.Project{Name: "lab", GID: 1, Account: "lab"})
	require.NoError(t, err)
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	a, err := s.CreateAllocation(ctx, allocation.Allocation{Project: p.ID, Resource: allocation.CPU, Start: t0, End: t0.AddDate(1, 0, 0)})
	require.NoError(t, err)
	_, err = s.Credit(ctx, a.ID, 100, "", t0)
	require.NoError(t, err)

	code, _, errOut := runCmd(t, "alloc", "check", "--store", path)
	require.Equal(t, 2, code, "the store is open: its lock refuses a check")
	require.Contains(t, errOut, "in use by pid")
	require.NoError(t, s.Close())

	code, out, _ := runCmd(t, "alloc", "check", "--store", path)
	require.Equal(t, 0, code, out)
	require.Contains(t, out, "no damage found")
	info, err := os.Stat(path + ".journal")
	require.NoError(t, err)
	require.NoError(t, os.Truncate(path+".journal", info.Size()-1))

	code, out, _ = runCmd(t, "alloc", "check", "--store", path)
	require.Equal(t, 1, code)
	require.Contains(t, out, "record 3 at byte offset")
	code, out, _ = runCmd(t, "alloc", "repair", "--store", path)
	require.Equal(t, 0, code, out)
	require.Contains(t, out, "kept ops 1-2")
	code, out, _ = runCmd(t, "alloc", "check", "--store", path, "--json")
	require.Equal(t, 0, code, out)
	require.Contains(t, out, `"last_seq":2`)
}

// serve's startup line names the PostgreSQL host, port and database, never
// the user or password, whichever form the DSN takes.
func TestStoreNameHidesCredentials(t *testing.T) {
	for _, dsn := range []string{
		"postgres://alice:s3cret@db.example:5433/ledger?sslmode=disable",
		"host=db.example port=5433 user=alice password=s3cret dbname=ledger sslmode=disable",
	} {
		got := storeName(serveFlags{dsn: dsn})
		require.Contains(t, got, "db.example:5433")
		require.Contains(t, got, `"ledger"`)
		require.NotContains(t, got, "alice")
		require.NotContains(t, got, "s3cret")
	}
	got := storeName(serveFlags{dsn: "postgres://alice:s3cret@[bad"})
	require.NotContains(t, got, "s3cret")
	require.NotContains(t, got, "alice")
}
