package main

import (
	"fmt"
	"time"

	"github.com/hpcsched/hpcsched/queue"
	"github.com/hpcsched/hpcsched/selectnodes"
)

func main() {
	var nodes []selectnodes.Node
	var names []string
	for i := 1; i <= 8; i++ {
		nodes = append(nodes, selectnodes.Node{Name: fmt.Sprintf("n%d", i), CPUs: 32, Weight: 1})
		names = append(names, nodes[i-1].Name)
	}
	cluster, err := selectnodes.New(nodes, []selectnodes.Partition{{Name: "batch", Nodes: names, Default: true}})
	if err != nil {
		panic(err)
	}
	s := queue.New(cluster)
	now := time.Date(2026, 11, 22, 9, 0, 0, 0, time.UTC)
	for _, n := range []int{6, 4, 2} {
		spec := queue.Spec{Name: fmt.Sprintf("%d-node job", n), Request: selectnodes.Request{MinNodes: n}, TimeLimit: time.Hour}
		if _, err := s.Submit(spec, now); err != nil { // a request no node could ever hold is refused here
			panic(err)
		}
	}
	started := s.Schedule(now)    // the 6-node job runs; the 4-node job must wait
	more, resv := s.Backfill(now) // the 2-node job fits without delaying it
	for _, st := range append(started, more...) {
		fmt.Println("started job", st.Job, "on", st.Nodes)
	}
	fmt.Println("job", resv[0].Job, "reserved for", resv[0].Start.Format("15:04"))
}
