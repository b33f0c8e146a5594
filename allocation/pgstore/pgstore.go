package pgstore

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/hpcsched/hpcsched/allocation"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
)

//go:embed migrations/*.sql
var migrations embed.FS

// The advisory lock key (pg_advisory_xact_lock's bigint form) serialising
// schema migrations.
const migrateLockKey = 0x68706373_6d696772 // "hpcsmigr"

// Store is an allocation.Store on a pgx connection pool. Safe for
// concurrent use.
type Store struct {
	pool   *pgxpool.Pool
	closed atomic.Bool
}

var _ allocation.Store = (*Store)(nil)

// DefaultPoolSize is the connections a Store's pool may open when the DSN
// does not say (pool_max_conns). pgxpool's own default, 4 or the number
// of CPUs, keeps 16 concurrent clients of one server waiting for a
// connection: on a 2-core machine their pairs reached a quarter of the
// plain-transaction rate with 4 connections and three fifths with 16.
const DefaultPoolSize = 16

// Open connects to dsn (a PostgreSQL URL or key=value string) and applies
// the migrations; a database a newer hpcsched migrated is refused
// (ErrNewerSchema). The pool opens up to DefaultPoolSize connections unless
// the DSN sets pool_max_conns.
func Open(ctx context.Context, dsn string) (*Store, error) {
	cfg, err := pgxpool.ParseConfig(dsn)
	if err != nil {
		return nil, fmt.Errorf("pgstore: %w", err)
	}
	if !strings.Contains(dsn, "pool_max_conns") {
		cfg.MaxConns = DefaultPoolSize
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("pgstore: %w", err)
	}
	s := &Store{pool: pool}
	if err := s.migrate(ctx); err != nil {
		pool.Close()
		return nil, err
	}
	return s, nil
}

// Close closes the pool; every call after it is refused (allocation.ErrClosed).
func (s *Store) Close() {
	if s != nil && s.pool != nil {
		s.closed.Store(true)
		s.pool.Close()
	}
}

// ErrNewerSchema: the database records a schema migration this package
// does not ship: a newer hpcsched migrated it. Open refuses it, changing
// nothing, rather than write with an older idea of the tables.
var ErrNewerSchema = errors.New("pgstore: the database schema is newer than this hpcsched")

// ErrNotOpen: a Store not made by Open (the zero Store, or nil) was used.
var ErrNotOpen = errors.New("pgstore: the store was not made by Open")

// opened refuses a Store not made by Open.
func (s *Store) opened(ctx context.Context) error {
	if s == nil || s.pool == nil {
		return ErrNotOpen
	}
	if s.closed.Load() {
		return allocation.ErrClosed
	}
	if ctx == nil {
		// pgx would panic on it; a refused call changes nothing.
		return &allocation.FieldError{Field: "ctx", Reason: "nil context"}
	}
	return nil
}

// Migrations is the number of shipped migrations (the schema version).
func Migrations() int {
	names, _ := fs.Glob(migrations, "migrations/*.sql")
	return len(names)
}

// migrate applies, in name order, each shipped migration not yet
// recorded; all in one transaction under an advisory lock.
func (s *Store) migrate(ctx context.Context) error { return s.migrateTo(ctx, Migrations()) }

// migrateTo is migrate stopping after version last (a test builds an
// older schema with it to check the upgrade from it).
func (s *Store) migrateTo(ctx context.Context, last int) error {
	names, err := fs.Glob(migrations, "migrations/*.sql")
	if err != nil {
		return err
	}
	slices.Sort(names)
	return pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock($1)", int64(migrateLockKey)); err != nil {
			return fmt.Errorf("pgstore: migrate: %w", err)
		}
		if _, err := tx.Exec(ctx, `CREATE TABLE IF NOT EXISTS hpcsched_schema_migrations (
			version int PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`); err != nil {
			return fmt.Errorf("pgstore: migrate: %w", err)
		}
		var newest int
		if err := tx.QueryRow(ctx, "SELECT COALESCE(max(version), 0) FROM hpcsched_schema_migrations").Scan(&newest); err != nil {
			return fmt.Errorf("pgstore: migrate: %w", err)
		}
		if newest > len(names) {
			return fmt.Errorf("%w: it has migration %d, this hpcsched ships %d (use the hpcsched that migrated it)", ErrNewerSchema, newest, len(names))
		}
		for _, name := range names {
			base := strings.TrimPrefix(name, "migrations/")
			version, err := strconv.Atoi(strings.SplitN(base, "_", 2)[0])
			if err != nil {
				return fmt.Errorf("pgstore: migration %s: no version number", base)
			}
			if version > last {
				break
			}
			var done bool
			if err := tx.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM hpcsched_schema_migrations WHERE version = $1)", version).Scan(&done); err != nil {
				return fmt.Errorf("pgstore: migrate: %w", err)
			}
			if done {
				continue
			}
			sql, err := migrations.ReadFile(name)
			if err != nil {
				return err
			}
			if _, err := tx.Exec(ctx, string(sql)); err != nil {
				return fmt.Errorf("pgstore: migration %s: %w", base, err)
			}
			if _, err := tx.Exec(ctx, "INSERT INTO hpcsched_schema_migrations (version, name) VALUES ($1, $2)", version, base); err != nil {
				return fmt.Errorf("pgstore: migration %s: %w", base, err)
			}
		}
		return nil
	})
}

