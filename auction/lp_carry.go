package auction

import "slices"

// What one proof attempt's LP search hands the next on the same group.
// The first attempt, before any local search, runs out of pivots on some
// windows (J50_B10_s101 with its jobs in some orders); the attempt after
// the local search used to start from nothing. It now starts from the
// first's pseudo-costs and from the nodes it left open: the first
// attempt's explored part holds nothing better than its incumbent, and
// the later one's incumbent is at least as good (else it starts afresh),
// so the open nodes alone are left to search. Kept per model bid: the
// attempts' LPs differ in the bids fixed out, so their columns do not line
// up (groups share no bids).
type lpCarry struct {
	pc   pseudoCosts         // per model bid
	open map[int32]*lpOpened // by the group's first job
	// aimed: an aimed search's open nodes (lp_aim.go), best its floor
	aimed map[int32]*lpOpened
}

// lpOpened is a stopped search's open nodes and the value it proved
// nothing outside them beats.
type lpOpened struct {
	nodes [][]lpFix
	best  float64
	rung  int // an aimed search's floor, as an index in aimFloors
}

// lpFix is a branching decision: the model bid taken (up) or left out.
type lpFix struct {
	bid int32
	up  bool
}

// carried is the solver's carry between proof attempts, made on first use.
func (s *solver) carried() *lpCarry {
	if s.carry == nil {
		s.carry = &lpCarry{open: map[int32]*lpOpened{}, aimed: map[int32]*lpOpened{}}
		for dir := range 2 {
			s.carry.pc.sum[dir] = make([]float64, len(s.m.value))
			s.carry.pc.cnt[dir] = make([]int32, len(s.m.value))
		}
	}
	return s.carry
}

// resumable takes the open nodes left for jobs, or nil (search the whole
// tree) when there are none or the incumbent cur is worse than the one
// they were left with.
func (s *solver) resumable(jobs []int32, carry *lpCarry, cur float64) [][]lpFix {
	if carry == nil {
		return nil
	}
	o := carry.open[jobs[0]]
	delete(carry.open, jobs[0])
	if o == nil || len(o.nodes) == 0 || cur+s.tol < o.best {
		return nil
	}
	return o.nodes
}

// keepOpen leaves the stopped search's open nodes for the next attempt
// (none after numerical trouble: the explored part is then not trusted).
func (s *solver) keepOpen(jobs []int32, carry *lpCarry, t *lpTree) {
	if carry == nil || t.complete || t.lp.trouble {
		return
	}
	carry.open[jobs[0]] = &lpOpened{nodes: t.open, best: t.best}
}

// search runs the whole tree (opens nil) or the open nodes, in the order
// they were left; those it does not reach stay open.
func (t *lpTree) search(opens [][]lpFix) {
	if opens == nil {
		t.dfs()
		return
	}
	t.resumed = true
	col := make(map[int32]int32, len(t.lp.cols))
	for c, b := range t.lp.cols {
		col[b] = int32(c)
	}
	for k, path := range opens {
		if !t.complete {
			t.open = append(t.open, opens[k:]...)
			return
		}
		t.enter(path, col)
	}
}

// enter searches the node path leads to. A bid taken there that the LP
// no longer has (fixed out since) leaves nothing better to find.
func (t *lpTree) enter(path []lpFix, col map[int32]int32) {
	lp := t.lp
	var undo []boundChange
	defer func() { t.restore(undo) }()
	for _, f := range path {
		c, ok := col[f.bid]
		switch {
		case !ok && f.up:
			return
		case !ok:
			continue
		}
		undo = append(undo, boundChange{c, lp.lo[c], lp.up[c]})
		if f.up {
			lp.lo[c] = 1
		} else {
			lp.up[c] = 0
		}
	}
	t.path, t.pickValid = slices.Clone(path), false
	t.dfs()
	t.path = t.path[:0]
}

// loadCosts starts the tree's pseudo-costs from carry (per model bid).
func (t *lpTree) loadCosts(carry *lpCarry) {
	if carry == nil {
		return
	}
	for c, b := range t.lp.cols {
		for dir := range 2 {
			t.pc.sum[dir][c], t.pc.cnt[dir][c] = carry.pc.sum[dir][b], carry.pc.cnt[dir][b]
		}
	}
}

// saveCosts leaves the tree's pseudo-costs in carry.
func (t *lpTree) saveCosts(carry *lpCarry) {
	if carry == nil {
		return
	}
	for c, b := range t.lp.cols {
		for dir := range 2 {
			carry.pc.sum[dir][b], carry.pc.cnt[dir][b] = t.pc.sum[dir][c], t.pc.cnt[dir][c]
		}
	}
}
