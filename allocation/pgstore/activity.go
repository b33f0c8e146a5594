package pgstore

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/hpcsched/hpcsched/allocation"
	"github.com/jackc/pgx/v5"
)

const numericOutOfRange = "22003"

// apply records an activity row and moves the balance totals with it,
// returning the row's id; the caller holds the ledger lock. PostgreSQL's
// checked bigint arithmetic turns an overflow into allocation.ErrOverflow.
func apply(ctx context.Context, tx pgx.Tx, a allocation.Activity) (allocation.ActivityID, error) {
	var col string
	switch a.Kind {
	case allocation.KindCredit:
		col = "credits = credits + $2"
	case allocation.KindPreDebit, allocation.KindRelease:
		col = "pending = pending - $2"
	case allocation.KindDebit:
		col = "debited = debited - $2"
	default:
		return 0, fmt.Errorf("pgstore: activity kind %q", a.Kind)
	}
	var id allocation.ActivityID
	err := tx.QueryRow(ctx, `INSERT INTO activity (allocation_id, kind, amount, job_id, uid, at, comment)
		VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING activity_id`, a.Allocation, string(a.Kind), a.Amount, int64(a.Job), int64(a.UID), a.Time, a.Comment).Scan(&id)
	if err == nil {
		_, err = tx.Exec(ctx, "INSERT INTO balances (allocation_id) VALUES ($1) ON CONFLICT DO NOTHING", a.Allocation)
	}
	if err == nil {
		_, err = tx.Exec(ctx, "UPDATE balances SET "+col+", balance = balance + $2 WHERE allocation_id = $1", a.Allocation, a.Amount)
	}
	if pgCode(err) == numericOutOfRange {
		return 0, fmt.Errorf("%w: %v", allocation.ErrOverflow, err)
	}
	return id, err
}

func (s *Store) Credit(ctx context.Context, id allocation.AllocationID, amount int64, comment string, now time.Time) (allocation.Activity, error) {
	if amount <= 0 {
		return allocation.Activity{}, &allocation.FieldError{Field: "amount", Reason: fmt.Sprintf("%d is not positive", amount)}
	}
	act := allocation.Activity{Allocation: id, Kind: allocation.KindCredit, Amount: amount, Time: now.UTC(), Comment: comment}
	err := s.ledgerTx(ctx, func(tx pgx.Tx) error {
		var err error
		act.ID, err = apply(ctx, tx, act)
		if pgCode(err) == foreignKeyViolation {
			return fmt.Errorf("%w: allocation %d", allocation.ErrNotFound, id)
		}
		return err
	})
	return act, err
}

func (s *Store) PreDebit(ctx context.Context, r allocation.PreDebitRequest, now time.Time) (allocation.Job, error) {
	if err := r.Validate(); err != nil {
		return allocation.Job{}, err
	}
	key, err := jobKey(r.Job)
	if err != nil {
		return allocation.Job{}, err
	}
	now = now.UTC().Truncate(time.Microsecond) // PostgreSQL keeps microseconds
	var job allocation.Job
	var refused error // committed with the failure row, then returned
	err = s.ledgerTx(ctx, func(tx pgx.Tx) error {
		j, err := jobIn(ctx, tx, key)
		switch {
		case err == nil:
			if !allocation.SamePreDebit(j, r) {
				return fmt.Errorf("%w: job %d was pre-debited with other values", allocation.ErrConflict, r.Job)
			}
			job = j
			return nil
		case !errors.Is(err, allocation.ErrNotFound):
			return err
		}
		var f allocation.Failure
		err = tx.QueryRow(ctx, "SELECT allocation_id, amount, balance FROM failures WHERE job_id = $1", key).Scan(&f.Allocation, &f.Amount, &f.Balance)
		if err == nil {
			refused = &allocation.InsufficientError{Job: r.Job, Allocation: f.Allocation, Amount: f.Amount, Balance: f.Balance}
			return nil
		}
		if !errors.Is(err, pgx.ErrNoRows) {
			return err
		}
		a, err := activeAllocation(ctx, tx, r.Account, r.Resource, now)
		if err != nil {
			return err
		}
		var balance int64
		if err := tx.QueryRow(ctx, "SELECT COALESCE((SELECT balance FROM balances WHERE allocation_id = $1), 0)", a.ID).Scan(&balance); err != nil {
			return err
		}
		if r.Amount > balance {
			_, err := tx.Exec(ctx, "INSERT INTO failures (job_id, allocation_id, uid, amount, balance, at) VALUES ($1, $2, $3, $4, $5, $6)",
				key, a.ID, int64(r.UID), r.Amount, balance, now)
			refused = &allocation.InsufficientError{Job: r.Job, Allocation: a.ID, Amount: r.Amount, Balance: balance}
			return err
		}
		if _, err := apply(ctx, tx, allocation.Activity{Allocation: a.ID, Kind: allocation.KindPreDebit, Amount: -r.Amount,
			Job: r.Job, UID: r.UID, Time: now, Comment: r.Comment}); err != nil {
			return err
		}
		job = allocation.Job{ID: r.Job, Allocation: a.ID, UID: r.UID, Amount: r.Amount, Rate: r.Rate, Status: allocation.Executing, Started: now}
		_, err = tx.Exec(ctx, "INSERT INTO jobs (job_id, allocation_id, uid, amount, rate, status, started) VALUES ($1, $2, $3, $4, $5, $6, $7)",
			key, a.ID, int64(r.UID), r.Amount, r.Rate, string(allocation.Executing), now)
		return err
	})
	if err != nil {
		return allocation.Job{}, err
	}
	return job, refused
}

