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
