package auction_test

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/hpcsched/hpcsched/auction"
	"github.com/hpcsched/hpcsched/topology"
)

// Two jobs want node 0's 8 cores; the second can go to node 1 instead.
func ExampleSolve() {
	p := &auction.Problem{
		Alpha: 1,
		Nodes: []auction.Node{{CPUs: 8}, {CPUs: 8, GPUs: 2}},
		Jobs: []auction.Job{
			{ID: 1, Priority: 10, Bids: []auction.Bid{{Uses: []auction.Use{{Node: 0, Cores: 8}}, Cost: 1}}},
			{ID: 2, Priority: 9, Bids: []auction.Bid{
				{Uses: []auction.Use{{Node: 0, Cores: 6}}, Cost: 1},
				{Uses: []auction.Use{{Node: 1, Cores: 6, GPUs: 2}}, Cost: 2},
			}},
		},
	}
	sol, err := auction.Solve(context.Background(), p, auction.Options{})
	if err != nil {
		panic(err)
	}
	fmt.Println(sol.Selection, sol.Objective, sol.Optimal)
	// Output: [0 1] 16 true
}

// Bids for a window on the AUCSCHED3 paper's system with every node idle: leaf
// bids first, least contended first (leaf 0 is wanted by both jobs'
// candidates, so the first bids go elsewhere).
func ExampleGenerateBids() {
	_, tree := topology.Seed001()
	load := auction.Load{CPUs: make([]int, 1024), GPUs: make([]int, 1024), MaxGPUs: 3}
	for n := range load.CPUs {
		load.CPUs[n], load.GPUs[n] = 16, 3
	}
	window := []auction.WindowJob{
		{ID: 1, Priority: 20, Type: "C", Cores: 32, Nodes: 4, GPUsMin: 1, GPUsMax: 1},
		{ID: 2, Priority: 10, Type: "A", Cores: 100},
	}
	p, err := auction.GenerateBids(window, load, tree, auction.BidOptions{MaxBids: 2})
	if err != nil {
		panic(err)
	}
	for _, j := range p.Jobs {
		b := j.Bids[0]
		fmt.Printf("job %d: %d bids; first on %d nodes from node %d, level %d, cost %.4f\n", j.ID, len(j.Bids), len(b.Uses), b.Uses[0].Node, b.Level, b.Cost)
	}
	// Output:
	// job 1: 2 bids; first on 4 nodes from node 64, level 0, cost 0.6706
	// job 2: 2 bids; first on 7 nodes from node 65, level 0, cost 1.0068
}

// The LP form for CBC: cbc window.lp solve.
func ExampleWriteLP() {
	p, err := auction.ReadJSON(strings.NewReader(`{"alpha":1,"nodes":[{"cpus":8,"gpus":0}],
		"jobs":[{"id":1,"priority":10,"bids":[{"uses":[[0,8,0]],"cost":1}]},
		        {"id":2,"priority":9,"bids":[{"uses":[[0,6,0]],"cost":1}]}]}`))
	if err != nil {
		panic(err)
	}
	if err := auction.WriteLP(os.Stdout, p); err != nil {
		panic(err)
	}
	// Output:
	// \ auction window "": 2 jobs
	// Maximize
	//  obj: 9 x_0_0 + 8 x_1_0
	// Subject To
	//  one_0: 1 x_0_0 <= 1
	//  one_1: 1 x_1_0 <= 1
	//  cpu_0: 8 x_0_0 + 6 x_1_0 <= 8
	// Binary
	//  x_0_0
	//  x_1_0
	// End
}
