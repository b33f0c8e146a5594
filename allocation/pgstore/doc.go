// Package pgstore is an allocation.Store in PostgreSQL (15 or newer), for
// several schedulers or API servers sharing one ledger, as the HADM paper's
// system keeps its allocation data in PostgreSQL.
//
// Open applies the schema migrations shipped in the package (embedded
// SQL, each applied once, recorded in hpcsched_schema_migrations, under an
// advisory lock so servers starting together do not race). The database
// itself refuses overlapping allocations: an exclusion constraint over
// (project, resource, period) with btree_gist, so no writer can bypass
// it. Every allocation has one balances row, and every balance-changing
// operation (credit, pre-debit, completion, forget) locks that row in its
// transaction before it checks or changes anything: a pre-debit's balance
// check and its insert cannot interleave with another's on the same
// allocation, in this process or any other, so concurrent pre-debits never
// overdraw, while operations on different allocations proceed in parallel
// (HADM's global lock serialised them all). Credit, pre-debit and
// completion are one statement each, so one round trip each: the usual
// pre-debit (the balance covers it) and completion (of an executing job)
// are single statements of data-modifying CTEs, prepared once per
// connection; the other cases (no allocation, a retry, a refusal) are
// PL/pgSQL functions the migrations install (hpcsched_predebit,
// hpcsched_complete), which the store calls when the first statement
// returns no row. A completion locks the job's row before the balances
// row, as a forget does. One race still closes a cycle: a repeated
// pre-debit of a job that a completion (or a forget) is writing holds the
// balances row while its insert of the job's row waits for that writer,
// which waits for the balances row. PostgreSQL breaks such a deadlock by
// aborting one statement (SQLSTATE 40P01), which leaves nothing behind,
// and the store runs it again, as it does a serialization failure, up to
// eight times: pre-debits, completions and forgets are idempotent. A
// CHECK (balance >= 0) backs the balance checks up.
//
// A job writes few rows: its pre-debit a jobs row and an activity row; its
// completion updates the jobs row (kept on its page, a HOT update: the
// table leaves room for it) and writes one activity row carrying both its
// release and its debit, which History shows as two entries with their
// own ids. The per-owner debits are not written by a completion but summed
// from the allocation's completed jobs when read (Debits), plus the
// debits table, which keeps those of completed jobs whose records were
// dropped (Forget).
//
// The activity and jobs tables, which every job writes, carry no foreign
// key: a key check is a trigger and a tuple lock per row (four a pre-debit
// and completion). Their writers all hold the allocation's balances row
// lock, and a trigger on allocations, taking that lock, refuses to delete
// an allocation with activity or jobs or to move it to another project or
// resource, for any writer. Activity has one index, its primary key
// (allocation, id), which History reads.
//
// Errors other than the ledger's own (allocation.ErrNotFound and the
// rest) are *DatabaseError, matching ErrDatabase: their message names the
// SQLSTATE only, never the server, user or driver text, so an API may show
// it; the cause is kept for the operator's log.
//
// The pool opens up to DefaultPoolSize (16) connections, or what the DSN's
// pool_max_conns says; pgxpool's own default (4 or the number of CPUs)
// would keep a server's concurrent clients waiting for a connection.
//
// This is the only package that imports github.com/jackc/pgx/v5.
package pgstore