// notFound turns pgx.ErrNoRows into allocation.ErrNotFound.
func notFound(err error, what string, id any) error {
	if errors.Is(err, pgx.ErrNoRows) {
		return fmt.Errorf("%w: %s %v", allocation.ErrNotFound, what, id)
	}
	return err
}

func pgCode(err error) string {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return pe.Code
	}
	return ""
}

const (
	uniqueViolation      = "23505"
	exclusionViolation   = "23P01"
	foreignKeyViolation  = "23503"
	restrictViolation    = "23001" // an allocation in use (migration 004's trigger)
	deadlockDetected     = "40P01"
	serializationFailure = "40001"
)

// maxAttempts bounds how often a pre-debit, a completion or a forget is
// tried when PostgreSQL aborts it to break a deadlock or a serialization
// conflict (transient): each is idempotent and its transaction left no
// trace, so it is simply run again, at once, since the other transaction
// has gone on. One such race is known: a repeated pre-debit of a job that
// a completion is updating waits, holding the allocation's balances row,
// for the completion's job row, while the completion waits for the
// balances row.
const maxAttempts = 8

// transient reports whether PostgreSQL aborted err's transaction only to
// break a deadlock or a serialization conflict, asking the client to try
// again.
func transient(err error) bool {
	code := pgCode(err)
	return code == deadlockDetected || code == serializationFailure
}

// jobKey is a job id as the bigint column holds it.
func jobKey(id allocation.JobID) (int64, error) {
	if id > allocation.MaxJobID {
		return 0, &allocation.FieldError{Field: "job_id", Reason: fmt.Sprintf("%d exceeds %d, the largest job id a ledger accepts", id, allocation.MaxJobID)}
	}
	return int64(id), nil
}

func utc(t time.Time) time.Time { return t.UTC() }

// ErrDatabase: the database failed an operation for a reason of its own
// (unreachable, out of space, a bug). Its message names only the
// SQLSTATE, never the server's host, user or the driver's text, so it may
// reach an API caller; the *DatabaseError carrying it keeps the cause for
// the operator's log.
var ErrDatabase = errors.New("pgstore: database error")

// DatabaseError is a failure of the database; Error is safe to show to
// API callers, Cause is for the operator's log.
type DatabaseError struct {
	Code  string // the SQLSTATE, "" when the server was not reached
	Cause error
}

// Error names the SQLSTATE only.
func (e *DatabaseError) Error() string {
	if e.Code == "" {
		return ErrDatabase.Error()
	}
	return ErrDatabase.Error() + " (SQLSTATE " + e.Code + ")"
}

// Is makes a *DatabaseError match ErrDatabase.
func (e *DatabaseError) Is(target error) bool { return target == ErrDatabase }

// clean passes the ledger's own errors and the context's through and
// hides any other behind a *DatabaseError.
func clean(err error) error {
	var fe *allocation.FieldError
	var ie *allocation.InsufficientError
	var oe *allocation.OverlapError
	switch {
	case err == nil, errors.As(err, &fe), errors.As(err, &ie), errors.As(err, &oe),
		errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return err
	}
	for _, sentinel := range []error{allocation.ErrNotFound, allocation.ErrNoAllocation, allocation.ErrConflict,
		allocation.ErrOverflow, allocation.ErrInvalid, allocation.ErrOverlap, allocation.ErrInsufficient} {
		if errors.Is(err, sentinel) {
			return err
		}
	}
	return &DatabaseError{Code: pgCode(err), Cause: err}
}

// cleaned is clean for a method's two results.
func cleaned[T any](v T, err error) (T, error) { return v, clean(err) }
