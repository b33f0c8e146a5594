package selectnodes_test

import (
	"fmt"

	"github.com/bits-and-blooms/bitset"
	"github.com/hpcsched/hpcsched/selectnodes"
)

// A planner probing many times keeps one bitset for the answers:
// ProbeInto writes the chosen nodes into it and builds no Placement.
func ExampleCluster_ProbeInto() {
	c, err := selectnodes.Seed001()
	if err != nil {
		panic(err)
	}
	nodes := bitset.New(uint(c.NodeCount()))
	for _, cpus := range []int{40, 16, 1 << 20} {
		ok := c.ProbeInto(&selectnodes.Request{CPUs: cpus}, selectnodes.TestOnly, nodes)
		fmt.Println(cpus, ok, nodes.Count())
	}
	// Output:
	// 40 true 3
	// 16 true 1
	// 1048576 false 0
}
