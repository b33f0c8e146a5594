package pgstore

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hpcsched/hpcsched/allocation"
	"github.com/hpcsched/hpcsched/allocation/storetest"
	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"
)

// DSNEnv names the PostgreSQL server the tests use; each test creates and
// drops its own database there. .ci/run starts a throwaway server and sets
// it.
const DSNEnv = "HPCSCHED_TEST_PG_DSN"

var dbSeq atomic.Int64

// freshDB creates an empty database and returns its DSN.
func freshDB(t testing.TB) string {
	t.Helper()
	dsn := os.Getenv(DSNEnv)
	if dsn == "" {
		t.Skipf("%s is not set: no PostgreSQL to test against (.ci/run starts one)", DSNEnv)
	}
	ctx := context.Background()
	admin, err := pgx.Connect(ctx, dsn)
	require.NoError(t, err)
	defer admin.Close(ctx)
	name := fmt.Sprintf("hpcsched_test_%d_%d", os.Getpid(), dbSeq.Add(1))
	_, err = admin.Exec(ctx, "CREATE DATABASE "+name)
	require.NoError(t, err)
	t.Cleanup(func() {
		c, err := pgx.Connect(context.Background(), dsn)
		if err != nil {
			t.Log("drop", name, err)
			return
		}
		defer c.Close(context.Background())
		if _, err := c.Exec(context.Background(), "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)"); err != nil {
			t.Log("drop", name, err)
		}
	})
	return withDatabase(dsn, name)
}

// withDatabase is dsn (a URL or key=value string) naming database name.
func withDatabase(dsn, name string) string {
	if u, err := url.Parse(dsn); err == nil && (u.Scheme == "postgres" || u.Scheme == "postgresql") {
		u.Path = "/" + name
		return u.String()
	}
	return dsn + " dbname=" + name
}

func open(t testing.TB, dsn string) *Store {
	t.Helper()
	s, err := Open(context.Background(), dsn)
	require.NoError(t, err)
	t.Cleanup(s.Close)
	return s
}

func TestConformance(t *testing.T) {
	storetest.Run(t, func(t *testing.T) allocation.Store { return open(t, freshDB(t)) })
}

// Two servers (two pools: two sets of sessions, as two processes have) on
// one database, 32 concurrent pre-debits each against one allocation: the
// balances row lock serialises them across both, so the allocation is never
// overdrawn and the balances equal the sum of the activity.
func TestTwoServersNeverOverdraw(t *testing.T) {
	dsn := freshDB(t)
	a, b := open(t, dsn), open(t, dsn)
	alloc := storetest.Fixture(t, a, "lab", 1001, 400)
	var wg sync.WaitGroup
	var refused [2]int
	for i, s := range []*Store{a, b} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			// two jobs a worker: the first completes (returning most of its
			// pre-debit), the second stays executing, so 64 pre-debits of 5-15
			// SU stay held at the end whatever the interleaving: more than 400
			// SU, so some must be refused (with one job a worker, completions
			// could return enough for every job, and the test was flaky)
			refused[i] = storetest.Hammer(t, s, "lab", alloc.ID, 32, 2, allocation.JobID(i*1000))
		}()
	}
	wg.Wait()
	require.Positive(t, refused[0]+refused[1], "400 SU cannot cover 64 jobs of 5-15 SU")
	storetest.CheckConsistent(t, a)
	storetest.CheckConsistent(t, b)
	fs, err := b.Failures(context.Background())
	require.NoError(t, err)
	require.Len(t, fs, refused[0]+refused[1])
	// The balance columns agree with a fresh sum over the activity table
	// (a completion's row carries its release and its debit).
	var drift int64
	require.NoError(t, a.pool.QueryRow(context.Background(), `SELECT count(*) FROM balances b
		WHERE b.balance <> (SELECT COALESCE(sum(amount + COALESCE(debit, 0)), 0) FROM activity WHERE allocation_id = b.allocation_id)`).Scan(&drift))
	require.Zero(t, drift)
}

// The database itself refuses an overlapping allocation, whoever writes.
func TestDatabaseRefusesOverlapAndNegativeBalance(t *testing.T) {
	s := open(t, freshDB(t))
	a := storetest.Fixture(t, s, "lab", 1001, 10)
	ctx := context.Background()
	_, err := s.pool.Exec(ctx, "INSERT INTO allocations (project_id, resource, start_date, end_date) VALUES ($1, 'CPU', $2, $3)",
		a.Project, a.Start.Add(time.Hour), a.End.Add(time.Hour))
	require.Equal(t, exclusionViolation, pgCode(err), "%v", err)
	_, err = s.pool.Exec(ctx, "UPDATE balances SET balance = -1 WHERE allocation_id = $1", a.ID)
	require.Error(t, err)
}

