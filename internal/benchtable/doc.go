// Command benchtable prints the headline table of the hot paths as
// `make bench` runs it: SelectNodes of one node on 100,000 idle
// nodes as a ratio to the bitmap floor measured in the same process, a
// schedule pass, whole-queue backfill, WillRun for 75% of the cluster and
// the allocations of Allocate + Release. It builds each package's test
// binary once, runs the benchmarks with `-test.bench` (the names
// BENCHMARKS.md records) and reads their output lines; the ratio is taken
// per run, and the table gives the median and the range over -runs runs,
// because other processes on a shared machine move single figures by
// tens of percent. Where the benchmarks report cpu-ns/op (the process's
// CPU time per operation, collector included), the ratio of CPU times is
// printed beside the wall-clock one: on a loaded machine it moves far
// less.
//
// With -grid (`make bench-grid`) it prints instead the scale grids of
// queue's BenchmarkBackfillGrid and BenchmarkScheduleGrid (sub-benchmarks
// pending=P/nodes=N) as P x N tables and fits t = c * P^a * N^b to each by
// least squares on the logarithms, so the growth exponents are tracked
// from commit to commit.
package main
