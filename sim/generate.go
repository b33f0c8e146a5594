package sim

import (
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/hpcsched/hpcsched/queue"
	"github.com/hpcsched/hpcsched/selectnodes"
)

// Seed-001 job types (Table 2): A only cores; B cores on nodes; C, D, E
// also 1, 2, 3 GPUs per node; C' and D' GPU ranges 1-3 and 2-3.
var jobTypes = map[string][]selectnodes.GRESRequest{
	"A": nil, "B": nil,
	"C": {{Name: "gpu", Min: 1, Max: 1}}, "C'": {{Name: "gpu", Min: 1, Max: 3}},
	"D": {{Name: "gpu", Min: 2, Max: 2}}, "D'": {{Name: "gpu", Min: 2, Max: 3}},
	"E": {{Name: "gpu", Min: 3, Max: 3}},
}

// Seed-001 workloads (Table 3): job count and job types, drawn equally.
var workloads = map[string]struct {
	jobs  int
	types []string
}{
	"1": {350, []string{"A"}}, "2": {2095, []string{"A"}},
	"3": {350, []string{"B"}}, "4": {2095, []string{"B"}},
	"5": {350, []string{"A", "B", "C", "D", "E"}}, "6": {2095, []string{"A", "B", "C", "D", "E"}},
	"5'": {350, []string{"A", "B", "C'", "D'", "E"}}, "6'": {2095, []string{"A", "B", "C'", "D'", "E"}},
}

// WorkloadIDs lists the seed-001 workloads Generate knows.
func WorkloadIDs() []string { return []string{"1", "2", "3", "4", "5", "6", "5'", "6'"} }

// Generate makes seed-001 workload id ("1".."6", "5'", "6'") for a system
// of nodes nodes with coresPerNode cores each, from seed. As the seed
// states: run times uniform in 30-300 s; cores x uniform in 1..all cores;
// nodes y uniform in 1..all nodes. Two choices the seed leaves open are
// made explicit: every job is submitted at time 0 (the emulation queued
// the workload at once), and a type B-E job's cores are kept within what
// its y nodes hold (y <= x <= coresPerNode*y). Time limits equal run times
// rounded up to a second, so backfill sees exact estimates.
func Generate(id string, nodes, coresPerNode int, seed uint64) (*Workload, error) {
	spec, ok := workloads[id]
	if !ok {
		return nil, fmt.Errorf("sim: unknown seed-001 workload %q (known: %v)", id, WorkloadIDs())
	}
	if nodes < 1 || coresPerNode < 1 {
		return nil, fmt.Errorf("sim: a system needs nodes and cores")
	}
	r := rand.New(rand.NewPCG(seed, uint64(len(id))*7919+uint64(id[0])))
	total := nodes * coresPerNode
	w := &Workload{Name: "aucsched:" + id}
	for i := 0; i < spec.jobs; i++ {
		typ := spec.types[i%len(spec.types)]
		run := time.Duration(30+r.IntN(271)) * time.Second
		x := 1 + r.IntN(total)
		req := selectnodes.Request{CPUs: x, GRES: jobTypes[typ]}
		if typ != "A" {
			y := 1 + r.IntN(nodes)
			x = min(max(x, y), coresPerNode*y)
			req = selectnodes.Request{CPUs: x, MinNodes: y, MaxNodes: y, GRES: jobTypes[typ]}
		}
		w.Jobs = append(w.Jobs, Job{Run: run, Cores: x, Spec: queue.Spec{
			Name: fmt.Sprintf("%s%d", typ, i), User: "u", Request: req, TimeLimit: run}})
	}
	return w, nil
}
