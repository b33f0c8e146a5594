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
// returning the row's id; the caller holds the allocation's balances row
// lock. PostgreSQL's checked bigint arithmetic turns an overflow into
// allocation.ErrOverflow.
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
		_, err = tx.Exec(ctx, "UPDATE balances SET "+col+", balance = balance + $2 WHERE allocation_id = $1", a.Allocation, a.Amount)
	}
	return id, overflow(err)
}

// overflow turns PostgreSQL's numeric_value_out_of_range into
// allocation.ErrOverflow.
func overflow(err error) error {
	if pgCode(err) == numericOutOfRange {
		return fmt.Errorf("%w: a balance total leaves bigint's range", allocation.ErrOverflow)
	}
	return err
}

// Credit is one statement: the balances row is updated (and so locked)
// and the activity row inserted together.
// Credit adds amount (positive) SU to an allocation, recorded as a credit activity with the comment.
func (s *Store) Credit(ctx context.Context, id allocation.AllocationID, amount int64, comment string, now time.Time) (allocation.Activity, error) {
	if err := s.opened(ctx); err != nil {
		return allocation.Activity{}, err
	}
	if amount <= 0 {
		return allocation.Activity{}, &allocation.FieldError{Field: "amount", Reason: fmt.Sprintf("%d is not positive", amount)}
	}
	if err := allocation.CheckText("comment", comment); err != nil {
		return allocation.Activity{}, err
	}
	if err := allocation.CheckTime("now", now); err != nil {
		return allocation.Activity{}, err
	}
	act := allocation.Activity{Allocation: id, Kind: allocation.KindCredit, Amount: amount, Time: now.UTC().Truncate(time.Microsecond), Comment: comment}
	err := s.pool.QueryRow(ctx, `WITH b AS (UPDATE balances SET credits = credits + $2, balance = balance + $2
			WHERE allocation_id = $1 RETURNING allocation_id)
		INSERT INTO activity (allocation_id, kind, amount, at, comment) SELECT allocation_id, 'credit', $2, $3, $4 FROM b
		RETURNING activity_id`, id, amount, act.Time, comment).Scan(&act.ID)
	if errors.Is(err, pgx.ErrNoRows) {
		return allocation.Activity{}, fmt.Errorf("%w: allocation %d", allocation.ErrNotFound, id)
	}
	return act, clean(overflow(err))
}

// PreDebit is one statement (preDebitSQL: one round trip, one
// transaction) when the balance covers the job, else one call of the
// hpcsched_predebit function; either locks the active allocation's
// balances row, so pre-debits of one allocation are serialised and those
// of different allocations run in parallel.
// PreDebit records a job's maximum SU against the allocation active at now, or records a Failure and returns an *InsufficientError; see Store.PreDebit for retries.
func (s *Store) PreDebit(ctx context.Context, r allocation.PreDebitRequest, now time.Time) (allocation.Job, error) {
	if err := s.opened(ctx); err != nil {
		return allocation.Job{}, err
	}
	if err := r.Validate(); err != nil {
		return allocation.Job{}, err
	}
	if err := allocation.CheckTime("now", now); err != nil {
		return allocation.Job{}, err
	}
	key, err := jobKey(r.Job)
	if err != nil {
		return allocation.Job{}, err
	}
	now = now.UTC().Truncate(time.Microsecond) // PostgreSQL keeps microseconds
	var result string
	var alloc, bal *int64
	args := []any{key, int64(r.UID), r.Account, string(r.Resource), r.Amount, r.Rate, r.Comment, now}
	unique := false
	for attempt := 1; attempt <= maxAttempts; attempt++ {
		result = "ok"
		err = s.pool.QueryRow(ctx, preDebitSQL, args...).Scan(&alloc, &bal)
		if errors.Is(err, pgx.ErrNoRows) {
			err = s.pool.QueryRow(ctx, "SELECT result, alloc, bal FROM hpcsched_predebit($1, $2, $3, $4, $5, $6, $7, $8)",
				args...).Scan(&result, &alloc, &bal)
		}
		if pgCode(err) == uniqueViolation && !unique {
			unique = true // a pre-debit of the same job id on another allocation committed first: once more
			continue
		}
		if !transient(err) {
			break
		}
	}
	if err != nil {
		return allocation.Job{}, clean(overflow(err))
	}
	switch result {
	case "exists":
		j, err := jobIn(ctx, s.pool, key)
		if err != nil {
			return allocation.Job{}, clean(err)
		}
		if !allocation.SamePreDebit(j, r) {
			return allocation.Job{}, fmt.Errorf("%w: job %d was pre-debited with other values", allocation.ErrConflict, r.Job)
		}
		return j, nil
	case "noalloc":
		return allocation.Job{}, fmt.Errorf("%w: account %q has no %s allocation at %s", allocation.ErrNoAllocation, r.Account, r.Resource, now.Format(time.RFC3339))
	case "refused":
		return allocation.Job{}, &allocation.InsufficientError{Job: r.Job, Allocation: allocation.AllocationID(*alloc), Amount: r.Amount, Balance: *bal}
	}
	return allocation.Job{ID: r.Job, Allocation: allocation.AllocationID(*alloc), UID: r.UID, Amount: r.Amount, Rate: r.Rate,
		Status: allocation.Executing, Started: now}, nil
}

