// Command replay runs a Standard Workload Format trace through the
// simulator's library API (package sim, without the CLI) with EASY
// backfill on a cluster sized from the trace's header, and prints the
// run's main metrics. An optional second argument replays only the first
// jobs:
//
//	go run ./examples/replay ../shared/data/traces/KTH-SP2-1996-2.1-cln.swf 2000
//
//	KTH-SP2-1996-2.1-cln.swf: 2000 jobs on 100 nodes, 2000 started, 0 rejected
//	utilization 61.7%, mean wait 1h36m42.571s, bounded slowdown 88.69, makespan 574h53m21s
//
// Utilization is the work's core-seconds over the nodes' cores, divided
// by the time from first submission to last completion; the bounded
// slowdown is (wait + run) / max(run, 10 s), averaged over the jobs.
package main
