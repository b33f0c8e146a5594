package pgstore

// The usual case of a pre-debit and of a completion, each one statement
// the pool prepares once per connection: the same statements open the
// hpcsched_predebit and hpcsched_complete functions (migration 004), which
// the store calls only when these return no row (no allocation, a retry, a
// refusal, an unknown or completed job), so the usual case costs one round
// trip and no PL/pgSQL call.
//
// Each takes its locks in the order the functions do: a pre-debit the
// allocation's balances row; a completion the job's row, then the balances
// row (the activity row is made from the balances update's row, so it is
// written under its lock). A completion writes one activity row carrying
// its release and its debit (migration 005), which History shows as two.

// preDebitSQL takes $5 SU from the balance of the allocation the account
// ($3) has for resource $4 at $8 when the balance covers it and job $1 has
// no record; it returns the allocation and the balance before, or no row.
const preDebitSQL = `WITH a AS (
	SELECT a.allocation_id FROM allocations a JOIN projects p USING (project_id)
	WHERE p.account = $3::text AND a.resource = $4::text AND a.start_date <= $8::timestamptz AND $8::timestamptz < a.end_date
), b AS (
	UPDATE balances b SET pending = b.pending + $5::bigint, balance = b.balance - $5::bigint
	FROM a WHERE b.allocation_id = a.allocation_id AND b.balance >= $5::bigint
		AND NOT EXISTS (SELECT 1 FROM jobs WHERE job_id = $1::bigint)
	RETURNING b.allocation_id, b.balance + $5::bigint AS was
), act AS (
	INSERT INTO activity (allocation_id, kind, amount, job_id, uid, at, comment)
	SELECT b.allocation_id, 'predebit', -$5::bigint, $1::bigint, $2::bigint, $8::timestamptz, $7::text FROM b
), j AS (
	INSERT INTO jobs (job_id, allocation_id, uid, amount, rate, status, started)
	SELECT $1::bigint, b.allocation_id, $2::bigint, $5::bigint, $6::bigint, 'executing', $8::timestamptz FROM b
)
SELECT b.allocation_id, b.was FROM b`

// completeSQL completes executing job $1 (elapsed $2 ns, outcome $3, SU
// $4 or NULL for the rate's, at $5) when its actual debit can be computed,
// as allocation.ActualDebit does, and returns the job as jobCols; no row
// otherwise. The release's id is drawn before the debit's: the select
// list is evaluated left to right.
const completeSQL = `WITH u AS (
	UPDATE jobs SET status = 'completed', ended = $5::timestamptz, elapsed_ns = $2::bigint, outcome = $3::text,
		debited = CASE WHEN $3::text = 'node_fail' THEN 0
			WHEN $4::bigint IS NOT NULL THEN least($4::bigint, amount)
			ELSE least(ceil(rate::numeric * ceil($2::bigint::numeric / 1000000000) / 60000000), amount) END
	WHERE job_id = $1::bigint AND status = 'executing' AND ($3::text = 'node_fail' OR $4::bigint IS NOT NULL OR rate > 0)
	RETURNING *
), b AS (
	UPDATE balances b SET pending = b.pending - u.amount, debited = b.debited + u.debited,
		balance = b.balance + u.amount - u.debited
	FROM u WHERE b.allocation_id = u.allocation_id
	RETURNING b.allocation_id
), act AS (
	INSERT INTO activity (activity_id, debit_id, allocation_id, kind, amount, job_id, uid, at, comment, debit)
	SELECT nextval('activity_activity_id_seq'), CASE WHEN u.debited <> 0 THEN nextval('activity_activity_id_seq') END,
		b.allocation_id, 'release', u.amount, $1::bigint, u.uid, $5::timestamptz, '', nullif(-u.debited, 0)
	FROM b, u
)
SELECT ` + jobCols + ` FROM u`
