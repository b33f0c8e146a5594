package sim

import (
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/hpcsched/hpcsched/queue"
	"github.com/hpcsched/hpcsched/selectnodes"
)

// jobGRES is the GPU request of a job type of the AUCSCHED3 paper (its Table 2): A only
// cores; B cores on nodes; C, D, E also 1, 2, 3 GPUs per node; C' and D'
// the ranges 1-3 and 2-3. A new slice each call: requests never share one.
func jobGRES(typ string) []selectnodes.GRESRequest {
	gpus := func(lo, hi int64) []selectnodes.GRESRequest {
		return []selectnodes.GRESRequest{{Name: "gpu", Min: lo, Max: hi}}
	}
	switch typ {
	case "C":
		return gpus(1, 1)
	case "C'":
		return gpus(1, 3)
	case "D":
		return gpus(2, 2)
	case "D'":
		return gpus(2, 3)
	case "E":
		return gpus(3, 3)
	}
	return nil
}

// workloadSpec is a workload of the AUCSCHED3 paper (its Table 3): its job count and job
// types, drawn in equal shares.
func workloadSpec(id string) (jobs int, types []string, ok bool) {
	mixed := []string{"A", "B", "C", "D", "E"}
	ranged := []string{"A", "B", "C'", "D'", "E"}
	switch id {
	case "1", "2":
		types = []string{"A"}
	case "3", "4":
		types = []string{"B"}
	case "5", "6":
		types = mixed
	case "5'", "6'":
		types = ranged
	default:
		return 0, nil, false
	}
	jobs = 350
	if id[0] == '2' || id[0] == '4' || id[0] == '6' {
		jobs = 2095
	}
	return jobs, types, true
}

// WorkloadIDs lists the AUCSCHED3 paper's workloads Generate knows.
func WorkloadIDs() []string { return []string{"1", "2", "3", "4", "5", "6", "5'", "6'"} }

// Generate makes the AUCSCHED3 paper's workload id ("1".."6", "5'", "6'") for a system
// of nodes nodes with coresPerNode cores each, from seed. As the paper
// states: run times uniform in 30-300 s; cores x uniform in 1..all cores;
// nodes y uniform in 1..all nodes. Two choices the paper leaves open are
// made explicit: every job is submitted at time 0 (the emulation queued
// the workload at once), and a type B-E job's cores are kept within what
// its y nodes hold (y <= x <= coresPerNode*y). Time limits equal run times
// rounded up to a second, so backfill sees exact estimates.
func Generate(id string, nodes, coresPerNode int, seed uint64) (*Workload, error) {
	njobs, types, ok := workloadSpec(id)
	if !ok {
		return nil, fmt.Errorf("sim: unknown AUCSCHED3 workload %q (known: %v)", id, WorkloadIDs())
	}
	if nodes < 1 || coresPerNode < 1 {
		return nil, fmt.Errorf("sim: a system needs at least one node and one core a node, not %d nodes of %d cores: %w", nodes, coresPerNode, ErrOption)
	}
	if nodes > MaxClusterNodes || coresPerNode > maxSWFCount/nodes {
		// the draws below are uniform in 1..nodes*coresPerNode: keep the
		// product an int32 so it can neither overflow nor reach IntN <= 0
		return nil, fmt.Errorf("sim: %d nodes of %d cores is over the generator's budget of %d cores in all: %w",
			nodes, coresPerNode, maxSWFCount, ErrBudget)
	}
	r := rand.New(rand.NewPCG(seed, uint64(len(id))*7919+uint64(id[0])))
	total := nodes * coresPerNode
	w := &Workload{Name: "aucsched:" + id}
	for i := 0; i < njobs; i++ {
		typ := types[i%len(types)]
		run := time.Duration(30+r.IntN(271)) * time.Second
		x := 1 + r.IntN(total)
		req := selectnodes.Request{CPUs: x, GRES: jobGRES(typ)}
		if typ != "A" {
			y := 1 + r.IntN(nodes)
			x = min(max(x, y), coresPerNode*y)
			req = selectnodes.Request{CPUs: x, MinNodes: y, MaxNodes: y, GRES: jobGRES(typ)}
		}
		w.Jobs = append(w.Jobs, Job{Run: run, Cores: x, Spec: queue.Spec{
			Name: fmt.Sprintf("%s%d", typ, i), User: "u", Request: req, TimeLimit: run}})
	}
	return w, nil
}
