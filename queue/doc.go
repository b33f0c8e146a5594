// Package queue is the job side of the controller: jobs and their states,
// dependencies, the scheduling loop, backfill, a complete event stream, an
// external-scheduler mode and state save/restore, over a
// selectnodes.Cluster.
//
// It models the Novotný thesis: queueing with FCFS and backfill (§1.2), dependencies
// (§2.4.3), job states (§3.1.3), Slurm's schedule function — the queue of
// queues ordered by partition priority then job priority, where a busy
// partition is locked and its nodes withheld from later jobs (§3.2.1) —,
// the schedule plugin (§4.2: initial priority and order; here Policy, with
// FCFS, SJF, LJF and multifactor), and the wiki2 external-scheduler
// interface with its hold strategy, STARTJOB and JOBWILLRUN (chapter 5),
// done right: every change to jobs, nodes and partitions is an Event,
// including the ones wiki2 never sent (pending-job cancels, updates, node
// state changes). State save and recovery follows the Slurm Programmer's Guide. No Slurm code
// was used.
//
// # Extension points
//
// Other packages plug in through small interfaces, in the manner of
// kube-scheduler's framework:
//
//   - AdmitPlugin sees every submission and request change first (Slurm's
//     job_submit filter): it may rewrite the Spec or refuse it; a refusal
//     is a *StatusError (errors.Is ErrRefused) and leaves nothing behind.
//   - ReservePlugin is asked before every start (Reserve) and undone if
//     the start does not happen (Unreserve): a ledger's pre-debit. Its
//     Status code says whether the job stays pending, is held or fails.
//   - ReleasePlugin hears every end of an allocation (JobEnd: state,
//     outcome, elapsed time, node failure): a ledger's debit.
//   - Planner decides a window of jobs at once on a Snapshot of the
//     cluster's load, never the live cluster; decisions the pipeline
//     refuses are reported as EventRefused.
//   - IDSource hands out job IDs (a grid's), and Spec.ID lets a caller
//     choose one.
//   - Multifactor.SiteFactor(job, now) adds a site's own priority factor.
//
// Admission runs before the lock is taken; Reserve, Unreserve, Release and
// SiteFactor run under it (so a start and its reservation are one step)
// and must not call the Scheduler. A panic in Reserve, Unreserve or
// Release is contained, as a subscriber's is, so that no start or end is
// left half made: a Reserve that panics refuses with Error. Every method that runs plugins has a
// ...Context twin whose context the plugins receive.
//
// # Concurrency and time
//
// A Scheduler guards itself with one mutex, so callers may share it. It
// starts no goroutines and reads no clock: every method takes now.
// Subscribers receive events after the state change is made and the lock
// released, in order, even when a subscriber calls back into the
// scheduler; a subscriber that panics is contained (WithPanicHandler) and
// the others still receive every event. Events carry typed payloads
// (StartPayload, EndPayload, ...) besides the human-readable Detail.
//
// Time is the caller's, with three rules. Every now, Begin and saved time
// falls in the years MinYear to MaxYear (1678-2261, where Unix
// nanoseconds fit an int64); a time derived from one, such as an expected
// end, saturates at EndOfTime. A call about one job (Finish, Cancel,
// Suspend, Resume, Requeue, Hold, Release, Update, Start, and
// SetNodeState for the jobs a node takes down) is refused with ErrTime if
// its now precedes the job's submission, start or suspension. A pass
// (Schedule, Backfill, Tick, WillRun) given a now earlier than the latest
// time the scheduler has accepted acts at that latest time (the clock
// never runs backwards, so no wait is negative); given a now outside the
// years it does nothing (CheckTime tells beforehand).
//
// # Ownership
//
// Nothing a Scheduler hands out aliases its state, and nothing it takes in
// is kept without a copy, so a caller may read, change or reuse every
// value on either side of a call:
//
//   - Job, Jobs and Pending return deep copies: the Request's slices and
//     bitmap, the Placement and the Explanation are the caller's.
//   - Submit, SubmitContext and WillRunSpec copy the Spec (its Request's
//     Required, Excluded, Groups, GRES and ExcludeNodes) before an
//     AdmitPlugin sees it, and Submit again after, so a plugin may keep
//     the Spec it saw; Update copies Update.Request, and UpdatePartition
//     the partition's node and access lists.
//   - Every subscriber gets its own copy of each event's Payload
//     (StartPayload.Placement, NodePayload.Ended, UpdatePayload.Fields,
//     RefusedPayload.Status); events are values.
//   - A Planner's window is a deep copy, and its Snapshot is a copy of
//     the load; the Decisions it returns are read, not kept.
//   - ReservePlugins and ReleasePlugins each get their own copy of the job
//     and of the placement.
//   - Backfill and Reservations return fresh Reservation slices.
//
// One value is lent rather than copied: a Policy's Priority reads the
// job's own record, valid for that call only. It must not change it or
// keep the pointer; a forgotten job's record is cleared and reused for a
// later job.
//
// Two things are shared by design: a *features.Expr (Request.Features),
// which is immutable (call UnmarshalText only on an Expr of your own),
// and the selectnodes.Cluster given to New, which the scheduler owns from
// then on (Cluster returns it for reading while no call is in progress).
//
// # Errors
//
// Errors a caller may branch on match a sentinel with errors.Is:
// ErrUnknownJob, ErrJobState, ErrDuplicateID, ErrInvalidSpec, ErrLimit,
// ErrRefused, ErrTime, ErrIDSource, or a selectnodes class for selection
// failures. A malformed
// dependency is a *DependencyError with its offset; a state Restore
// refuses is a *RestoreError with the path of the value.
//
// # Limits
//
// Nice is bounded by ±MaxNice, time limits and after:+minutes delays by
// MaxTimeLimit, every time by MinYear and MaxYear (ErrTime),
// dependencies by MaxDependencyBytes, a saved state by MaxStateBytes
// (counted as it is read), and job IDs by the largest uint64 (ErrLimit);
// beyond them Submit, Update and Restore return errors (ErrInvalidSpec,
// ErrTime, ErrLimit, a *RestoreError), never a wrong answer. Priority
// arithmetic saturates, Multifactor weights included.
//
// # Zero values and defaults
//
// Every Option's zero argument means its default; negative counts and
// durations and nil interfaces panic, naming the option. New(nil) and a
// nil Option panic; Restore with a nil reader or cluster returns an error;
// the zero Scheduler is not usable (its methods panic saying so). A job
// without a time limit takes its partition's DefaultTime (else MaxTime);
// one without a QOS is QOS DefaultQOS ("normal") to AllowQOS and DenyQOS,
// which the cluster enforces only with accounting
// (selectnodes.WithQOSChecks).
//
// # Finished jobs
//
// Finished jobs are kept (Job, Jobs, Snapshot show them) until Forget
// drops one, or WithRetention / WithForgetFinished drop them as they end.
// A forgotten job leaves a tombstone of its end state and start time:
// its ID stays in use, and a dependency on it, made before or after,
// resolves exactly as on the finished job. A tombstone is 16 bytes with no
// pointer for the collector to scan; it keeps the start's instant, which
// Snapshot writes in UTC. WithoutTombstones keeps, while no job has named
// another in a dependency, only the forgotten IDs as runs of consecutive
// IDs (a few runs for a queue whose jobs end roughly in order, whatever
// their number); a dependency given later on such a job is refused.
// A forgotten job's record is reused for a later submission, and with
// WithRecycledPlacements its placement too (selectnodes.Cluster.Recycle),
// so a long replay allocates little per job; that option is for callers
// that read no placement from the cluster after its job is forgotten.
//
// # State
//
// Snapshot writes a documented, versioned JSON format (StateVersion; see
// the comment on stateFile in state.go, repeated here in short): counters,
// partitions, node states, every job with its request, times, state and
// placement, and Backfill's reservations. Restore validates the whole
// document against the cluster before changing it, replays allocations in
// the order they were made, and gives a scheduler that decides exactly as
// the saved one, event for event (a property test checks 10^5 random
// operations with restores at random points).
//
// # Backfill
//
// Backfill plans conservatively: every blocked job in priority order gets
// a reservation — its earliest start (selectnodes WillRun) on a snapshot
// of the load where the running jobs end at their time limits and earlier
// reservations hold their nodes until they end — and a job starts now only
// on nodes no reservation needs before the job's time limit ends. A job
// with no time limit is planned as running for ever. A reservation ends
// when its job starts, is cancelled or is held.
//
// The plan is kept in an availability profile (Slurm backfill's node space
// map): time slots, each with the nodes free throughout it, its free
// count (so most candidate starts are rejected by an integer comparison)
// and a mark of the words that differ from the slot before; the
// intersection of the slots of each span of 16 resolution steps is cached
// (and kept exact as reservations are taken), so the nodes free throughout
// a job's window cost one intersection per span it covers whole and a
// pass over the changed words of the slots at its two ends.
// The profile, its span cache and the per-node reservation index are kept
// from pass to pass (incremental re-planning) and brought up to
// date at the start of each pass from what it is a function of alone:
// each node's rounded free time, the nodes down or drained, and the
// standing reservations. Only the nodes whose inputs changed (or that a
// reservation was given back on) are recomputed, slot by slot, and the
// slot boundaries are reference-counted so that a boundary nothing
// references any more disappears and slots before now fold into the
// first: the kept profile equals a rebuilt one exactly (a property test
// compares them slot by slot after random event sequences), because the
// planner tries every boundary as a start. It is derived state, never
// saved, so a restored scheduler rebuilds it and plans exactly as the
// original would.
//
// A plain job (no topology, no selection budget) whose reservation was
// planned in full is not planned again in later passes while the
// profile's change log shows no room freed that could start it earlier
// and nothing taken that overlaps its reservation: it would be planned to
// the same nodes and time. Twin schedulers, one forced to plan every job,
// decide alike in the tests after every event.
//
// # EASY
//
// EASY protects only the queue head (see EASY). EASY.BackfillSubmittedIDs
// is its pass for a caller that passes after every event: the scheduler
// counts every call that may change it, and when only Submit was called
// since the last pass, and the new jobs all sort after the older ones, the
// pass considers only the new jobs, from where the last one stopped with
// its free counts and the head's plan; otherwise it is a whole pass. It
// decides as a whole pass always (twin schedulers after random calls of
// every kind, and random workloads under FCFS and SJF, in the tests).
package queue
