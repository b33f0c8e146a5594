package topology_test

import (
	"fmt"
	"strings"

	"github.com/bits-and-blooms/bitset"
	"github.com/hpcsched/hpcsched/hostlist"
	"github.com/hpcsched/hpcsched/slurmconf"
	"github.com/hpcsched/hpcsched/topology"
)

func ExampleTree_Fit() {
	nodes, _ := hostlist.Expand("tux[0-11]")
	conf, _ := slurmconf.ParseTopology(strings.NewReader(`
SwitchName=s0 Nodes=tux[0-3]
SwitchName=s1 Nodes=tux[4-7]
SwitchName=s2 Nodes=tux[8-11]
SwitchName=top Switches=s[0-2]
`))
	tree, err := topology.FromConfig(conf, nodes)
	if err != nil {
		panic(err)
	}
	avail := bitset.New(12).SetAll()
	avail.Clear(0).Clear(1) // s0 has 2 free, s1 and s2 have 4
	for _, n := range []int{2, 3, 6} {
		got, _ := tree.Fit(avail, topology.Request{Nodes: n})
		b := bitset.New(12)
		for _, i := range got {
			b.Set(uint(i))
		}
		level, _ := tree.LowestCommonLevel(b)
		fmt.Printf("%d nodes: %v, level %d, spread %d\n", n, got, level, topology.Spread(b))
	}
	// Output:
	// 2 nodes: [2 3], level 0, spread 1
	// 3 nodes: [4 5 6], level 0, spread 2
	// 6 nodes: [2 3 4 5 6 7], level 1, spread 5
}

func ExampleSeed001() {
	names, tree := topology.Seed001()
	fmt.Println(len(names), len(tree.Switches), "switches, top level", tree.MaxLevel)
	// Output: 1024 37 switches, top level 2
}
