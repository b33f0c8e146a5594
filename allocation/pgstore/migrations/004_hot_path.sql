-- Pre-debit and completion as one statement each (data-modifying CTEs),
-- no foreign-key triggers on the two tables every job writes, and one
-- index on activity.
--
-- A foreign key check is a trigger firing a query that locks the
-- referenced allocations row (FOR KEY SHARE, a WAL-logged tuple lock) once
-- per activity or jobs row: four per pre-debit+completion pair. Every
-- writer of activity and jobs already holds the allocation's balances row
-- lock, so the database keeps the rule the keys kept by a trigger on
-- allocations instead: an allocation with activity or jobs cannot be
-- deleted, nor moved to another project or resource.
ALTER TABLE activity DROP CONSTRAINT activity_allocation_id_fkey;
ALTER TABLE jobs DROP CONSTRAINT jobs_allocation_id_fkey;

-- One index on activity, not two: rows are read by allocation in id order
-- (History), never by id alone, and the ids come from a sequence. Three
-- activity rows a pair meant six index insertions, half of them on the
-- last page of the id index, which every writer shared.
ALTER TABLE activity DROP CONSTRAINT activity_pkey;
DROP INDEX activity_by_allocation;
ALTER TABLE activity ADD PRIMARY KEY (allocation_id, activity_id);

-- Taking the balances row lock waits for the pre-debits, completions and
-- credits of the allocation in flight (each holds it until it commits), so
-- the check below sees their rows; those that come later wait for this
-- transaction and then find the allocation gone. The error is
-- restrict_violation.
CREATE FUNCTION hpcsched_allocation_in_use() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'UPDATE' AND NEW.project_id = OLD.project_id AND NEW.resource = OLD.resource
            AND NEW.allocation_id = OLD.allocation_id THEN
        RETURN NEW;
    END IF;
    PERFORM 1 FROM balances WHERE allocation_id = OLD.allocation_id FOR UPDATE;
    IF EXISTS (SELECT 1 FROM activity WHERE allocation_id = OLD.allocation_id)
            OR EXISTS (SELECT 1 FROM jobs WHERE allocation_id = OLD.allocation_id) THEN
        RAISE restrict_violation USING MESSAGE = format('allocation %s has activity', OLD.allocation_id);
    END IF;
    RETURN CASE WHEN TG_OP = 'DELETE' THEN OLD ELSE NEW END;
END $$;
CREATE TRIGGER allocations_in_use BEFORE UPDATE OR DELETE ON allocations
    FOR EACH ROW EXECUTE FUNCTION hpcsched_allocation_in_use();

-- The pre-debit's usual case is the first statement: find the active
-- allocation, take the balance (locking its row) when it covers the
-- amount and the job has no record, and record the activity and the job.
-- The activity and job rows are made from the balances update's row, so
-- they are written after the lock is held. Anything else (no allocation,
-- a retry, a refusal) is decided as before under the same lock.
CREATE OR REPLACE FUNCTION hpcsched_predebit(p_job bigint, p_uid bigint, p_account text, p_resource text,
    p_amount bigint, p_rate bigint, p_comment text, p_now timestamptz,
    OUT result text, OUT alloc bigint, OUT bal bigint) LANGUAGE plpgsql AS $$
DECLARE
    last failures%ROWTYPE;