func (s *Store) Complete(ctx context.Context, c allocation.Completion, now time.Time) (allocation.Job, error) {
	key, err := jobKey(c.Job)
	if err != nil {
		return allocation.Job{}, err
	}
	now = now.UTC().Truncate(time.Microsecond) // PostgreSQL keeps microseconds
	var job allocation.Job
	err = s.ledgerTx(ctx, func(tx pgx.Tx) error {
		j, err := jobIn(ctx, tx, key)
		if err != nil {
			return err
		}
		if j.Status == allocation.Completed {
			if !allocation.SameCompletion(j, c) {
				return fmt.Errorf("%w: job %d was completed with other values", allocation.ErrConflict, c.Job)
			}
			job = j
			return nil
		}
		actual, err := allocation.ActualDebit(j, c)
		if err != nil {
			return err
		}
		if _, err := apply(ctx, tx, allocation.Activity{Allocation: j.Allocation, Kind: allocation.KindRelease, Amount: j.Amount, Job: j.ID, UID: j.UID, Time: now}); err != nil {
			return err
		}
		if actual > 0 {
			if _, err := apply(ctx, tx, allocation.Activity{Allocation: j.Allocation, Kind: allocation.KindDebit, Amount: -actual, Job: j.ID, UID: j.UID, Time: now}); err != nil {
				return err
			}
		}
		if _, err := tx.Exec(ctx, `INSERT INTO debits AS d (allocation_id, uid, amount, jobs) VALUES ($1, $2, $3, 1)
			ON CONFLICT (allocation_id, uid) DO UPDATE SET amount = d.amount + $3, jobs = d.jobs + 1`, j.Allocation, int64(j.UID), actual); err != nil {
			return err
		}
		j.Status, j.Ended, j.Elapsed, j.Outcome, j.Debited = allocation.Completed, now, c.Elapsed, c.Outcome, actual
		job = j
		_, err = tx.Exec(ctx, "UPDATE jobs SET status = $2, ended = $3, elapsed_ns = $4, outcome = $5, debited = $6 WHERE job_id = $1",
			key, string(j.Status), now, int64(c.Elapsed), string(c.Outcome), actual)
		return err
	})
	return job, err
}

func (s *Store) Forget(ctx context.Context, id allocation.JobID, now time.Time) error {
	key, err := jobKey(id)
	if err != nil {
		return err
	}
	return s.ledgerTx(ctx, func(tx pgx.Tx) error {
		j, err := jobIn(ctx, tx, key)
		if errors.Is(err, allocation.ErrNotFound) {
			return nil
		}
		if err != nil {
			return err
		}
		if j.Status == allocation.Executing {
			if _, err := apply(ctx, tx, allocation.Activity{Allocation: j.Allocation, Kind: allocation.KindRelease, Amount: j.Amount,
				Job: j.ID, UID: j.UID, Time: now.UTC(), Comment: "not started"}); err != nil {
				return err
			}
		}
		_, err = tx.Exec(ctx, "DELETE FROM jobs WHERE job_id = $1", key)
		return err
	})
}

const jobCols = "job_id, allocation_id, uid, amount, rate, status, started, ended, elapsed_ns, outcome, debited"

