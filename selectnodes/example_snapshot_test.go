package selectnodes_test

import (
	"fmt"
	"time"

	"github.com/hpcsched/hpcsched/selectnodes"
)

func exampleCluster() *selectnodes.Cluster {
	nodes := []selectnodes.Node{
		{Name: "g1", CPUs: 32, RealMemory: 128000, GRES: []selectnodes.GRES{{Name: "gpu", Type: "a100", Count: 4}}},
		{Name: "g2", CPUs: 32, RealMemory: 128000, GRES: []selectnodes.GRES{{Name: "gpu", Type: "a100", Count: 4}}},
	}
	c, err := selectnodes.New(nodes, []selectnodes.Partition{{Name: "gpu", Nodes: []string{"g1", "g2"}, Default: true}},
		selectnodes.WithSelector(selectnodes.ConsRes{}))
	if err != nil {
		panic(err)
	}
	return c
}

// An auction bid names exact per-node CPUs and GPUs; PlaceExact honours it
// or says which node and resource refuse it.
func ExampleCluster_PlaceExact() {
	c := exampleCluster()
	req := &selectnodes.Request{MinNodes: 2, CPUs: 24, GRES: []selectnodes.GRESRequest{{Name: "gpu", Min: 1, Max: 4}}}
	bid := []selectnodes.NodeUse{
		{Node: 0, CPUs: 16, Memory: 64000, GRES: []selectnodes.GRES{{Name: "gpu", Type: "a100", Count: 3}}},
		{Node: 1, CPUs: 8, Memory: 32000, GRES: []selectnodes.GRES{{Name: "gpu", Type: "a100", Count: 1}}},
	}
	p, err := c.PlaceExact(req, bid)
	fmt.Println(p.Hostlist(), p.TotalCPUs, p.Alloc[0].GRES[0].Count, err)

	bid[1].CPUs = 40
	_, err = c.PlaceExact(req, bid)
	fmt.Println(selectnodes.ClassName(err), err)
	// Output:
	// g[1-2] 24 3 <nil>
	// node_config requested node configuration is not available: node g2 has 32 CPUs, the layout gives 40
}

// A planner tries a placement on a snapshot and takes it back; the cluster
// never sees it, and the snapshot never sees later changes to the cluster.
func ExampleSnapshot_Simulate() {
	c := exampleCluster()
	now := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	s := c.Snapshot()
	whole := &selectnodes.Request{MinNodes: 2, Share: selectnodes.ShareExclusiveJob}
	p, _ := s.SelectNodes(whole, selectnodes.RunNow)
	revert, err := s.Simulate(1, p, now, now.Add(time.Hour))
	fmt.Println("simulated:", p.Hostlist(), err)

	w, _ := s.SelectNodes(&selectnodes.Request{}, selectnodes.WillRun)
	fmt.Println("next job could start at", w.Start.Format(time.Kitchen))
	revert()
	_ = c.SetNodeState("g1", selectnodes.NodeDown)
	fmt.Println("after revert:", s.Jobs(), "free CPUs on g1:", s.FreeCPUs(0), "state:", s.State(0))
	fmt.Println("cluster:", c.Running(), c.State(0))
	// Output:
	// simulated: g[1-2] <nil>
	// next job could start at 1:00PM
	// after revert: [] free CPUs on g1: 32 state: UP
	// cluster: [] DOWN
}
