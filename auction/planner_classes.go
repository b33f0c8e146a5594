package auction

// nodeClasses numbers the classes of the used nodes (nodes of the same
// capacity and the same uses), in the order of their first nodes:
// class[n] is node n's class (-1 when no bid uses it) and reps[c] the
// first node of class c.
//
// The classes are refined bid by bid (classRefiner): nodes start in one
// class per capacity, and each bid moves the nodes it uses out of their
// class into a new one per old class and amount, so that two nodes share
// a class exactly when they have the same capacity and every bid so far
// used both alike or neither. Unlike grouping by a hash of the uses, this
// needs no second walk to tell colliding nodes apart.
func nodeClasses(p *Problem) (class []int32, reps []int) {
	r := newClassRefiner(p.Nodes)
	for j := range p.Jobs {
		for i := range p.Jobs[j].Bids {
			r.split(p.Jobs[j].Bids[i].Uses)
		}
	}
	used := r.used
	// Number the used nodes' classes by their first nodes.
	class = make([]int32, len(p.Nodes))
	to := make([]int32, len(r.size))
	for c := range to {
		to[c] = -1
	}
	for n := range class {
		class[n] = -1
		if !used[n] {
			continue
		}
		c := r.of[n]
		if to[c] < 0 {
			to[c] = int32(len(reps))
			reps = append(reps, n)
		}
		class[n] = to[c]
	}
	return class, reps
}

// classRefiner is a partition of the nodes refined by bids (nodeClasses).
// Class numbers are reused once their class is empty, so there are at
// most about twice as many as nodes.
type classRefiner struct {
	of    []int32  // per node: its class
	used  []bool   // per node: whether a bid used it
	size  []int32  // per class: its nodes
	stamp []uint32 // per class: the last bid that moved nodes out of it
	move  []int32  // per class: where that bid moved them
	amt   []Use    // per class: at what cores and GPUs (Node unused)
	last  []int32  // per class: its latest move of more, -1 for none
	more  []moved  // the current bid's moves at other amounts than a class's first
	empty []int32  // classes emptied by the current bid
	free  []int32  // empty classes to reuse
	bid   uint32
}

// moved is a class's nodes a bid uses at another amount than its first.
type moved struct {
	to, next    int32 // next: the class's move before it, -1 for none
	cores, gpus int
}

func newClassRefiner(nodes []Node) *classRefiner {
	r := &classRefiner{of: make([]int32, len(nodes)), used: make([]bool, len(nodes))}
	first := make(map[Node]int32, 8)
	for n, nd := range nodes {
		c, ok := first[nd]
		if !ok {
			c = r.newClass()
			first[nd] = c
		}
		r.of[n] = c
		r.size[c]++
	}
	return r
}

// newClass is an empty class whose stamp is not the current bid's.
func (r *classRefiner) newClass() int32 {
	if k := len(r.free); k > 0 {
		c := r.free[k-1]
		r.free = r.free[:k-1]
		return c
	}
	r.size = append(r.size, 0)
	r.stamp = append(r.stamp, 0)
	r.move = append(r.move, -1)
	r.amt = append(r.amt, Use{})
	r.last = append(r.last, -1)
	return int32(len(r.size) - 1)
}

// split moves the nodes of one bid's uses (each node once) out of their
// classes: nodes of one class at one amount go to one new class.
func (r *classRefiner) split(uses []Use) {
	r.bid++
	r.more = r.more[:0]
	for _, u := range uses {
		c := r.of[u.Node]
		var to int32
		switch {
		case r.stamp[c] != r.bid:
			to = r.newClass()
			r.stamp[c], r.move[c], r.amt[c], r.last[c] = r.bid, to, Use{Cores: u.Cores, GPUs: u.GPUs}, -1
		case r.amt[c].Cores == u.Cores && r.amt[c].GPUs == u.GPUs:
			to = r.move[c]
		default:
			to = r.other(c, u)
		}
		r.of[u.Node], r.used[u.Node] = to, true
		r.size[to]++
		if r.size[c]--; r.size[c] == 0 {
			r.empty = append(r.empty, c)
		}
	}
	// Emptied classes are reused from the next bid on only: this bid's
	// stamps still name them.
	r.free = append(r.free, r.empty...)
	r.empty = r.empty[:0]
}

// other is where the current bid moves class c's nodes used at u's
// amount, which is not the first amount it gave c's nodes (a bid that
// lays its cores out unevenly).
func (r *classRefiner) other(c int32, u Use) int32 {
	for k := r.last[c]; k >= 0; k = r.more[k].next {
		if m := &r.more[k]; m.cores == u.Cores && m.gpus == u.GPUs {
			return m.to
		}
	}
	to := r.newClass()
	r.more = append(r.more, moved{to: to, next: r.last[c], cores: u.Cores, gpus: u.GPUs})
	r.last[c] = int32(len(r.more) - 1)
	return to
}
