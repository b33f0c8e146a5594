package selectnodes_test

import (
	"fmt"

	"github.com/hpcsched/hpcsched/selectnodes"
)

// A Placement lists its nodes; NodeSet builds a cluster-sized bitmap only
// for a caller that wants one.
func ExamplePlacement_All() {
	var nodes []selectnodes.Node
	var names []string
	for i := range 8 {
		nodes = append(nodes, selectnodes.Node{Name: fmt.Sprintf("n%d", i), CPUs: 4, Weight: int64(8 - i)})
		names = append(names, nodes[i].Name)
	}
	c, err := selectnodes.New(nodes, []selectnodes.Partition{{Name: "batch", Nodes: names, Default: true}})
	if err != nil {
		panic(err)
	}
	p, _ := c.SelectNodes(&selectnodes.Request{MinNodes: 3}, selectnodes.RunNow)
	for i := range p.All() {
		fmt.Print(i, " ")
	}
	fmt.Println(p.NodeCount(), p.HasNode(7), p.HasNode(0))
	set := p.NodeSet()
	fmt.Println(set.Len(), set.String())
	// Output:
	// 5 6 7 3 true false
	// 8 {5,6,7}
}
