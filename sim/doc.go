// Package sim replays workloads through the library in virtual time: a
// discrete-event simulator that drives a queue.Scheduler over a
// selectnodes.Cluster and measures what seed 001 (sections 3-4) measures.
//
// Workloads come from Standard Workload Format traces (ReadSWF: the 18
// standard fields, ';' headers, -1 for unknown, and the 21-field extended
// form of the MetaCentrum trace whose PBS spec "1:ppn=64:x86_64:cl_zewura#excl"
// gives nodes, CPUs per node, node properties and exclusivity) or from the
// seed-001 generator (Generate: workloads 1-6 and 5'/6' built from job
// types A-E, C' and D'). Cluster presets are the seed-001 1024-node tree
// (selectnodes.Seed001), a cluster sized from an SWF header or a .machines
// file, or any slurm.conf through selectnodes.FromConfig.
//
// Run submits each job at its submit time, ends it after its run time (or
// at its time limit), and runs a scheduling pass — Schedule, and Backfill
// when asked (planning at most 100 jobs a pass by default, Slurm's
// bf_max_job_test) — after every batch of simultaneous events and,
// optionally, at a fixed interval. Results carry the metrics of seed 001 Table 4 (mean
// and standard deviation of the lowest-level common switch and of the
// spread) and the usual ones: utilization as seed 001 defines it (the
// theoretical run time, core-seconds over the system's cores, divided by
// the observed one from first submission to last completion), busy-fraction
// utilization, wait time mean, median and 95th percentile, bounded
// slowdown (10 s bound) and makespan.
//
// Like every library package, sim reads no clock and starts no goroutines:
// the same workload, cluster and options give the same result. Wall-clock
// throughput is measured by the caller (cmd/hpcsched does).
package sim
