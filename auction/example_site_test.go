package auction_test

import (
	"fmt"
	"testing/fstest"
	"time"

	"github.com/hpcsched/hpcsched/auction"
	"github.com/hpcsched/hpcsched/queue"
	"github.com/hpcsched/hpcsched/selectnodes"
	"github.com/hpcsched/hpcsched/slurmconf"
)

// The auction as the planner of a site's queue: a slurm.conf that
// includes its node list and accounts memory (DefMemPerCPU=2800, as UB
// CCR's). Each winner gets its CPUs and the memory the partition's default
// gives them; the --exclusive job gets a whole idle node (its memory is
// not counted per job: the node is its own); the job asking a node range,
// which no bid expresses, is declined and placed by the queue's own
// selection in the same pass, after the winners: cpn03's memory left
// room for one CPU at 2800 MB.
func ExamplePlanner_site() {
	site := fstest.MapFS{
		"slurm.conf": {Data: []byte(`SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
Include nodes.conf
PartitionName=general Nodes=cpn[01-04] Default=YES DefMemPerCPU=2800 MaxTime=72:00:00
`)},
		"nodes.conf": {Data: []byte("NodeName=cpn[01-04] CPUs=8 RealMemory=64000\n")},
	}
	cfg, err := slurmconf.ParseFile(site, "slurm.conf")
	if err != nil {
		panic(err)
	}
	c, err := selectnodes.FromConfig(cfg)
	if err != nil {
		panic(err)
	}
	s := queue.New(c, queue.WithPlanner(&auction.Planner{Budget: -1, Solve: auction.ReplayOptions()}, 10))
	s.Subscribe(func(e queue.Event) {
		if e.Kind == queue.EventRefused {
			fmt.Println("refused:", e.Detail) // never, for the auction's decisions
		}
	})
	now := time.Date(2026, 11, 27, 9, 0, 0, 0, time.UTC)
	for _, r := range []selectnodes.Request{
		{CPUs: 6, MinNodes: 1, MaxNodes: 1},
		{CPUs: 2, MinNodes: 1, MaxNodes: 1, Share: selectnodes.ShareExclusiveJob},
		{CPUs: 4, MinNodes: 1, MaxNodes: 1, MinMemoryPerNode: 60000},
		{CPUs: 4, MinNodes: 1, MaxNodes: 2},
	} {
		if _, err := s.Submit(queue.Spec{Request: r, TimeLimit: time.Hour}, now); err != nil {
			panic(err)
		}
	}
	s.Schedule(now)
	for _, j := range s.Jobs() {
		fmt.Printf("job %d %s %s:", j.ID, j.State, j.Nodes())
		for _, a := range j.Placement.Alloc {
			fmt.Printf(" %d CPUs %d MB", a.CPUs, a.Memory)
		}
		fmt.Println()
	}
	// Output:
	// job 1 RUNNING cpn01: 6 CPUs 16800 MB
	// job 2 RUNNING cpn02: 8 CPUs 0 MB
	// job 3 RUNNING cpn03: 4 CPUs 60000 MB
	// job 4 RUNNING cpn[03-04]: 1 CPUs 2800 MB 3 CPUs 8400 MB
}
