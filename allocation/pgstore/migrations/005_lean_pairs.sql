-- Fewer rows per job: a completion writes one activity row (its release
-- and its debit), the per-owner debits are summed from the jobs when read,
-- and the rows that are updated leave room on their page for the new
-- version (a HOT update writes no index entry).
--
-- A completion's row is kind 'release' with the pre-debit's amount; when
-- the job was billed, debit is the (negative) debit and debit_id the id
-- the debit has in the history, drawn from the same sequence right after
-- the release's (both drawn in one select list, left to right, under the
-- balances row lock: no other entry of the allocation falls between). History shows the two as two entries, as before; older
-- databases' separate debit rows read as they always did.
ALTER TABLE activity ADD COLUMN debit_id bigint, ADD COLUMN debit bigint;

-- debits now holds only the debits of jobs whose records were dropped
-- (Forget); the owners' totals are these plus the completed jobs still
-- recorded. What the rows held for those jobs is taken out of them.
UPDATE debits d SET amount = d.amount - s.amount, jobs = d.jobs - s.n
FROM (SELECT allocation_id, uid, sum(debited)::bigint AS amount, count(*) AS n FROM jobs
      WHERE status = 'completed' GROUP BY allocation_id, uid) s
WHERE d.allocation_id = s.allocation_id AND d.uid = s.uid;
DELETE FROM debits WHERE amount = 0 AND jobs = 0;
COMMENT ON TABLE debits IS 'debits of completed jobs whose records were dropped, per owner';

-- A job's row is updated once, long after it was written (its page is
-- full by then): room for the new version keeps that update on the page.
-- A balances row is updated by every change of its allocation.
ALTER TABLE jobs SET (fillfactor = 70);
ALTER TABLE balances SET (fillfactor = 50);

-- The completion's other cases as before, writing the one activity row.
CREATE OR REPLACE FUNCTION hpcsched_complete(p_job bigint, p_elapsed bigint, p_outcome text, p_amount bigint, p_now timestamptz,
    OUT result text, OUT o_allocation bigint, OUT o_uid bigint, OUT o_amount bigint, OUT o_rate bigint,
    OUT o_status text, OUT o_started timestamptz, OUT o_ended timestamptz, OUT o_elapsed bigint,
    OUT o_outcome text, OUT o_debited bigint) LANGUAGE plpgsql AS $$
DECLARE
    j jobs%ROWTYPE;
BEGIN
    WITH u AS (
        UPDATE jobs SET status = 'completed', ended = p_now, elapsed_ns = p_elapsed, outcome = p_outcome,
            debited = CASE WHEN p_outcome = 'node_fail' THEN 0
                WHEN p_amount IS NOT NULL THEN least(p_amount, amount)
                ELSE least(ceil(rate::numeric * ceil(p_elapsed::numeric / 1000000000) / 60000000), amount) END
        WHERE job_id = p_job AND status = 'executing' AND (p_outcome = 'node_fail' OR p_amount IS NOT NULL OR rate > 0)
        RETURNING *
    ), b AS (
        UPDATE balances b SET pending = b.pending - u.amount, debited = b.debited + u.debited,
            balance = b.balance + u.amount - u.debited
        FROM u WHERE b.allocation_id = u.allocation_id
        RETURNING b.allocation_id
    ), act AS (
        INSERT INTO activity (activity_id, debit_id, allocation_id, kind, amount, job_id, uid, at, comment, debit)
        SELECT nextval('activity_activity_id_seq'), CASE WHEN u.debited <> 0 THEN nextval('activity_activity_id_seq') END,
            b.allocation_id, 'release', u.amount, p_job, u.uid, p_now, '', nullif(-u.debited, 0)
        FROM b, u
    )
    SELECT u.* INTO j FROM u;
    IF FOUND THEN
        result := 'ok';
    ELSE
        SELECT * INTO j FROM jobs WHERE job_id = p_job;
        IF NOT FOUND THEN result := 'gone'; RETURN; END IF;
        IF j.status = 'completed' THEN
            result := 'completed';
        ELSIF p_outcome = 'node_fail' OR p_amount IS NOT NULL OR j.rate > 0 THEN
            result := 'gone'; RETURN; -- its pre-debit committed after the first statement looked
        ELSE
            result := 'norate'; RETURN;
        END IF;
    END IF;
    o_allocation := j.allocation_id; o_uid := j.uid; o_amount := j.amount; o_rate := j.rate; o_status := j.status;
    o_started := j.started; o_ended := j.ended; o_elapsed := j.elapsed_ns; o_outcome := j.outcome; o_debited := j.debited;
END $$;
