package sim

import (
	"testing"

	"github.com/hpcsched/hpcsched/selectnodes"
)

// coare loads DOST-ASTI COARE (19,760 jobs on 24 nodes of 72 cores): jobs
// ask for cores, so every start is a consumable-resources selection.
func coare(b *testing.B) func() (*selectnodes.Cluster, *Workload) {
	return traceLoader(b, "DOST-ASTI_COARE-Saliksik-2020-cln.swf", "coare")
}

// BenchmarkReplayCores times replays of a trace whose jobs share nodes by
// cores, where a start selects cores rather than whole nodes.
func BenchmarkReplayCores(b *testing.B) {
	replayBothBackfills(b, "trace=COARE/jobs=19760/nodes=24", coare)
}

// hpc2n loads the HPC2N subset (3,171 jobs on 240 one-CPU nodes).
func hpc2n(b *testing.B) func() (*selectnodes.Cluster, *Workload) {
	return traceLoader(b, "Alea-hpc2n-subset.swf", "hpc2n")
}

// BenchmarkReplayHPC2N times replays of a short trace with a long queue.
func BenchmarkReplayHPC2N(b *testing.B) {
	replayBothBackfills(b, "trace=HPC2N/jobs=3171/nodes=240", hpc2n)
}

// replayBothBackfills times a trace's replay under EASY (no depth limit)
// and under conservative backfill, as the sub-benchmarks name/easy and
// name/backfill.
func replayBothBackfills(b *testing.B, name string, load func(*testing.B) func() (*selectnodes.Cluster, *Workload)) {
	b.Run(name+"/easy", func(b *testing.B) {
		replay(b, load(b), Options{Backfill: EASY, BackfillDepth: -1})
	})
	b.Run(name+"/backfill", func(b *testing.B) {
		replay(b, load(b), Options{Backfill: Conservative})
	})
}