func scanJob(row pgx.CollectableRow) (allocation.Job, error) {
	var j allocation.Job
	var id, uid, elapsed int64
	var ended *time.Time
	err := row.Scan(&id, &j.Allocation, &uid, &j.Amount, &j.Rate, &j.Status, &j.Started, &ended, &elapsed, &j.Outcome, &j.Debited)
	j.ID, j.UID, j.Elapsed, j.Started = allocation.JobID(id), uint32(uid), time.Duration(elapsed), utc(j.Started)
	if ended != nil {
		j.Ended = ended.UTC()
	}
	return j, err
}

func jobIn(ctx context.Context, q querier, key int64) (allocation.Job, error) {
	rows, _ := q.Query(ctx, "SELECT "+jobCols+" FROM jobs WHERE job_id = $1", key)
	j, err := pgx.CollectExactlyOneRow(rows, scanJob)
	return j, notFound(err, "job", key)
}

func (s *Store) Job(ctx context.Context, id allocation.JobID) (allocation.Job, error) {
	key, err := jobKey(id)
	if err != nil {
		return allocation.Job{}, err
	}
	return jobIn(ctx, s.pool, key)
}

func (s *Store) Jobs(ctx context.Context, id allocation.AllocationID) ([]allocation.Job, error) {
	rows, _ := s.pool.Query(ctx, "SELECT "+jobCols+" FROM jobs WHERE allocation_id = $1 ORDER BY job_id", id)
	return pgx.CollectRows(rows, scanJob)
}

func (s *Store) Failures(ctx context.Context) ([]allocation.Failure, error) {
	rows, _ := s.pool.Query(ctx, "SELECT job_id, allocation_id, uid, amount, balance, at FROM failures ORDER BY job_id")
	return pgx.CollectRows(rows, func(row pgx.CollectableRow) (allocation.Failure, error) {
		var f allocation.Failure
		var id, uid int64
		err := row.Scan(&id, &f.Allocation, &uid, &f.Amount, &f.Balance, &f.Time)
		f.Job, f.UID, f.Time = allocation.JobID(id), uint32(uid), f.Time.UTC()
		return f, err
	})
}

const balanceSelect = `SELECT a.allocation_id, COALESCE(b.credits, 0), COALESCE(b.debited, 0), COALESCE(b.pending, 0), COALESCE(b.balance, 0)
	FROM allocations a LEFT JOIN balances b USING (allocation_id)`

func scanBalance(row pgx.CollectableRow) (allocation.Balance, error) {
	var b allocation.Balance
	err := row.Scan(&b.Allocation, &b.Credits, &b.Debited, &b.Pending, &b.Balance)
	return b, err
}

func (s *Store) Balance(ctx context.Context, id allocation.AllocationID) (allocation.Balance, error) {
	rows, _ := s.pool.Query(ctx, balanceSelect+" WHERE a.allocation_id = $1", id)
	b, err := pgx.CollectExactlyOneRow(rows, scanBalance)
	return b, notFound(err, "allocation", id)
}

func (s *Store) Balances(ctx context.Context) ([]allocation.Balance, error) {
	rows, _ := s.pool.Query(ctx, balanceSelect+" ORDER BY a.allocation_id")
	return pgx.CollectRows(rows, scanBalance)
}

func (s *Store) History(ctx context.Context, id allocation.AllocationID) ([]allocation.Activity, error) {
	rows, _ := s.pool.Query(ctx, `SELECT activity_id, allocation_id, kind, amount, job_id, uid, at, comment
		FROM activity WHERE allocation_id = $1 ORDER BY activity_id`, id)
	return pgx.CollectRows(rows, func(row pgx.CollectableRow) (allocation.Activity, error) {
		var a allocation.Activity
		var job, uid int64
		err := row.Scan(&a.ID, &a.Allocation, &a.Kind, &a.Amount, &job, &uid, &a.Time, &a.Comment)
		a.Job, a.UID, a.Time = allocation.JobID(job), uint32(uid), a.Time.UTC()
		return a, err
	})
}

func (s *Store) Debits(ctx context.Context, id allocation.AllocationID) ([]allocation.OwnerDebit, error) {
	rows, _ := s.pool.Query(ctx, "SELECT allocation_id, uid, amount, jobs FROM debits WHERE allocation_id = $1 ORDER BY uid", id)
	return pgx.CollectRows(rows, func(row pgx.CollectableRow) (allocation.OwnerDebit, error) {
		var d allocation.OwnerDebit
		var uid int64
		err := row.Scan(&d.Allocation, &uid, &d.Amount, &d.Jobs)
		d.UID = uint32(uid)
		return d, err
	})
}
