-- hpcsched allocation ledger, schema 1: seed 002's HADM tables.
CREATE EXTENSION IF NOT EXISTS btree_gist;

CREATE TABLE projects (
    project_id bigserial PRIMARY KEY,
    gname      text   NOT NULL CHECK (gname <> ''),
    gid        bigint NOT NULL CHECK (gid >= 0 AND gid <= 4294967295),
    account    text   NOT NULL UNIQUE CHECK (account <> '')
);

-- Two allocations of one project and resource never overlap in time: the
-- database refuses it (exclusion_violation), whoever writes.
CREATE TABLE allocations (
    allocation_id bigserial PRIMARY KEY,
    project_id    bigint      NOT NULL REFERENCES projects,
    category      text        NOT NULL DEFAULT '',
    resource      text        NOT NULL CHECK (resource IN ('CPU', 'GPU')),
    start_date    timestamptz NOT NULL,
    end_date      timestamptz NOT NULL,
    CHECK (start_date < end_date),
    EXCLUDE USING gist (project_id WITH =, resource WITH =, tstzrange(start_date, end_date) WITH &&)
);

-- Every balance change; a balance is the sum of its allocation's rows.
CREATE TABLE activity (
    activity_id   bigserial PRIMARY KEY,
    allocation_id bigint      NOT NULL REFERENCES allocations,
    kind          text        NOT NULL CHECK (kind IN ('credit', 'predebit', 'release', 'debit')),
    amount        bigint      NOT NULL,
    job_id        bigint      NOT NULL DEFAULT 0,
    uid           bigint      NOT NULL DEFAULT 0,
    at            timestamptz NOT NULL,
    comment       text        NOT NULL DEFAULT ''
);
CREATE INDEX activity_by_allocation ON activity (allocation_id, activity_id);

-- The running totals of activity, kept in the same transaction as the
-- activity rows under the ledger's advisory lock.
CREATE TABLE balances (
    allocation_id bigint PRIMARY KEY REFERENCES allocations ON DELETE CASCADE,
    credits bigint NOT NULL DEFAULT 0,
    debited bigint NOT NULL DEFAULT 0,
    pending bigint NOT NULL DEFAULT 0,
    balance bigint NOT NULL DEFAULT 0 CHECK (balance >= 0)
);

CREATE TABLE jobs (
    job_id        bigint PRIMARY KEY,
    allocation_id bigint      NOT NULL REFERENCES allocations,
    uid           bigint      NOT NULL,
    amount        bigint      NOT NULL,
    rate          bigint      NOT NULL DEFAULT 0,
    status        text        NOT NULL CHECK (status IN ('executing', 'completed')),
    started       timestamptz NOT NULL,
    ended         timestamptz,
    elapsed_ns    bigint      NOT NULL DEFAULT 0,
    outcome       text        NOT NULL DEFAULT '',
    debited       bigint      NOT NULL DEFAULT 0
);
CREATE INDEX jobs_by_allocation ON jobs (allocation_id, job_id);

CREATE TABLE failures (
    job_id        bigint PRIMARY KEY,
    allocation_id bigint      NOT NULL REFERENCES allocations,
    uid           bigint      NOT NULL,
    amount        bigint      NOT NULL,
    balance       bigint      NOT NULL,
    at            timestamptz NOT NULL
);

-- Resolved pre-debits aggregated by owner (HADM's "debits").
CREATE TABLE debits (
    allocation_id bigint NOT NULL REFERENCES allocations,
    uid           bigint NOT NULL,
    amount        bigint NOT NULL DEFAULT 0,
    jobs          bigint NOT NULL DEFAULT 0,
    PRIMARY KEY (allocation_id, uid)
);