// Complete is one statement (completeSQL: one round trip, one
// transaction) for an executing job, else one call of hpcsched_complete;
// either locks the job's row and then its allocation's balances row.
// Complete resolves a job's pre-debit into its actual debit (see ActualDebit); a repeated completion returns the recorded job, a different one ErrConflict.
func (s *Store) Complete(ctx context.Context, c allocation.Completion, now time.Time) (allocation.Job, error) {
	if err := s.opened(ctx); err != nil {
		return allocation.Job{}, err
	}
	key, err := jobKey(c.Job)
	if err != nil {
		return allocation.Job{}, err
	}
	// ActualDebit's checks of the completion itself, on a job that has a rate.
	if _, err := allocation.ActualDebit(allocation.Job{Rate: 1}, c); err != nil {
		return allocation.Job{}, err
	}
	if err := allocation.CheckTime("now", now); err != nil {
		return allocation.Job{}, err
	}
	now = now.UTC().Truncate(time.Microsecond) // PostgreSQL keeps microseconds
	var j allocation.Job
	var result string
	for attempt := 1; attempt <= maxAttempts; attempt++ {
		j, result, err = s.completeOnce(ctx, key, c, now)
		if !transient(err) {
			break
		}
	}
	switch {
	case result == "gone":
		return allocation.Job{}, fmt.Errorf("%w: job %d has no pre-debit", allocation.ErrNotFound, c.Job)
	case result == "norate":
		return allocation.Job{}, &allocation.FieldError{Field: "amount", Reason: fmt.Sprintf("required, job %d was pre-debited without a rate", c.Job)}
	case err != nil:
		return allocation.Job{}, clean(overflow(err))
	case result == "completed" && !allocation.SameCompletion(j, c):
		return allocation.Job{}, fmt.Errorf("%w: job %d was completed with other values", allocation.ErrConflict, c.Job)
	}
	return j, nil
}

// completeOnce is one try of Complete: the usual statement, and the
// function when that returns no row (result is then the function's
// answer; "ok" from the statement).
func (s *Store) completeOnce(ctx context.Context, key int64, c allocation.Completion, now time.Time) (allocation.Job, string, error) {
	rows, _ := s.pool.Query(ctx, completeSQL, key, int64(c.Elapsed), string(c.Outcome), c.Amount, now)
	j, err := pgx.CollectExactlyOneRow(rows, scanJob)
	if !errors.Is(err, pgx.ErrNoRows) {
		return j, "ok", err
	}
	result := ""
	rows, _ = s.pool.Query(ctx, "SELECT $1::bigint, COALESCE(o_allocation, 0), COALESCE(o_uid, 0), COALESCE(o_amount, 0), COALESCE(o_rate, 0),"+
		" COALESCE(o_status, ''), COALESCE(o_started, 'epoch'), o_ended, COALESCE(o_elapsed, 0), COALESCE(o_outcome, ''), COALESCE(o_debited, 0), result"+
		" FROM hpcsched_complete($1, $2, $3, $4, $5)", key, int64(c.Elapsed), string(c.Outcome), c.Amount, now)
	j, err = pgx.CollectExactlyOneRow(rows, func(row pgx.CollectableRow) (allocation.Job, error) {
		return scanJobAnd(row, &result)
	})
	return j, result, err
}

