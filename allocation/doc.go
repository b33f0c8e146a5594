// Package allocation is an allocation ledger for HPC jobs: the Hermes
// Allocation Data Manager (HADM) of the HADM paper (University of Delaware's
// DARWIN cluster) as a library.
//
// A project is a workgroup (Unix group name and gid, Slurm account). A
// project holds allocations, each of one category, one resource type (CPU
// or GPU) and one period; two allocations of one project and resource never
// overlap in time, so an account, a resource type and an instant name at
// most one allocation. Credits add service units (SU) to an allocation; a
// job's start pre-debits its maximum SU (requested cores or GPUs times its
// time limit) and is refused, with a failure record, when that would drive
// the balance negative; the job's end turns the pre-debit into the actual
// debit from the elapsed time (the unused part returns; a node failure
// bills nothing). Debits are aggregated per owner uid, as HADM's "debits"
// table is. Every balance change is an Activity, and a balance always
// equals the sum of its allocation's activity.
//
// Service units are core-minutes (GPU-minutes on GPU partitions) rounded up
// from core-seconds, or, with per-partition Weights, Slurm's MAX_TRES
// billing (PriorityFlags=MAX_TRES): the largest weighted resource, so one
// core with half a node's memory bills like half the node's cores.
//
// The site factor of the HADM paper (f_credit, f_temporal, the power rule and the
// sigmoid) is here as pure functions and as SiteFactors, a snapshot whose
// Factor method is a queue.Multifactor site factor.
//
// A site may name its allocation categories and their credit limits
// (WithCategories). QueuePlugin wires a Ledger into a queue.Scheduler; the
// job ends it could not record go to a ReleaseQueue, a file the caller
// retries from (after a restart too), as the HADM paper's prolog/epilog path
// keeps its pending queries on disk.
//
// # Concurrency and persistence
//
// Ledger and its stores are safe for concurrent use — the documented
// exception to the project's no-locks rule — because several schedulers
// and API servers pre-debit one allocation at once: the race HADM met (two
// 20-SU pre-debits against 30 SU both passing) cannot happen, since a
// store checks and records a pre-debit in one critical section (a mutex in
// MemStore, a row lock on the allocation in allocation/pgstore). Nothing here starts a
// goroutine or reads the clock: every operation takes now.
//
// MemStore keeps its tables in google/btree trees. OpenFile persists it
// in a versioned format: a snapshot (a header line giving the length and
// CRC-32C of the JSON image that follows) and a journal (a header naming
// the last op the snapshot includes, then one "LENGTH CRC JSON" line per
// op). Every change is appended to the journal and fsynced before it is
// acknowledged (a failed append is cut back, so an unacknowledged change
// is never replayed); every DefaultCompactEvery changes the completed
// jobs, with their activity, and the refusals are moved into segment
// files (PATH.seg.NNNNNN, each at most DefaultSegmentSize, "LENGTH CRC
// JSON" records in job id order and a last line indexing them by
// allocation, never changed once written: while the newest segment and
// the new records fit under the limit together, they are written as a new
// segment that replaces it, so segments fill up and their number follows
// the archived bytes; the replaced file is removed once the snapshot is
// durable, or, after a crash, by the next OpenFile), and the live
// state (projects, allocations, credits, executing jobs, balances and
// per-owner debits, the segments' index) is written as a snapshot
// atomically (temporary file, fsync, rename, fsync of the directory) and
// a new journal started the same way. Opening reads the snapshot and
// replays the journal over it, skipping what the snapshot includes; it
// reads no segment, so restart time, memory and the largest file follow
// the live ledger, not its history. A completed job is found by bisecting
// the segment whose id range holds it (a job's last refusal too); Jobs
// and History read, record by record, only the allocation's own records,
// through each segment's index; Failures reads the segments holding
// refusals. Damage is refused, never skipped: a record cut short
// or changed, ops missing, a journal, snapshot or segment deleted or cut,
// or a snapshot older than its journal gives a *JournalError or
// *SegmentError (file, offset, record) or ErrFile; CheckFile reports what
// is intact (every segment read through) and RepairFile keeps it. A
// ledger file is held by one store at a time (an exclusive flock; a second
// gets a *LockedError naming the holder). Back the files up together, as
// of one moment (the ledger stopped, or a file-system snapshot): a
// compaction may replace the newest segment, so a snapshot copied before
// the segments can name one that is gone by the time they are copied.
// allocation/pgstore is the store several servers share.
//
// No HADM or Slurm code was used; this follows the HADM paper's description.
package allocation