BEGIN
    WITH a AS (
        SELECT a.allocation_id FROM allocations a JOIN projects p USING (project_id)
        WHERE p.account = p_account AND a.resource = p_resource AND a.start_date <= p_now AND p_now < a.end_date
    ), b AS (
        UPDATE balances b SET pending = b.pending + p_amount, balance = b.balance - p_amount
        FROM a WHERE b.allocation_id = a.allocation_id AND b.balance >= p_amount
            AND NOT EXISTS (SELECT 1 FROM jobs WHERE job_id = p_job)
        RETURNING b.allocation_id, b.balance + p_amount AS was
    ), act AS (
        INSERT INTO activity (allocation_id, kind, amount, job_id, uid, at, comment)
        SELECT b.allocation_id, 'predebit', -p_amount, p_job, p_uid, p_now, p_comment FROM b
    ), j AS (
        INSERT INTO jobs (job_id, allocation_id, uid, amount, rate, status, started)
        SELECT p_job, b.allocation_id, p_uid, p_amount, p_rate, 'executing', p_now FROM b
    )
    SELECT b.allocation_id, b.was INTO alloc, bal FROM b;
    IF FOUND THEN
        result := 'ok';
        RETURN;
    END IF;
    SELECT a.allocation_id INTO alloc FROM allocations a JOIN projects p USING (project_id)
        WHERE p.account = p_account AND a.resource = p_resource AND a.start_date <= p_now AND p_now < a.end_date;
    IF NOT FOUND THEN
        PERFORM 1 FROM jobs WHERE job_id = p_job;
        result := CASE WHEN FOUND THEN 'exists' ELSE 'noalloc' END;
        RETURN;
    END IF;
    SELECT b.balance INTO bal FROM balances b WHERE b.allocation_id = alloc FOR UPDATE;
    PERFORM 1 FROM jobs WHERE job_id = p_job; -- a pre-debit of this job committed while this one waited
    IF FOUND THEN result := 'exists'; RETURN; END IF;
    IF bal >= p_amount THEN
        -- a credit committed between the first statement's snapshot and the lock
        UPDATE balances SET pending = pending + p_amount, balance = balance - p_amount WHERE allocation_id = alloc;
        INSERT INTO activity (allocation_id, kind, amount, job_id, uid, at, comment)
            VALUES (alloc, 'predebit', -p_amount, p_job, p_uid, p_now, p_comment);
        INSERT INTO jobs (job_id, allocation_id, uid, amount, rate, status, started)
            VALUES (p_job, alloc, p_uid, p_amount, p_rate, 'executing', p_now);
        result := 'ok';
        RETURN;
    END IF;
    result := 'refused';
    SELECT * INTO last FROM failures f WHERE f.job_id = p_job ORDER BY f.attempt DESC LIMIT 1;
    IF FOUND AND last.allocation_id = alloc AND last.amount = p_amount AND last.balance = bal THEN
        RETURN; -- a retry against the same balance: nothing new to record
    END IF;
    INSERT INTO failures (job_id, attempt, allocation_id, uid, amount, balance, at)
        VALUES (p_job, COALESCE(last.attempt, 0) + 1, alloc, p_uid, p_amount, bal, p_now);
END $$;

-- The completion's usual case is the first statement: the job's row is
-- updated (and so locked) with its actual debit, computed as
-- allocation.ActualDebit does (0 for a node failure, else the given amount
-- or the rate's SU over the elapsed seconds rounded up to whole seconds
-- and SU, at most the pre-debit); then its allocation's balances row, the
-- release and debit activity and the owner's debits (both made from the
-- balances update's row: the locks are taken in the order job, balances,
-- debits, as nothing takes them in another order). Otherwise result says
-- why: 'gone' (no such job), 'completed' (already: the caller compares)
-- or 'norate' (neither an amount nor a rate). The o_ columns are the job
-- as it is now.
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
        INSERT INTO activity (allocation_id, kind, amount, job_id, uid, at, comment)
        SELECT b.allocation_id, v.k, v.a, p_job, u.uid, p_now, ''
        FROM b, u, LATERAL (VALUES (1, 'release', u.amount), (2, 'debit', -u.debited)) v(n, k, a)
        WHERE v.a <> 0 ORDER BY v.n
    ), d AS (
        INSERT INTO debits AS d (allocation_id, uid, amount, jobs) SELECT b.allocation_id, u.uid, u.debited, 1 FROM b, u
        ON CONFLICT (allocation_id, uid) DO UPDATE SET amount = d.amount + EXCLUDED.amount, jobs = d.jobs + 1
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