// Forget drops a job's record: an executing pre-debit is returned in full, a completed job keeps its debit. Unknown jobs are ignored.
func (s *Store) Forget(ctx context.Context, id allocation.JobID, now time.Time) error {
	if err := s.opened(ctx); err != nil {
		return err
	}
	key, err := jobKey(id)
	if err != nil {
		return err
	}
	if err := allocation.CheckTime("now", now); err != nil {
		return err
	}
	for attempt := 1; ; attempt++ {
		err = s.forgetOnce(ctx, key, now)
		if attempt == maxAttempts || !transient(err) {
			return clean(err)
		}
	}
}

// forgetOnce is one try of Forget, in one transaction.
func (s *Store) forgetOnce(ctx context.Context, key int64, now time.Time) error {
	return pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		rows, _ := tx.Query(ctx, "SELECT "+jobCols+" FROM jobs WHERE job_id = $1 FOR UPDATE", key)
		j, err := pgx.CollectExactlyOneRow(rows, scanJob)
		if errors.Is(err, pgx.ErrNoRows) {
			return nil
		}
		if err != nil {
			return err
		}
		if j.Status == allocation.Completed {
			// Debits sums the completed jobs; the dropped one's debit stays.
			_, err := tx.Exec(ctx, `INSERT INTO debits AS d (allocation_id, uid, amount, jobs) VALUES ($1, $2, $3, 1)
				ON CONFLICT (allocation_id, uid) DO UPDATE SET amount = d.amount + EXCLUDED.amount, jobs = d.jobs + 1`,
				j.Allocation, int64(j.UID), j.Debited)
			if err != nil {
				return overflow(err)
			}
		}
		if j.Status == allocation.Executing {
			if _, err := tx.Exec(ctx, "SELECT 1 FROM balances WHERE allocation_id = $1 FOR UPDATE", j.Allocation); err != nil {
				return err
			}
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

func scanJob(row pgx.CollectableRow) (allocation.Job, error) { return scanJobAnd(row) }

// scanJobAnd scans jobCols and then extra.
func scanJobAnd(row pgx.CollectableRow, extra ...any) (allocation.Job, error) {
	var j allocation.Job
	var id, uid, elapsed int64
	var ended *time.Time
	err := row.Scan(append([]any{&id, &j.Allocation, &uid, &j.Amount, &j.Rate, &j.Status, &j.Started, &ended, &elapsed, &j.Outcome, &j.Debited}, extra...)...)
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

// Job is the job's pre-debit record (ErrNotFound when none).
func (s *Store) Job(ctx context.Context, id allocation.JobID) (allocation.Job, error) {
	if err := s.opened(ctx); err != nil {
		return allocation.Job{}, err
	}
	key, err := jobKey(id)
	if err != nil {
		return allocation.Job{}, err
	}
	return cleaned(jobIn(ctx, s.pool, key))
}

// Jobs lists the jobs pre-debited against an allocation, by job ID; the slice is the caller's.
func (s *Store) Jobs(ctx context.Context, id allocation.AllocationID) ([]allocation.Job, error) {
	if err := s.opened(ctx); err != nil {
		return nil, err
	}
	rows, _ := s.pool.Query(ctx, "SELECT "+jobCols+" FROM jobs WHERE allocation_id = $1 ORDER BY job_id", id)
	return cleaned(pgx.CollectRows(rows, scanJob))
}

// Failures lists every refusal, by job and attempt; the slice is the caller's.
func (s *Store) Failures(ctx context.Context) ([]allocation.Failure, error) {
	if err := s.opened(ctx); err != nil {
		return nil, err
	}
	rows, _ := s.pool.Query(ctx, "SELECT job_id, attempt, allocation_id, uid, amount, balance, at FROM failures ORDER BY job_id, attempt")
	return cleaned(pgx.CollectRows(rows, func(row pgx.CollectableRow) (allocation.Failure, error) {
		var f allocation.Failure
		var id, uid int64
		err := row.Scan(&id, &f.Attempt, &f.Allocation, &uid, &f.Amount, &f.Balance, &f.Time)
		f.Job, f.UID, f.Time = allocation.JobID(id), uint32(uid), f.Time.UTC()
		return f, err
	}))
}

const balanceSelect = `SELECT a.allocation_id, COALESCE(b.credits, 0), COALESCE(b.debited, 0), COALESCE(b.pending, 0), COALESCE(b.balance, 0)
	FROM allocations a LEFT JOIN balances b USING (allocation_id)`

func scanBalance(row pgx.CollectableRow) (allocation.Balance, error) {
	var b allocation.Balance
	err := row.Scan(&b.Allocation, &b.Credits, &b.Debited, &b.Pending, &b.Balance)
	return b, err
}

// Balance is an allocation's standing (ErrNotFound for an unknown allocation).
func (s *Store) Balance(ctx context.Context, id allocation.AllocationID) (allocation.Balance, error) {
	if err := s.opened(ctx); err != nil {
		return allocation.Balance{}, err
	}
	rows, _ := s.pool.Query(ctx, balanceSelect+" WHERE a.allocation_id = $1", id)
	b, err := pgx.CollectExactlyOneRow(rows, scanBalance)
	return b, clean(notFound(err, "allocation", id))
}

// Balances lists every allocation's balance, zero ones included, by allocation ID.
func (s *Store) Balances(ctx context.Context) ([]allocation.Balance, error) {
	if err := s.opened(ctx); err != nil {
		return nil, err
	}
	rows, _ := s.pool.Query(ctx, balanceSelect+" ORDER BY a.allocation_id")
	return cleaned(pgx.CollectRows(rows, scanBalance))
}

// historySQL lists an allocation's activity by id, a completion's row
// (its release, and its debit when debit_id is set) as two entries.
const historySQL = `SELECT h.id, a.allocation_id, h.kind, h.amount, a.job_id, a.uid, a.at, h.comment
	FROM activity a, LATERAL (VALUES (a.activity_id, a.kind, a.amount, a.comment), (a.debit_id, 'debit', a.debit, '')) h(id, kind, amount, comment)
	WHERE a.allocation_id = $1 AND h.id IS NOT NULL ORDER BY h.id`

// History is the allocation's activity in order; the slice is the caller's.
func (s *Store) History(ctx context.Context, id allocation.AllocationID) ([]allocation.Activity, error) {
	if err := s.opened(ctx); err != nil {
		return nil, err
	}
	rows, _ := s.pool.Query(ctx, historySQL, id)
	return cleaned(pgx.CollectRows(rows, func(row pgx.CollectableRow) (allocation.Activity, error) {
		var a allocation.Activity
		var job, uid int64
		err := row.Scan(&a.ID, &a.Allocation, &a.Kind, &a.Amount, &job, &uid, &a.Time, &a.Comment)
		a.Job, a.UID, a.Time = allocation.JobID(job), uint32(uid), a.Time.UTC()
		return a, err
	}))
}

// debitsSQL sums an allocation's debits per owner: its completed jobs
// and, in the debits table, those of completed jobs whose records were
// dropped. It reads every completed job of the allocation (through
// jobs_by_allocation), which keeps the completion from writing a row per
// owner.
const debitsSQL = `SELECT $1::bigint, uid, sum(amount)::bigint, sum(jobs)::bigint FROM (
		SELECT uid, debited AS amount, 1 AS jobs FROM jobs WHERE allocation_id = $1 AND status = 'completed'
		UNION ALL SELECT uid, amount, jobs FROM debits WHERE allocation_id = $1
	) d GROUP BY uid ORDER BY uid`

// Debits is the SU debited to the allocation per owner uid, by uid.
func (s *Store) Debits(ctx context.Context, id allocation.AllocationID) ([]allocation.OwnerDebit, error) {
	if err := s.opened(ctx); err != nil {
		return nil, err
	}
	rows, _ := s.pool.Query(ctx, debitsSQL, id)
	ds, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (allocation.OwnerDebit, error) {
		var d allocation.OwnerDebit
		var uid int64
		err := row.Scan(&d.Allocation, &uid, &d.Amount, &d.Jobs)
		d.UID = uint32(uid)
		return d, err
	})
	return ds, clean(overflow(err)) // a total beyond bigint
}
