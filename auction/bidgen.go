package auction

import (
	"cmp"
	"slices"

	"github.com/bits-and-blooms/bitset"
)

// windowsPerRun is how many stretches of one run of eligible nodes become
// candidate bids: the best-fitting ones (least spare cores).
const windowsPerRun = 3

// jobCandidates lists up to limit candidate bids of job over the nodesets:
// for each GPU count of its range, each run of eligible nodes of each
// nodeset (enough free GPUs, at least one free core) gives its
// best-fitting stretches.
func jobCandidates(job WindowJob, sets []nodeset, load Load, limit int) []candidate {
	var out []candidate
	seen := map[[4]int]bool{}
	perCount := (limit + job.GPUsMax - job.GPUsMin) / (job.GPUsMax - job.GPUsMin + 1) // each GPU count its share
	for g := job.GPUsMax; g >= job.GPUsMin; g-- {
		stop := min(limit, len(out)+perCount)
	scan:
		for _, set := range sets {
			for _, run := range eligibleRuns(set.nodes, load, g, job.Eligible) {
				for _, w := range bestWindows(job, run, load) {
					key := [4]int{run[w[0]], run[w[1]-1], g, job.Cores}
					if seen[key] {
						continue
					}
					seen[key] = true
					out = append(out, candidate{uses: spread(job, run[w[0]:w[1]], load, g), level: set.level, gpus: g})
					if len(out) >= stop {
						break scan
					}
				}
			}
		}
	}
	return out
}

// eligibleRuns splits nodes into runs of nodes with a free core and g free
// GPUs (and in mask, when not nil).
func eligibleRuns(nodes []int, load Load, g int, mask *bitset.BitSet) [][]int {
	var runs [][]int
	start := -1
	for k, n := range nodes {
		ok := load.CPUs[n] > 0 && load.GPUs[n] >= g && (mask == nil || mask.Test(uint(n)))
		if ok && start < 0 {
			start = k
		}
		if !ok && start >= 0 {
			runs = append(runs, nodes[start:k])
			start = -1
		}
	}
	if start >= 0 {
		runs = append(runs, nodes[start:])
	}
	return runs
}

// bestWindows returns [start, end) stretches of run that can hold the job
// (exactly job.Nodes nodes, or any number for type A), the windowsPerRun
// with the fewest spare cores.
func bestWindows(job WindowJob, run []int, load Load) [][2]int {
	type win struct{ lo, hi, spare int }
	var wins []win
	sum, hi := 0, 0
	for lo := range run {
		if job.Nodes > 0 {
			hi = lo + job.Nodes
			if hi > len(run) {
				break
			}
			if lo == 0 {
				sum = 0
				for _, n := range run[:hi] {
					sum += load.CPUs[n]
				}
			} else {
				sum += load.CPUs[run[hi-1]] - load.CPUs[run[lo-1]]
			}
		} else {
			if lo > 0 {
				sum -= load.CPUs[run[lo-1]]
			}
			for hi < len(run) && sum < job.Cores {
				sum += load.CPUs[run[hi]]
				hi++
			}
		}
		if sum >= job.Cores {
			wins = append(wins, win{lo, hi, sum - job.Cores})
		}
	}
	slices.SortStableFunc(wins, func(a, b win) int { return cmp.Compare(a.spare, b.spare) })
	out := make([][2]int, 0, windowsPerRun)
	for _, w := range wins[:min(windowsPerRun, len(wins))] {
		out = append(out, [2]int{w.lo, w.hi})
	}
	return out
}

// spread lays the job's cores on nodes: with a node count, one core each
// first, then filling in order; for type A, filling in order. Each node
// gets g GPUs.
func spread(job WindowJob, nodes []int, load Load, g int) []Use {
	uses := make([]Use, len(nodes))
	left := job.Cores
	for k, n := range nodes {
		uses[k] = Use{Node: n, GPUs: g}
		if job.Nodes > 0 {
			uses[k].Cores = 1
			left--
		}
	}
	for k, n := range nodes {
		add := min(left, load.CPUs[n]-uses[k].Cores)
		uses[k].Cores += add
		left -= add
	}
	if job.Nodes == 0 { // type A: drop nodes the fill did not reach
		uses = slices.DeleteFunc(uses, func(u Use) bool { return u.Cores == 0 })
	}
	return uses
}
