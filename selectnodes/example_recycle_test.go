package selectnodes_test

import (
	"fmt"
	"time"

	"github.com/hpcsched/hpcsched/selectnodes"
)

// A replay that reads each placement only as its job starts hands it back
// once the job has ended: the next start of as many nodes fills it instead
// of allocating a new one.
func ExampleCluster_Recycle() {
	nodes := []selectnodes.Node{{Name: "a", CPUs: 4}, {Name: "b", CPUs: 4}, {Name: "c", CPUs: 4}}
	c, err := selectnodes.New(nodes, []selectnodes.Partition{{Name: "p", Nodes: []string{"a", "b", "c"}, Default: true}})
	if err != nil {
		panic(err)
	}
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	first, _ := c.Probe(&selectnodes.Request{MinNodes: 2}, selectnodes.RunNow)
	if err := c.AllocateSelected(1, first, now, now.Add(time.Hour)); err != nil {
		panic(err)
	}
	fmt.Println("job 1 on", first.Hostlist(), "- recycled while it runs:", c.Recycle(first))
	if err := c.Release(1); err != nil {
		panic(err)
	}
	fmt.Println("recycled after its end:", c.Recycle(first))
	// first is the cluster's again: do not read it from here on
	second, _ := c.Probe(&selectnodes.Request{MinNodes: 2}, selectnodes.RunNow)
	fmt.Println("job 2 on", second.Hostlist(), "- the same memory:", second == first)
	// Output:
	// job 1 on a,b - recycled while it runs: false
	// recycled after its end: true
	// job 2 on a,b - the same memory: true
}
