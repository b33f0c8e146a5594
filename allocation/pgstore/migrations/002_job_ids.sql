-- Grid-unique job IDs (federation's IDSource): one sequence every
-- controller sharing the database draws from.
CREATE SEQUENCE IF NOT EXISTS hpcsched_job_ids AS bigint MINVALUE 1 START WITH 1;
