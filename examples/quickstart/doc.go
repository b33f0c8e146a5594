// Command quickstart builds a cluster in code, submits jobs and schedules
// them: the library in under forty lines, with no input file.
//
//	go run ./examples/quickstart
//
// It makes eight 32-CPU nodes in one partition (selectnodes.New), submits
// a 6-, a 4- and a 2-node job of an hour each to a queue.Scheduler, runs
// one scheduling pass (Schedule) and one backfill pass (Backfill), and
// prints what started where and when the waiting job is reserved:
//
//	started job 1 on n[1-6]
//	started job 3 on n[7-8]
//	job 2 reserved for 10:00
//
// The 4-node job cannot start beside the 6-node one, so it gets a
// reservation at the hour; the 2-node job fits in the meantime without
// delaying it, which is what backfill is for.
package main
