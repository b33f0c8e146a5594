-- Row locks in place of the global advisory lock, and refused jobs that
-- may be retried.
--
-- Every allocation has its balances row from its creation on, so a change
-- to an allocation's balance locks that row (SELECT ... FOR UPDATE) and
-- changes to different allocations proceed in parallel.
INSERT INTO balances (allocation_id) SELECT allocation_id FROM allocations ON CONFLICT DO NOTHING;

CREATE FUNCTION hpcsched_new_balance() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO balances (allocation_id) VALUES (NEW.allocation_id) ON CONFLICT DO NOTHING;
    RETURN NEW;
END $$;
CREATE TRIGGER allocations_new_balance AFTER INSERT ON allocations
    FOR EACH ROW EXECUTE FUNCTION hpcsched_new_balance();

-- A job may be refused several times (each against a different balance).
ALTER TABLE failures ADD COLUMN attempt bigint NOT NULL DEFAULT 1;
ALTER TABLE failures DROP CONSTRAINT failures_pkey;
ALTER TABLE failures ADD PRIMARY KEY (job_id, attempt);

-- A pre-debit in one statement (one round trip): result is 'exists' (the
-- job has a record: the caller compares it), 'noalloc', 'refused' (bal is
-- the balance it was refused against) or 'ok'.
CREATE FUNCTION hpcsched_predebit(p_job bigint, p_uid bigint, p_account text, p_resource text,
    p_amount bigint, p_rate bigint, p_comment text, p_now timestamptz,
    OUT result text, OUT alloc bigint, OUT bal bigint) LANGUAGE plpgsql AS $$
DECLARE
    last failures%ROWTYPE;
BEGIN
    SELECT a.allocation_id INTO alloc FROM allocations a JOIN projects p USING (project_id)
        WHERE p.account = p_account AND a.resource = p_resource AND a.start_date <= p_now AND p_now < a.end_date;
    IF NOT FOUND THEN
        PERFORM 1 FROM jobs WHERE job_id = p_job;
        result := CASE WHEN FOUND THEN 'exists' ELSE 'noalloc' END;
        RETURN;
    END IF;
    -- The balances row lock serialises the pre-debits of one allocation:
    -- the check and the change below see no other's in between.
    UPDATE balances SET pending = pending + p_amount, balance = balance - p_amount
        WHERE allocation_id = alloc AND balance >= p_amount AND NOT EXISTS (SELECT 1 FROM jobs WHERE job_id = p_job)
        RETURNING balance + p_amount INTO bal;
    IF FOUND THEN
        INSERT INTO activity (allocation_id, kind, amount, job_id, uid, at, comment)
            VALUES (alloc, 'predebit', -p_amount, p_job, p_uid, p_now, p_comment);
        INSERT INTO jobs (job_id, allocation_id, uid, amount, rate, status, started)
            VALUES (p_job, alloc, p_uid, p_amount, p_rate, 'executing', p_now);
        result := 'ok';
        RETURN;
    END IF;
    SELECT b.balance INTO bal FROM balances b WHERE b.allocation_id = alloc FOR UPDATE;
    PERFORM 1 FROM jobs WHERE job_id = p_job; -- a pre-debit of this job committed while this one waited
    IF FOUND THEN result := 'exists'; RETURN; END IF;
    result := 'refused';
    SELECT * INTO last FROM failures f WHERE f.job_id = p_job ORDER BY f.attempt DESC LIMIT 1;
    IF FOUND AND last.allocation_id = alloc AND last.amount = p_amount AND last.balance = bal THEN
        RETURN; -- a retry against the same balance: nothing new to record
    END IF;
    INSERT INTO failures (job_id, attempt, allocation_id, uid, amount, balance, at)
        VALUES (p_job, COALESCE(last.attempt, 0) + 1, alloc, p_uid, p_amount, bal, p_now);
END $$;

-- A completion in one statement: the job's row is locked, the actual
-- debit computed as allocation.ActualDebit does (0 for a node failure,
-- else the given amount or the rate's SU over the elapsed seconds rounded
-- up to whole seconds and SU, at most the pre-debit). result is 'gone' (no
-- such job), 'completed' (already: the caller compares), 'norate' (neither
-- an amount nor a rate) or 'ok'; the o_ columns are the job as it is now.
CREATE FUNCTION hpcsched_complete(p_job bigint, p_elapsed bigint, p_outcome text, p_amount bigint, p_now timestamptz,
    OUT result text, OUT o_allocation bigint, OUT o_uid bigint, OUT o_amount bigint, OUT o_rate bigint,
    OUT o_status text, OUT o_started timestamptz, OUT o_ended timestamptz, OUT o_elapsed bigint,
    OUT o_outcome text, OUT o_debited bigint) LANGUAGE plpgsql AS $$
DECLARE
    j jobs%ROWTYPE;
    actual bigint;
BEGIN
    SELECT * INTO j FROM jobs WHERE job_id = p_job FOR UPDATE;
    IF NOT FOUND THEN result := 'gone'; RETURN; END IF;
    IF j.status = 'executing' THEN
        IF p_outcome = 'node_fail' THEN
            actual := 0;
        ELSIF p_amount IS NOT NULL THEN
            actual := least(p_amount, j.amount);
        ELSIF j.rate > 0 THEN
            actual := least(ceil(j.rate::numeric * ceil(p_elapsed::numeric / 1000000000) / 60000000), j.amount);
        ELSE
            result := 'norate'; RETURN;
        END IF;
        -- the update locks the balances row before the activity rows are numbered
        UPDATE balances SET pending = pending - j.amount, debited = debited + actual,
            balance = balance + j.amount - actual WHERE allocation_id = j.allocation_id;
        INSERT INTO activity (allocation_id, kind, amount, job_id, uid, at, comment)
            SELECT j.allocation_id, k, a, p_job, j.uid, p_now, ''
            FROM (VALUES (1, 'release', j.amount), (2, 'debit', -actual)) v(n, k, a) WHERE a <> 0 ORDER BY n;
        INSERT INTO debits AS d (allocation_id, uid, amount, jobs) VALUES (j.allocation_id, j.uid, actual, 1)
            ON CONFLICT (allocation_id, uid) DO UPDATE SET amount = d.amount + actual, jobs = d.jobs + 1;
        UPDATE jobs SET status = 'completed', ended = p_now, elapsed_ns = p_elapsed, outcome = p_outcome, debited = actual
            WHERE job_id = p_job RETURNING * INTO j;
        result := 'ok';
    ELSE
        result := 'completed';
    END IF;
    o_allocation := j.allocation_id; o_uid := j.uid; o_amount := j.amount; o_rate := j.rate; o_status := j.status;
    o_started := j.started; o_ended := j.ended; o_elapsed := j.elapsed_ns; o_outcome := j.outcome; o_debited := j.debited;
END $$;
