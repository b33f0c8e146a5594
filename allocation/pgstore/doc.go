// Package pgstore is an allocation.Store in PostgreSQL (15 or newer), for
// several schedulers or API servers sharing one ledger, as the HADM paper's
// system keeps its allocation data in PostgreSQL.
//
// Open applies the schema migrations shipped in the package (embedded
// SQL, each applied once, recorded in hpcsched_schema_migrations, under an
// advisory lock so servers starting together do not race). The database
// itself refuses overlapping allocations: an exclusion constraint over
// (project, resource, period) with btree_gist, so no writer can bypass
// it. Every balance-changing operation (credit, pre-debit, completion)
// runs in one transaction holding one transaction-scoped advisory lock, as
// HADM settled on after table locks deadlocked at scale: a pre-debit's
// balance check and its insert cannot interleave with another's, in this
// process or any other, so concurrent pre-debits never overdraw. A CHECK
// (balance >= 0) backs this up.
//
// This is the only package that imports github.com/jackc/pgx/v5.
package pgstore
