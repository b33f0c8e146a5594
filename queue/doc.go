// Package queue is the job side of the controller: jobs and their states,
// dependencies, the scheduling loop, backfill, a complete event stream, an
// external-scheduler mode and state save/restore, over a
// selectnodes.Cluster.
//
// It models seed 000: queueing with FCFS and backfill (§1.2), dependencies
// (§2.4.3), job states (§3.1.3), Slurm's schedule function — the queue of
// queues ordered by partition priority then job priority, where a busy
// partition is locked and its nodes withheld from later jobs (§3.2.1) —,
// the schedule plugin (§4.2: initial priority and order; here Policy, with
// FCFS, SJF, LJF and multifactor), and the wiki2 external-scheduler
// interface with its hold strategy, STARTJOB and JOBWILLRUN (chapter 5),
// done right: every change to jobs, nodes and partitions is an Event,
// including the ones wiki2 never sent (pending-job cancels, updates, node
// state changes). State save and recovery follows seed 003. No Slurm code
// was used.
//
// # Concurrency and time
//
// A Scheduler guards itself with one mutex, so callers may share it.
// It starts no goroutines and reads no clock: every method takes now.
// Subscribers receive events after the state change is made and the lock
// released, in order, even when a subscriber calls back into the
// scheduler.
//
// # Backfill
//
// Backfill plans conservatively: every blocked job in priority order gets
// a reservation — its earliest start (selectnodes WillRun) on a snapshot
// of the load where the running jobs end at their time limits and earlier
// reservations hold their nodes until they end — and a job starts now only
// on nodes no reservation needs before the job's time limit ends. A job
// with no time limit is planned as running for ever.
package queue