func TestMigrationsApplyOnceConcurrently(t *testing.T) {
	dsn := freshDB(t)
	var wg sync.WaitGroup
	errs := make([]error, 4)
	for i := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s, err := Open(context.Background(), dsn)
			if err == nil {
				s.Close()
			}
			errs[i] = err
		}()
	}
	wg.Wait()
	require.NoError(t, errors.Join(errs...))
	s := open(t, dsn)
	var n int
	require.NoError(t, s.pool.QueryRow(context.Background(), "SELECT count(*) FROM hpcsched_schema_migrations").Scan(&n))
	require.Equal(t, Migrations(), n)
	require.Positive(t, n)
}

func TestJobIDsBeyondBigintAreRefused(t *testing.T) {
	s := open(t, freshDB(t))
	storetest.Fixture(t, s, "lab", 1001, 10)
	_, err := s.PreDebit(context.Background(), allocation.PreDebitRequest{Job: 1 << 63, Account: "lab", Resource: allocation.CPU, Amount: 1}, storetest.T0)
	var fe *allocation.FieldError
	require.ErrorAs(t, err, &fe)
	require.Equal(t, "job_id", fe.Field)
}

// A failure of the database reaches the caller as a *DatabaseError whose
// message names no host, user or driver text; the cause stays for logs.
func TestDatabaseErrorsHideTheServer(t *testing.T) {
	dsn := freshDB(t)
	s := open(t, dsn)
	// Tables gone from under the store (an operator's mistake): every
	// read fails in the database.
	admin, err := pgx.Connect(context.Background(), dsn)
	require.NoError(t, err)
	defer admin.Close(context.Background())
	_, err = admin.Exec(context.Background(), "ALTER TABLE projects RENAME TO projects_gone; ALTER TABLE jobs RENAME TO jobs_gone")
	require.NoError(t, err)
	_, err = s.Projects(context.Background())
	require.ErrorIs(t, err, ErrDatabase)
	var de *DatabaseError
	require.ErrorAs(t, err, &de)
	require.NotContains(t, err.Error(), "127.0.0.1")
	require.NotContains(t, err.Error(), "postgres")
	require.Error(t, de.Cause)
	_, err = s.Job(context.Background(), 1)
	require.ErrorIs(t, err, ErrDatabase)
}

// A database a newer hpcsched migrated (a migration this package does not
// ship is recorded) is refused, as a file store refuses a newer file
// format, and left as it was: an older binary would otherwise write with an
// older idea of the tables.
func TestOpenRefusesANewerSchema(t *testing.T) {
	dsn := freshDB(t)
	open(t, dsn)
	ctx := context.Background()
	c, err := pgx.Connect(ctx, dsn)
	require.NoError(t, err)
	defer c.Close(ctx)
	future := Migrations() + 1
	_, err = c.Exec(ctx, "INSERT INTO hpcsched_schema_migrations (version, name) VALUES ($1, 'from a newer hpcsched')", future)
	require.NoError(t, err)
	_, err = Open(ctx, dsn)
	require.ErrorIs(t, err, ErrNewerSchema)
	var newest int
	require.NoError(t, c.QueryRow(ctx, "SELECT max(version) FROM hpcsched_schema_migrations").Scan(&newest))
	require.Equal(t, future, newest)
}

// Every call after Close is refused with allocation.ErrClosed, a sentinel a
// server can branch on, instead of a driver error about a closed pool.
func TestClosedStoreRefusesWithErrClosed(t *testing.T) {
	s, err := Open(context.Background(), freshDB(t))
	require.NoError(t, err)
	a := storetest.Fixture(t, s, "lab", 1001, 100)
	s.Close()
	_, err = s.Credit(context.Background(), a.ID, 5, "", storetest.T0)
	require.ErrorIs(t, err, allocation.ErrClosed)
	_, err = s.Balance(context.Background(), a.ID)
	require.ErrorIs(t, err, allocation.ErrClosed)
	_, err = s.JobIDs().NextJobID(context.Background())
	require.ErrorIs(t, err, allocation.ErrClosed)
	s.Close() // a second Close does nothing
}
