package auction

import "slices"

// windowsPerRun is how many stretches of one run of eligible nodes become
// candidate bids: the best-fitting ones (least spare cores).
const windowsPerRun = 3

// jobCandidates lists up to limit candidate bids of job over the nodesets:
// for each GPU count of its range, each run of eligible nodes of each
// nodeset (enough free GPUs, at least one free core) gives its
// best-fitting stretches.
func jobCandidates(job WindowJob, load Load, limit int, share *bidShare) []candidate {
	if job.Eligible != nil && job.Eligible.None() {
		return nil // no node: no run
	}
	sets := share.setsOf(job.Span)
	var out []candidate
	seen := map[[4]int]bool{}
	group := share.of(&job)
	room := group.room
	perCount := (limit + job.GPUsMax - job.GPUsMin) / (job.GPUsMax - job.GPUsMin + 1) // each GPU count its share
	for g := job.GPUsMax; g >= job.GPUsMin; g-- {
		stop := min(limit, len(out)+perCount)
	scan:
		for k := range sets {
			set := &sets[k]
			runs, rooms := group.runs(&job, k, set.nodes, load, g)
			for x, run := range runs {
				if rooms[x] < job.Cores {
					continue // no stretch of the run holds the job (bestWindows finds none)
				}
				for _, w := range bestWindows(job, run, room) {
					key := [4]int{run[w[0]], run[w[1]-1], g, job.Cores}
					if seen[key] {
						continue
					}
					seen[key] = true
					out = append(out, newCandidate(job, run[w[0]:w[1]], room, set.level, g, share.uses))
					if len(out) >= stop {
						break scan
					}
				}
			}
		}
	}
	return out
}

// room is how many of node n's free cores the job may take: all of them,
// or as many as its Room allows (none when it takes whole nodes and n's
// are not all free).
func (job *WindowJob) room(n int, load Load) int {
	c := load.CPUs[n]
	if job.Room == nil {
		return c
	}
	r := job.Room(n)
	if job.Whole && r > c {
		return 0
	}
	return max(0, min(c, r))
}

// rooms is room for every node the job may use (0 for the others): bid
// generation reads a node's room many times over (in the runs of each
// switch level, each GPU count, each stretch).
func (job *WindowJob) rooms(load Load) []int {
	room := make([]int, len(load.CPUs))
	if job.Eligible == nil {
		for n := range room {
			room[n] = job.room(n, load)
		}
		return room
	}
	for u, ok := job.Eligible.NextSet(0); ok && int(u) < len(room); u, ok = job.Eligible.NextSet(u + 1) {
		room[u] = job.room(int(u), load)
	}
	return room
}

// eligibleRuns splits nodes into runs of nodes with room for a core of
// the job and g free GPUs (and in job.Eligible, when not nil), with the
// room on each run in all. The nodes are a nodeset of the job's span.
func eligibleRuns(job *WindowJob, nodes []int, load Load, room []int, g int) ([][]int, []int) {
	var runs [][]int
	var rooms []int
	start, sum := -1, 0
	mask := job.Eligible
	for k, n := range nodes {
		ok := load.GPUs[n] >= g && (mask == nil || mask.Test(uint(n))) && room[n] > 0
		if ok && start < 0 {
			start, sum = k, 0
		}
		if ok {
			sum += room[n]
		}
		if !ok && start >= 0 {
			runs, rooms = append(runs, nodes[start:k]), append(rooms, sum)
			start = -1
		}
	}
	if start >= 0 {
		runs, rooms = append(runs, nodes[start:]), append(rooms, sum)
	}
	return runs, rooms
}

// bestWindows returns [start, end) stretches of run that can hold the job
// (exactly job.Nodes nodes, or any number for type A), the windowsPerRun
// with the fewest spare cores, the earlier first among equals; room is
// the job's room on each node. The best are kept as the scan goes (a
// stable sort of every stretch by spare cores, cut to windowsPerRun,
// chose the same at a sort of all of them per run).
func bestWindows(job WindowJob, run []int, room []int) [][2]int {
	var best [windowsPerRun]window
	kept := 0
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
					sum += room[n]
				}
			} else {
				sum += room[run[hi-1]] - room[run[lo-1]]
			}
		} else {
			if lo > 0 {
				sum -= room[run[lo-1]]
			}
			for hi < len(run) && sum < job.Cores {
				sum += room[run[hi]]
				hi++
			}
		}
		if sum >= job.Cores {
			kept = keepBest(&best, kept, window{lo, hi, sum - job.Cores})
		}
	}
	out := make([][2]int, kept)
	for k := range out {
		out[k] = [2]int{best[k].lo, best[k].hi}
	}
	return out
}

// window is a stretch [lo, hi) of a run and its spare cores.
type window struct{ lo, hi, spare int }

// keepBest puts w among the kept best (fewest spare cores; w comes after
// every kept window, so it goes behind those of as many) and returns how
// many are kept.
func keepBest(best *[windowsPerRun]window, kept int, w window) int {
	at := kept
	for at > 0 && best[at-1].spare > w.spare {
		at--
	}
	if at >= windowsPerRun {
		return kept
	}
	kept = min(kept+1, windowsPerRun)
	copy(best[at+1:kept], best[at:kept-1])
	best[at] = w
	return kept
}

// spread lays the job's cores on nodes: with a node count, one core each
// first, then filling in order; for type A, filling in order. Each node
// gets g GPUs. A job taking whole nodes takes its room on each. It
// returns the uses and their cores in all.
func spread(job WindowJob, nodes []int, room []int, g int, arena *useArena) ([]Use, int) {
	uses := arena.take(len(nodes)) // every field set below
	left := job.Cores
	if job.Whole {
		for k, n := range nodes {
			uses[k] = Use{Node: n, GPUs: g, Cores: room[n]}
			left -= uses[k].Cores
		}
		if job.Nodes == 0 { // type A: the stretch is the fewest whole nodes
			for k := len(uses) - 1; k > 0 && left+uses[k].Cores <= 0; k-- {
				left += uses[k].Cores
				uses = uses[:k]
			}
		}
		return uses, job.Cores - left
	}
	base := 0 // with a node count, a core on each node first
	if job.Nodes > 0 {
		base = 1
		left -= len(nodes)
	}
	for k, n := range nodes { // then the rest filling in order, in one walk
		add := min(left, room[n]-base)
		uses[k] = Use{Node: n, GPUs: g, Cores: base + add}
		left -= add
	}
	if job.Nodes == 0 { // type A: drop nodes the fill did not reach
		uses = slices.DeleteFunc(uses, func(u Use) bool { return u.Cores == 0 })
	}
	return uses, job.Cores - left
}
