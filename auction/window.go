package auction

import (
	"fmt"
	"math/rand/v2"
	"slices"

	"github.com/hpcsched/hpcsched/topology"
)

// WindowSpec describes a synthetic window on the AUCSCHED3 paper's system (1,024
// nodes of 16 cores and 3 GPUs, 32 leaves, 4 middle switches, a root).
type WindowSpec struct {
	Jobs int    // jobs in the window
	Bids int    // bids per job at most (BidOptions.MaxBids); Jobs*Bids at most MaxBids
	Seed uint64 // everything random comes from it
	// Ranges gives type C and D jobs the GPU ranges 1-3 and 2-3 (workload
	// 5' of the AUCSCHED3 paper) instead of 1 and 2.
	Ranges bool
}

// GenerateWindow makes a window for tests, benchmarks and `hpcsched
// auction gen`: the node line is cut into stretches of 8-64 nodes that are
// busy, idle or partly free (about a third of cores and GPUs free), jobs
// are of types A-E (workload 5: 20% each) with distinct priorities, sized
// so the window asks for about twice the free cores, and GenerateBids makes
// their bids.
func GenerateWindow(spec WindowSpec) (*Problem, error) {
	if spec.Jobs <= 0 || spec.Jobs > MaxJobs || spec.Bids <= 0 || spec.Bids > MaxBidsPerJob {
		return nil, &Error{Path: "spec", Err: ErrInvalid, Msg: fmt.Sprintf("%d jobs x %d bids out of range", spec.Jobs, spec.Bids)}
	}
	// Every job may get Bids bids: a spec that can pass MaxBids is refused
	// before anything is made, where the window's validation would refuse
	// it only once seconds and hundreds of megabytes had gone into it.
	if spec.Jobs*spec.Bids > MaxBids {
		return nil, &Error{Path: "spec", Err: ErrBudget, Msg: fmt.Sprintf("%d jobs x %d bids may pass the budget of %d bids", spec.Jobs, spec.Bids, MaxBids)}
	}
	rng := rand.New(rand.NewPCG(spec.Seed, 0x5eed001))
	_, tree := topology.Seed001()
	load := seed001Load(rng, tree.NodeCount())
	free := 0
	for _, c := range load.CPUs {
		free += c
	}
	window := make([]WindowJob, spec.Jobs)
	prios := rng.Perm(10 * spec.Jobs)[:spec.Jobs]
	slices.Sort(prios)
	slices.Reverse(prios)
	mean := max(1, 2*free/spec.Jobs)
	for k := range window {
		j := WindowJob{ID: int64(k + 1), Priority: int64(1000 + prios[k]), Type: string(rune('A' + rng.IntN(5)))}
		j.Cores = 1 + rng.IntN(2*mean)
		if j.Type != "A" {
			lo := (j.Cores + 15) / 16
			j.Nodes = min(lo+rng.IntN(j.Cores-lo+1), tree.NodeCount())
			j.Cores = min(j.Cores, 16*j.Nodes)
		}
		switch j.Type {
		case "C":
			j.GPUsMin, j.GPUsMax = 1, 1
			if spec.Ranges {
				j.GPUsMax = 3
			}
		case "D":
			j.GPUsMin, j.GPUsMax = 2, 2
			if spec.Ranges {
				j.GPUsMax = 3
			}
		case "E":
			j.GPUsMin, j.GPUsMax = 3, 3
		}
		window[k] = j
	}
	p, err := GenerateBids(window, load, tree, BidOptions{MaxBids: spec.Bids})
	if err != nil {
		return nil, err
	}
	p.Name = fmt.Sprintf("gen_J%d_B%d_s%d", spec.Jobs, spec.Bids, spec.Seed)
	return p, nil
}

// seed001Load cuts the node line into busy, idle and partly free stretches.
func seed001Load(rng *rand.Rand, nodes int) Load {
	load := Load{CPUs: make([]int, nodes), GPUs: make([]int, nodes), MaxGPUs: 3}
	for n := 0; n < nodes; {
		length := min(8+rng.IntN(57), nodes-n)
		kind := rng.IntN(20) // 9 busy, 4 idle, 7 partly free
		for i := n; i < n+length; i++ {
			switch {
			case kind < 9:
			case kind < 13:
				load.CPUs[i], load.GPUs[i] = 16, 3
			default:
				load.CPUs[i], load.GPUs[i] = rng.IntN(17), rng.IntN(4)
			}
		}
		n += length
	}
	return load
}
