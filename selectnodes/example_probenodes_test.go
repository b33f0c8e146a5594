package selectnodes_test

import (
	"fmt"

	"github.com/hpcsched/hpcsched/selectnodes"
)

// A planner asking where a job would fit on an idle cluster needs only the
// nodes: ProbeNodes skips the per-node allocation records.
func ExampleCluster_ProbeNodes() {
	c, err := selectnodes.Seed001()
	if err != nil {
		panic(err)
	}
	p, ok := c.ProbeNodes(&selectnodes.Request{CPUs: 40}, selectnodes.TestOnly)
	fmt.Println(ok, p.Hostlist(), p.TotalCPUs, p.Alloc == nil)
	// Output: true node[0000-0002] 40 true
}
