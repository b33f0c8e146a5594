package selectnodes_test

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/hpcsched/hpcsched/features"
	"github.com/hpcsched/hpcsched/selectnodes"
	"github.com/hpcsched/hpcsched/slurmconf"
)

// The count-feature example of the Novotný thesis §3.3, in both modes.
func Example_countFeatures() {
	cfg, err := slurmconf.Parse(strings.NewReader(`
NodeName=nymfe[71-72] Feature=A
NodeName=nymfe[73-74] Feature=A,B
PartitionName=debug Nodes=nymfe[71-74] Default=YES
`))
	if err != nil {
		panic(err)
	}
	constraint, _ := features.Parse("A*1&B*2", features.Legacy())
	req := &selectnodes.Request{MinNodes: 2, Features: constraint}

	correct, _ := selectnodes.FromConfig(cfg)
	p, err := correct.SelectNodes(req, selectnodes.RunNow)
	fmt.Println("default:", p.Hostlist(), err)

	slurm, _ := selectnodes.FromConfig(cfg, selectnodes.WithSlurmCompat())
	_, err = slurm.SelectNodes(req, selectnodes.RunNow)
	fmt.Println("slurm 22.05:", errors.Is(err, selectnodes.ErrNodeConfig), err)
	// Output:
	// default: nymfe[73-74] <nil>
	// slurm 22.05: true requested node configuration is not available: Slurm 22.05 satisfies the counted terms A*1&B*2 one after another and keeps each term's nodes for the next: A*1 took nymfe71, and B*2 cannot be met with that node among its nodes. The answer depends on the order of the NodeName lines; [A*1&B*2] lets each term pick its own nodes, and the default mode (no Slurm compatibility) finds nodes for the terms as written
}

func ExampleCluster_SelectNodes() {
	nodes := []selectnodes.Node{
		{Name: "n1", CPUs: 16, Weight: 1}, {Name: "n2", CPUs: 16, Weight: 1},
		{Name: "n3", CPUs: 16, Weight: 1}, {Name: "n4", CPUs: 16, Weight: 1},
	}
	c, err := selectnodes.New(nodes, []selectnodes.Partition{{Name: "batch", Nodes: []string{"n1", "n2", "n3", "n4"}, Default: true}})
	if err != nil {
		panic(err)
	}
	now := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	p, _ := c.SelectNodes(&selectnodes.Request{CPUs: 40}, selectnodes.RunNow)
	fmt.Println(p.Hostlist(), p.TotalCPUs)
	_ = c.Allocate(1, p, now, now.Add(2*time.Hour))

	_, err = c.SelectNodes(&selectnodes.Request{MinNodes: 2}, selectnodes.RunNow)
	fmt.Println(selectnodes.ClassName(err))
	p, _ = c.SelectNodes(&selectnodes.Request{MinNodes: 2}, selectnodes.WillRun)
	fmt.Println(p.Hostlist(), p.Start.Format(time.Kitchen))
	// Output:
	// n[1-3] 48
	// busy
	// n[1-2] 2:00PM
}

func ExampleCluster_Explain() {
	cfg, _ := slurmconf.Parse(strings.NewReader(`
NodeName=small[1-4] CPUs=8 RealMemory=16000
NodeName=big[1-2] CPUs=64 RealMemory=512000 Weight=10
PartitionName=all Nodes=ALL Default=YES
`))
	c, _ := selectnodes.FromConfig(cfg)
	ex := c.Explain(&selectnodes.Request{MinNodes: 3, MinMemoryPerNode: 100000}, selectnodes.RunNow)
	fmt.Print(ex)
	// Output:
	// partition all, mode RunNow, 3..unlimited nodes (desired 3)
	//   node set small[1-4] (weight 1, 4 nodes): 0 candidates, 0 available, 0 usable now; memory removed 4 (RealMemory 16000 < 100000)
	//   node set big[1-2] (weight 10, 2 nodes): 2 candidates, 2 available, 2 usable now
	//   partition all is up; its access, memory and time limits allow the job
	//   2 candidate nodes in 1 node sets
	//   all node sets: node_config: the 2 nodes that qualify cannot give 3..unlimited nodes (desired 3) even if all were idle and up
	// result: node_config (requested node configuration is not available): the 2 nodes that qualify cannot give 3..unlimited nodes (desired 3) even if all were idle and up
}

func ExampleMayShare() {
	fmt.Println(selectnodes.MayShare(selectnodes.ShareYes, selectnodes.ShareOversubscribe))
	fmt.Println(selectnodes.MayShare(selectnodes.ShareYes, selectnodes.ShareDefault))
	fmt.Println(selectnodes.MayShare(selectnodes.ShareForce, selectnodes.ShareExclusiveJob))
	// Output:
	// true
	// false
	// true
}
