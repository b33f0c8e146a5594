package selectnodes_test

import (
	"fmt"
	"time"

	"github.com/bits-and-blooms/bitset"
	"github.com/hpcsched/hpcsched/selectnodes"
)

// A planner that reads the load at every plan keeps its own buffers:
// IdleInto copies the idle nodes into a bitset it reuses, and
// AppendFreeCPUsOn reads a placement's nodes' free CPUs before it starts.
func ExampleCluster_IdleInto() {
	nodes := []selectnodes.Node{{Name: "a", CPUs: 4}, {Name: "b", CPUs: 4}, {Name: "c", CPUs: 4}}
	c, err := selectnodes.New(nodes, []selectnodes.Partition{{Name: "p", Nodes: []string{"a", "b", "c"}, Default: true}},
		selectnodes.WithSelector(selectnodes.ConsRes{}))
	if err != nil {
		panic(err)
	}
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	p, ok := c.Probe(&selectnodes.Request{CPUs: 6}, selectnodes.RunNow)
	if !ok {
		panic("no fit")
	}
	fmt.Println("free before the start:", c.AppendFreeCPUsOn(nil, p))
	if err := c.AllocateSelected(1, p, now, now.Add(time.Hour)); err != nil {
		panic(err)
	}
	idle := new(bitset.BitSet) // grown to the cluster's size by the first call
	c.IdleInto(idle)
	fmt.Println("idle:", c.Names(idle), "free on the job's nodes:", c.AppendFreeCPUsOn(nil, p))
	// Output:
	// free before the start: [4 4]
	// idle: [c] free on the job's nodes: [0 2]
}
