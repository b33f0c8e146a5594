package sim_test

import (
	"fmt"
	"strings"

	"github.com/hpcsched/hpcsched/sim"
)

// Replay a small SWF trace with EASY backfill: job 2 (all 4 processors)
// is the head, reserved for when job 1 ends at 100 s; job 3 (one
// processor, 50 s) ends before that and starts at once; job 4 asks for 8
// processors and can never run here.
func ExampleRun() {
	const trace = `; MaxNodes: 4
; MaxProcs: 4
1   0 0 100 3 -1 -1 3 100 -1 1 1 1 -1 -1 -1 -1 -1
2  10 0 100 4 -1 -1 4 100 -1 1 1 1 -1 -1 -1 -1 -1
3  20 0  50 1 -1 -1 1  50 -1 1 1 1 -1 -1 -1 -1 -1
4  30 0  10 8 -1 -1 8  60 -1 1 1 1 -1 -1 -1 -1 -1
`
	tr, err := sim.ReadSWF(strings.NewReader(trace), sim.SWFOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	cluster, err := tr.ClusterFor(nil, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	res, err := sim.Run(cluster, tr.Workload("tiny", cluster), sim.Options{Backfill: sim.EASY})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(sim.PolicyLabel(res), "on", res.Cluster)
	fmt.Printf("started %d, rejected %d: %v\n", res.Started, res.Rejected, res.Unrunnable)
	fmt.Println("mean wait", res.Metrics.WaitMean)
	// Output:
	// FCFS + EASY backfill on 4 nodes, 4 cores
	// started 3, rejected 1: map[more CPUs than the cluster has:1]
	// mean wait 30s
}

func ExampleParseBackfillMode() {
	for _, s := range []string{"easy", "Conservative", "none", "sometimes"} {
		m, err := sim.ParseBackfillMode(s)
		fmt.Println(m, err)
	}
	// Output:
	// easy <nil>
	// conservative <nil>
	// none <nil>
	// none sim: unknown backfill "sometimes" (none, conservative, easy): invalid option
}

// Stream a trace: the replay reads each job when its submit time comes
// and hands each final record to OnRecord, so memory follows the queue,
// not the trace. The cluster comes from the header (an extended trace's
// would come from the whole trace: see NewTraceSource). A source is used
// up by its run; a second run needs a new reader and source.
func ExampleRunSource() {
	const trace = `; MaxNodes: 2
; MaxProcs: 2
1  0 0 100 2 -1 -1 2 100 -1 1 1 1 -1 -1 -1 -1 -1
2  5 0  50 1 -1 -1 1  60 -1 1 1 1 -1 -1 -1 -1 -1
3  6 0  -1 1 -1 -1 1  60 -1 1 1 1 -1 -1 -1 -1 -1
`
	r, err := sim.NewSWFReader(strings.NewReader(trace), sim.SWFOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	cluster, err := r.Header().ClusterFor(nil, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	src := sim.NewTraceSource(r, cluster, sim.Conventions{}, 0)
	res, err := sim.RunSource(cluster, "tiny", src, sim.Options{OnRecord: func(rec sim.Record) {
		fmt.Println(rec.Name, "waited", rec.Start.Sub(rec.Submit))
	}})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(res.Jobs, "jobs; left out:", src.Skipped())
	_, err = sim.RunSource(cluster, "again", src, sim.Options{})
	fmt.Println(err != nil)
	// Output:
	// swf1 waited 0s
	// swf2 waited 1m35s
	// 2 jobs; left out: map[unknown run time:1]
	// true
}
