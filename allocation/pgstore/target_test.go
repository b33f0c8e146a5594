package pgstore_test

import (
	"testing"

	"github.com/hpcsched/hpcsched/allocation/pgstore"
	"github.com/stretchr/testify/require"
)

// Target names host, port and database, never the user or password,
// whichever form the DSN takes.
func TestTargetHidesCredentials(t *testing.T) {
	for _, dsn := range []string{
		"postgres://alice:s3cret@db.example:5433/ledger?sslmode=disable",
		"host=db.example port=5433 user=alice password=s3cret dbname=ledger sslmode=disable",
	} {
		got := pgstore.Target(dsn)
		require.Contains(t, got, "db.example:5433")
		require.Contains(t, got, `"ledger"`)
		require.NotContains(t, got, "alice")
		require.NotContains(t, got, "s3cret")
	}
	got := pgstore.Target("postgres://alice:s3cret@[bad")
	require.NotContains(t, got, "s3cret")
	require.NotContains(t, got, "alice")
}
