// Package sim replays workloads through the library in virtual time: a
// discrete-event simulator that drives a queue.Scheduler over a
// selectnodes.Cluster and measures what the AUCSCHED3 paper (sections 3-4) measures.
//
// Workloads come from Standard Workload Format traces (ReadSWF: the 18
// standard fields, ';' headers, -1 for unknown, and the 21-field extended
// form of the MetaCentrum trace whose PBS spec "1:ppn=64:x86_64:cl_zewura#excl"
// gives nodes, CPUs per node, node properties, hosts asked for or avoided
// ("^zewura12.cerit-sc.cz") and exclusivity) or from the generator of the AUCSCHED3 paper's workloads
// (Generate: workloads 1-6 and 5'/6' built from job types A-E, C' and D').
// Cluster presets are the AUCSCHED3 paper's 1024-node tree (selectnodes.Seed001), a
// cluster sized from an SWF header or a .machines file (whose nodes get
// the properties the trace's jobs ask for: Trace.SiteProperties,
// "cl_<group>", "nodecpus<N>"), or any slurm.conf through
// selectnodes.FromConfig.
//
// Trace.WorkloadWith reads jobs under explicit Conventions (the time limit
// from the requested time or the run time, the requested or allocated
// processors); Workload uses the usual ones. A replay of a trace's first
// N jobs (Trace.WorkloadFirst, NewTraceSource's limit) takes the first N
// jobs kept, in the order of the trace's lines: a job left out (unknown
// run time, cancelled before running) does not count, and only those on
// the lines before the last job taken are counted as left out. A
// standard trace read as it goes and an extended one read whole agree.
//
// Run submits each job at its submit time, ends it after its run time (or
// at its time limit), and after every batch of simultaneous events
// (completions before arrivals, and a job's Spec.Begin) runs a scheduling
// pass: Schedule, then
// conservative Backfill (queue.Scheduler.Backfill, planning at most 100
// jobs a pass by default, Slurm's bf_max_job_test) or EASY backfill
// (queue.EASY, whose pass also starts the jobs in order up to the queue
// head), as Options.Backfill says; optionally also every Options.Interval
// of virtual time. Jobs the cluster can never run are counted per reason
// in Result.Unrunnable, never dropped silently. Results carry the metrics
// of the AUCSCHED3 paper's Table 4 (mean and standard deviation of the lowest-level
// common switch and of the spread) and the usual ones: utilization as the
// AUCSCHED3 paper defines it (the theoretical run time, core-seconds over the system's
// cores, divided by the observed one from first submission to last
// completion), busy-fraction utilization, wait time mean, median and 95th
// percentile, bounded slowdown (10 s bound) and makespan. Sums are taken in
// float64 seconds, so no trace can overflow them.
//
// A replay holds the jobs queued and running, not the workload:
// RunSource reads each job from a Source (a Workload's, or TraceSource's,
// which reads an SWFReader one line at a time, putting jobs out of order
// by up to ReorderWindow back in order) when its submit time comes, and a
// job that ends leaves the scheduler (queue.Scheduler.Forget) and the run,
// leaving its sums (the waits are kept, 8 bytes a job, for the median and
// 95th percentile). When no job of the source has a dependency (a
// trace's, or a Workload's without one) the scheduler keeps no tombstone
// of an ended job either, only its ID in a run of consecutive IDs
// (queue.WithoutTombstones). A replay takes only the IDs of the jobs a
// pass started (queue.Scheduler.ScheduleIDs and BackfillIDs,
// queue.EASY.BackfillIDs), so no start builds a hostlist; the records name
// nodes by index, read from the placement as the job starts; a
// forgotten job's placement and record serve a later job
// (queue.WithRecycledPlacements), so a long replay allocates little per
// job. Options.OnRecord receives each job's final record as
// it is final; Options.Record keeps them all (charts). A trace read
// under SWFOptions.KeepFields gives each job its line's 18 fields
// (SWFJob.Fields, Job.SWF, Record.SWF: an SWFFields, made as the line is
// read and dropped with the job's record), so a writer can give back
// what the replay does not decide; without it a job carries nothing of
// its line. A pass on a cluster without a free CPU is skipped under
// Schedule alone and EASY (it could start nothing, and those passes keep
// nothing the skipped one would have changed).
//
// WriteSVG draws a recorded run — utilization over time (a moving
// average), jobs waiting over time, the wait and bounded-slowdown CDFs,
// the switch-level histogram when the cluster has a switch tree (shares of
// jobs and of job durations, the AUCSCHED3 paper's Fig. 4), the spread histogram and,
// for runs of at most 400 bars, a Gantt chart; WriteSVGLike draws it on
// the axes of other runs of the workload, so they compare side by side;
// WriteComparisonSVG draws several runs side by side per workload (the AUCSCHED3
// paper's Fig. 3), each row led by the runs' headline figures. Series are
// downsampled to a fixed number of points and all text is XML-escaped.
//
// Budgets, checked before allocating (errors match ErrBudget and, for
// input, carry the line as *SWFError):
//   - a trace's decompressed size: SWFOptions.MaxBytes, DefaultMaxTraceBytes
//     (512 MiB) when 0 — a small gzip of gigabytes of blank lines stops there
//     — and one line at most 16 MiB, both checked as the reader reads (an
//     endless line such as /dev/zero stops after 16 MiB);
//   - time fields at most MaxSWFSeconds (2^32 s), other counts an int32,
//     NaN and infinities rejected, with the field's number; a trace job's
//     time limit longer than queue.MaxTimeLimit (a century: some logs write
//     a huge requested time for "unlimited") is held to it;
//   - at most MaxClusterNodes (2^20) nodes from a header, a machines file
//     (in total) or a PBS spec (summed over its chunks), and an int32 of
//     processors; Generate's nodes x cores an int32;
//   - Options.Interval 0 or at least MinInterval (1 s); with a dynamic
//     policy or a planner at most MaxIntervalPasses extra passes (refused
//     up front from the span of the submissions), while a static policy
//     skips the passes that cannot change a decision.
//
// Ownership: every value the package returns (a Trace, an SWFJob, a
// Workload, a Result and its Records, the records OnRecord is given, a
// Header, a Skipped map) is the caller's, sharing only immutable values
// (strings, a *features.Expr, a line's *SWFFields). A run takes over its
// cluster, which must hold no allocation (ErrClusterInUse), uses its
// Source up, and reads a Workload's jobs without a copy until it
// returns; it keeps nothing else it is given. Runs on separate clusters may go at
// once, even of one Workload.
//
// Like every library package, sim reads no clock and starts no goroutines:
// the same workload, cluster and options give the same result. Wall-clock
// throughput is measured by the caller (cmd/hpcsched does).
package sim
