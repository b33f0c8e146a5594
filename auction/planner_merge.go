package auction

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
	// repOf[n] is the class node n stands for, -1 for a node that stands
	// for none (its uses are its class's first node's).
	repOf := make([]int32, len(p.Nodes))
	for n := range repOf {
		repOf[n] = -1
	}
	for c, n := range reps {
		repOf[n] = int32(c)
	}
	for j := range p.Jobs {
		job := p.Jobs[j]
		bids := make([]Bid, len(job.Bids))
		for i, b := range job.Bids {
			bids[i] = Bid{Cost: b.Cost, Level: b.Level}
			buf := a.room(len(b.Uses))
			for _, u := range b.Uses {
				if c := repOf[u.Node]; c >= 0 {
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

// mix is a 64-bit finalizer (splitmix64's).
func mix(h uint64) uint64 {
	h ^= h >> 30
	h *= 0xbf58476d1ce4e5b9
	h ^= h >> 27
	h *= 0x94d049bb133111eb
	return h ^ h>>31
}
