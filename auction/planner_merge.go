package auction

import "slices"

// mergeNodes is p with its nodes merged where the constraints cannot
// tell them apart: nodes of the same free cores and GPUs that every bid
// of the window uses alike (the same bids, the same cores and GPUs each)
// have the same rows (3) and (4), so one row of each stands for all of
// them, and nodes no bid uses have none at all. The jobs, bids, costs,
// levels and Alpha are p's, in p's order, so a selection of the merged
// problem is a selection of p with the same objective, and it is
// feasible in one exactly when it is feasible in the other.
//
// A window's bids are stretches of the same runs of nodes, so many of a
// stretch's nodes are used alike: in a replay the merged problem has a
// few uses a bid where p has hundreds, and the solver's work (pricing,
// conflicts, local search) shrinks with its uses. p is not changed; nil
// when merging would gain nothing (no two used nodes alike) or p values
// bids by their cores (ValueByCores sums a bid's uses, which merging
// would change).
func mergeNodes(p *Problem) *Problem { return mergeNodesIn(p, nil) }

// mergeNodesIn is mergeNodes with the merged bids' uses from a (reset
// first), when it is not nil: the merged problem must then be dead
// before a hands its uses out again.
func mergeNodesIn(p *Problem, a *useArena) *Problem {
	if p.ValueByCores {
		return nil
	}
	class, reps := nodeClasses(p)
	if len(reps) == 0 || !anyMerged(class, reps) {
		return nil
	}
	q := &Problem{Name: p.Name, Params: p.Params, Alpha: p.Alpha, Nodes: make([]Node, len(reps)), Jobs: make([]Job, len(p.Jobs))}
	for c, n := range reps {
		q.Nodes[c] = p.Nodes[n]
	}
	// The merged bids' uses share blocks (each slice capped at its own),
	// rather than growing a slice a bid.
	if a == nil {
		a = &useArena{recycle: true}
	}
	a.reset()
	for j := range p.Jobs {
		job := p.Jobs[j]
		bids := make([]Bid, len(job.Bids))
		for i, b := range job.Bids {
			bids[i] = Bid{Cost: b.Cost, Level: b.Level}
			buf := a.room(len(b.Uses))
			for _, u := range b.Uses {
				if c := class[u.Node]; reps[c] == u.Node {
					buf = append(buf, Use{Node: int(c), Cores: u.Cores, GPUs: u.GPUs})
				}
			}
			if len(buf) > 0 {
				bids[i].Uses = a.keep(buf)
			}
		}
		job.Bids = bids
		q.Jobs[j] = job
	}
	return q
}

// anyMerged reports whether some class holds two nodes.
func anyMerged(class []int32, reps []int) bool {
	used := 0
	for _, c := range class {
		if c >= 0 {
			used++
		}
	}
	return used > len(reps)
}

// nodeClasses numbers the classes of the used nodes (nodes of the same
// capacity and the same uses), in the order of their first nodes:
// class[n] is node n's class (-1 when no bid uses it) and reps[c] the
// first node of class c.
//
// Nodes are grouped by a hash of their capacity and uses, and each
// node's uses are then checked against its group's first node: a node
// whose uses differ (the hashes collided) gets a class of its own, so a
// class never holds two nodes whose rows differ.
func nodeClasses(p *Problem) (class []int32, reps []int) {
	n := len(p.Nodes)
	hash := make([]uint64, n)
	count := make([]int32, n)
	for n, nd := range p.Nodes {
		hash[n] = mix(uint64(nd.CPUs)<<32 ^ uint64(nd.GPUs))
	}
	bid := uint64(0)
	for j := range p.Jobs {
		for i := range p.Jobs[j].Bids {
			bid++
			for _, u := range p.Jobs[j].Bids[i].Uses {
				hash[u.Node] = mix(hash[u.Node] ^ bid<<40 ^ uint64(u.Cores)<<20 ^ uint64(u.GPUs))
				count[u.Node]++
			}
		}
	}
	class = make([]int32, n)
	first := make(map[uint64]int32, 64)
	for n := range class {
		class[n] = -1
		if count[n] == 0 {
			continue
		}
		c, ok := first[hash[n]]
		if !ok || p.Nodes[reps[c]] != p.Nodes[n] || count[reps[c]] != count[n] {
			c = int32(len(reps))
			reps = append(reps, n)
			if !ok {
				first[hash[n]] = c
			}
		}
		class[n] = c
	}
	splitMismatches(p, class, &reps)
	return class, reps
}

// splitMismatches gives a class of its own to each node whose uses are
// not its class's first node's: every use of node n must be matched by
// the same bid's use of the first node, with the same cores and GPUs (the
// counts being equal, the uses are then the same). Classes stay in the
// order of their first nodes.
func splitMismatches(p *Problem, class []int32, reps *[]int) {
	stamp := make([]uint32, len(p.Nodes))
	amt := make([]Use, len(p.Nodes))
	var odd []int
	bid := uint32(0)
	for j := range p.Jobs {
		for i := range p.Jobs[j].Bids {
			bid++
			uses := p.Jobs[j].Bids[i].Uses
			for _, u := range uses {
				stamp[u.Node], amt[u.Node] = bid, u
			}
			for _, u := range uses {
				r := (*reps)[class[u.Node]]
				if r != u.Node && (stamp[r] != bid || amt[r].Cores != u.Cores || amt[r].GPUs != u.GPUs) {
					odd = append(odd, u.Node)
				}
			}
		}
	}
	if len(odd) == 0 {
		return
	}
	for _, n := range odd {
		if (*reps)[class[n]] != n { // not split yet
			class[n] = int32(len(*reps))
			*reps = append(*reps, n)
		}
	}
	renumber(class, reps)
}

// renumber orders the classes by their first nodes.
func renumber(class []int32, reps *[]int) {
	order := make([]int32, len(*reps))
	for c := range order {
		order[c] = int32(c)
	}
	slices.SortFunc(order, func(a, b int32) int { return (*reps)[a] - (*reps)[b] })
	to := make([]int32, len(order))
	sorted := make([]int, len(order))
	for c, old := range order {
		to[old], sorted[c] = int32(c), (*reps)[old]
	}
	for n, c := range class {
		if c >= 0 {
			class[n] = to[c]
		}
	}
	*reps = sorted
}

// mix is a 64-bit finalizer (splitmix64's).
func mix(h uint64) uint64 {
	h ^= h >> 30
	h *= 0xbf58476d1ce4e5b9
	h ^= h >> 27
	h *= 0x94d049bb133111eb
	return h ^ h>>31
}
