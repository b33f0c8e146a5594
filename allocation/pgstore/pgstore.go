package pgstore

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/hpcsched/hpcsched/allocation"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
)

//go:embed migrations/*.sql
var migrations embed.FS

// Advisory lock keys (pg_advisory_xact_lock's bigint form): one for schema
// migrations, one serialising every balance change.
const (
	migrateLockKey = 0x68706373_6d696772 // "hpcsmigr"
	ledgerLockKey  = 0x68706373_6c656467 // "hpcsledg"
)

// Store is an allocation.Store on a pgx connection pool. Safe for
// concurrent use.
type Store struct {
	pool *pgxpool.Pool
}

var _ allocation.Store = (*Store)(nil)

// Open connects to dsn (a PostgreSQL URL or key=value string) and applies
// the migrations.
func Open(ctx context.Context, dsn string) (*Store, error) {
	pool, err := pgxpool.New(ctx, dsn)
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

// Close closes the pool.
func (s *Store) Close() { s.pool.Close() }

// Migrations is the number of shipped migrations (the schema version).
func Migrations() int {
	names, _ := fs.Glob(migrations, "migrations/*.sql")
	return len(names)
}

// migrate applies, in name order, each shipped migration not yet
// recorded; all in one transaction under an advisory lock.
func (s *Store) migrate(ctx context.Context) error {
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
		for _, name := range names {
			base := strings.TrimPrefix(name, "migrations/")
			version, err := strconv.Atoi(strings.SplitN(base, "_", 2)[0])
			if err != nil {
				return fmt.Errorf("pgstore: migration %s: no version number", base)
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

// ledgerTx runs f in a transaction holding the ledger's advisory lock;
// f's changes commit when it returns nil.
func (s *Store) ledgerTx(ctx context.Context, f func(pgx.Tx) error) error {
	return pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock($1)", int64(ledgerLockKey)); err != nil {
			return err
		}
		return f(tx)
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
	uniqueViolation     = "23505"
	exclusionViolation  = "23P01"
	foreignKeyViolation = "23503"
)

// jobKey is a job id as the bigint column holds it.
func jobKey(id allocation.JobID) (int64, error) {
	if uint64(id) > math.MaxInt64 {
		return 0, &allocation.FieldError{Field: "job_id", Reason: fmt.Sprintf("%d exceeds the store's range", id)}
	}
	return int64(id), nil
}

func utc(t time.Time) time.Time { return t.UTC() }
