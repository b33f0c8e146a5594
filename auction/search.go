package auction

import (
	"cmp"
	"slices"
)

// bb is a depth-first branch and bound over a set of jobs with the other
// jobs held fixed (their bids already taken out of resid). Jobs are
// decided in order of value; each tries its fitting bids by reduced value,
// then "none". The bound at a node is the Lagrangian L with the current
// prices over the jobs still open, counting only bids that still fit, so
// it tightens as capacity is used up. The whole window goes through it
// when small (a proof of optimality when it finishes) and so do the local
// search's sub-windows.
type bb struct {
	s        *solver
	jobs     []int32   // decision order
	bids     [][]int32 // per depth: bids fitting at the start, by reduced value
	rcs      [][]float64
	suffix   []float64 // sum of the best reduced values from depth d on, ignoring fit
	cur      []int32   // per depth: chosen bid or -1
	best     float64
	bestSel  []int32
	found    bool
	limit    int64 // nodes allowed
	nodes    int64
	complete bool // false when the node limit or the context stopped it
	tol      float64
	// Unused capacity: L credits every priced resource's residual in
	// full, but open jobs can use at most demand[r] of r (the sum of their
	// largest uses), so the bound drops price*(resid-demand) where that is
	// positive — most of all for clique rows whose bids are all decided.
	maxUse [][]resAmt // per depth: the job's largest use of each resource
	credit float64    // sum over resources of price*max(0, resid-demand)
}

type resAmt struct{ res, amt int32 }

// newBB prepares a search over jobs; best is the value to beat (the
// incumbent of these jobs), which the search must exceed by more than tol.
// jobs[0] is branched on first, the others by value.
func (s *solver) newBB(jobs []int32, best float64, limit int64) *bb {
	t := &bb{s: s, best: best, limit: limit, complete: true, tol: s.tol}
	bids := s.fittingBids(jobs, s.resid)
	type cand struct {
		job  int32
		bids []int32
		top  float64
	}
	cands := make([]cand, len(jobs))
	for k, j := range jobs {
		cands[k] = cand{job: j, bids: bids[k], top: s.m.jobs[j].best}
	}
	// jobs[0] is decided first (the local search puts the job it wants in
	// there); the rest by value.
	slices.SortStableFunc(cands[min(1, len(cands)):], func(a, b cand) int { return cmp.Compare(b.top, a.top) })
	for _, c := range cands {
		rc := make([]float64, len(c.bids))
		for k, b := range c.bids {
			rc[k] = s.reduced(b)
		}
		idx := make([]int, len(c.bids))
		for k := range idx {
			idx[k] = k
		}
		slices.SortStableFunc(idx, func(a, b int) int { return cmp.Compare(rc[b], rc[a]) })
		sb, sr := make([]int32, len(idx)), make([]float64, len(idx))
		for k, x := range idx {
			sb[k], sr[k] = c.bids[x], rc[x]
		}
		t.jobs = append(t.jobs, c.job)
		t.bids = append(t.bids, sb)
		t.rcs = append(t.rcs, sr)
	}
	t.suffix = make([]float64, len(t.jobs)+1)
	for d := len(t.jobs) - 1; d >= 0; d-- {
		top := 0.0
		if len(t.rcs[d]) > 0 {
			top = max(0, t.rcs[d][0])
		}
		t.suffix[d] = t.suffix[d+1] + top
	}
	t.cur = make([]int32, len(t.jobs))
	t.bestSel = make([]int32, len(t.jobs))
	t.maxUse = make([][]resAmt, len(t.jobs))
	for d, bs := range t.bids {
		t.maxUse[d] = s.largestUses(bs)
	}
	return t
}

// largestUses lists each resource the bids use with the largest amount
// any of them takes.
func (s *solver) largestUses(bids []int32) []resAmt {
	s.stamp++
	var out []resAmt
	pos := s.usage // scratch: resource -> index in out
	for _, b := range bids {
		as := s.m.amt(b)
		for k, r := range s.m.res(b) {
			if s.mark[r] != s.stamp {
				s.mark[r] = s.stamp
				pos[r] = int32(len(out))
				out = append(out, resAmt{r, as[k]})
			} else if i := pos[r]; as[k] > out[i].amt {
				out[i].amt = as[k]
			}
		}
	}
	return out
}

// run searches; z0 is sum of prices times resid over the resources the
// jobs touch, so that value + z0 tracks the Lagrangian part already fixed.
func (t *bb) run() {
	s := t.s
	res := s.touched(t.bids)
	z := 0.0
	for _, r := range res {
		z += s.price[r] * float64(s.resid[r])
		s.demand[r] = 0
	}
	for _, us := range t.maxUse {
		for _, u := range us {
			s.demand[u.res] += u.amt
		}
	}
	t.credit = 0
	for _, r := range res {
		t.credit += t.unused(r)
	}
	t.dfs(0, 0, z)
}

// unused is resource r's share of the credit.
func (t *bb) unused(r int32) float64 {
	s := t.s
	if s.price[r] == 0 || s.resid[r] <= s.demand[r] {
		return 0
	}
	return s.price[r] * float64(s.resid[r]-s.demand[r])
}

// close takes depth d's job out of the open jobs' demand (sign 1) or puts
// it back (-1).
func (t *bb) close(d int, sign int32) {
	for _, u := range t.maxUse[d] {
		t.credit -= t.unused(u.res)
		t.s.demand[u.res] -= sign * u.amt
		t.credit += t.unused(u.res)
	}
}

// apply takes bid b (sign 1) or gives it back (-1), keeping the credit.
func (t *bb) apply(b int32, sign int32) {
	s := t.s
	as := s.m.amt(b)
	for k, r := range s.m.res(b) {
		t.credit -= t.unused(r)
		s.resid[r] -= sign * as[k]
		t.credit += t.unused(r)
	}
}

func (t *bb) dfs(d int, val, z float64) {
	t.nodes++
	if t.nodes > t.limit || (t.nodes&1023 == 0 && t.s.ctx.Err() != nil) {
		t.complete = false
		return
	}
	if d == len(t.jobs) {
		if val > t.best+t.tol {
			t.best, t.found = val, true
			copy(t.bestSel, t.cur)
		}
		return
	}
	if !t.promising(d, z-t.credit) {
		t.tracedPrune(d)
		return
	}
	m, resid := t.s.m, t.s.resid
	t.close(d, 1)
	defer t.close(d, -1)
	for k, b := range t.bids[d] {
		if !m.fits(b, resid) {
			continue
		}
		t.apply(b, 1)
		t.cur[d] = b
		t.dfs(d+1, val+m.value[b], z+t.rcs[d][k])
		t.apply(b, -1)
		if !t.complete {
			return
		}
	}
	if t.s.fixing && t.s.must[t.jobs[d]] {
		return // every better solution takes a bid of this job
	}
	t.cur[d] = -1
	t.dfs(d+1, val, z)
}

// promising reports whether the Lagrangian bound at depth d can beat the
// incumbent: z plus each open job's best reduced value among bids that
// still fit.
func (t *bb) promising(d int, z float64) bool {
	target := t.best + max(t.tol, t.s.proofGap)
	if z+t.suffix[d] <= target {
		return false
	}
	m, resid := t.s.m, t.s.resid
	bound := z
	for k := d; k < len(t.jobs); k++ {
		for x, b := range t.bids[k] {
			if t.rcs[k][x] <= 0 {
				break
			}
			if m.fits(b, resid) {
				bound += t.rcs[k][x]
				break
			}
		}
		if bound+t.suffix[k+1] <= target {
			return false
		}
	}
	return bound > target
}
