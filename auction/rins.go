package auction

import (
	"cmp"
	"math"
	"slices"
)

// An escape for the annealing (lns.go) when it stalls in a large window:
// the best solution is often a packing that no single move, nor a
// Lagrangian sub-window of 14-28 jobs, can leave — on J100_B15_s102 the
// better solutions need chains of 5 to 11 bid changes to make room for
// one left-out job (BENCHMARKS.md "Auction: 100 x 15 (fourth round)").
// After rinsStale annealing cycles without a new best, rins frees a large
// sub-window around a left-out job — the job and, breadth first, the
// chosen jobs that any bid of a job already in the window collides with —
// holds every other job's bid fixed, and solves it by the LP branch and
// bound (lp_tree.go) within a few nodes: the LP's bound moves as it
// branches, so it finds (or rules out) room that the Lagrangian search
// with fixed prices cannot, often at the root. Sub-windows are tried in a
// chain, the most wanted left-out job first (best reduced value at the
// bound's prices), until one gains or rinsChain have not.

// The settings, measured on the 100 x 15 windows at 0.35-1 s (48 seeds
// each; BENCHMARKS.md "Auction: 100 x 15 (fifth round)"). A sub-window
// of 60 jobs costs 40-200 ms of CPU (its root LP alone takes about 2,300
// pivots), so an escape is one sub-window unless it gains, and waits for
// twice as many stale cycles after each that did not: on J100_B15_s101
// the annealing itself keeps finding better solutions, and escapes that
// tried more sub-windows, more nodes or more pivots took its time.
const (
	rinsStale  = 3     // stale annealing cycles before the first escape (5 and 8 left more of s102 trapped)
	rinsJobs   = 60    // jobs in a sub-window, at most (50 missed s102's escapes)
	rinsBids   = 8     // bids per job, best reduced value first, in the window's growth and its LP
	rinsChain  = 1     // sub-windows tried per escape without a gain
	rinsNodes  = 3     // LP branch-and-bound nodes per sub-window: gains come at the root or soon after
	rinsPivots = 4_000 // simplex pivots per sub-window
)

// escapes is one local search's record: the stale annealing cycles, and
// the left-out jobs whose sub-windows gained nothing from the best
// solution of value at, so that the next escape from the same solution
// tries the next ones.
type escapes struct {
	tried     []bool
	deep      deepState  // the deep escapes from the solution of value at (deep.go)
	deepFirst deepBudget // a first deep search's budget (zero: the default)
	at        float64
	wait      int     // stale cycles before the next escape
	stale     int     // cycles since the best last rose
	cycleBest float64 // the best value when the last cycle began
}

// due counts an annealing cycle beginning with the best value at
// bestVal and reports whether an escape is due: wait cycles went by
// without a new best.
func (x *escapes) due(bestVal, tol float64) bool {
	x.stale++
	if bestVal > x.cycleBest+tol {
		x.stale = 0
	}
	x.cycleBest = bestVal
	if x.stale <= x.wait {
		return false
	}
	x.stale = 0
	return true
}

// rins runs one escape from the current selection (the search's best);
// it reports whether the selection gained.
func (s *solver) rins(x *escapes, open []int32) bool {
	if x.tried == nil {
		x.tried = make([]bool, len(s.m.jobs))
	}
	if v := s.total(); math.Abs(v-x.at) > s.tol {
		x.newPacking(v) // every left-out job may fit now
	}
	gained := false
	for miss := 0; miss < rinsChain && s.nodes < s.budget && s.ctx.Err() == nil; {
		j0 := s.mostWanted(open, x.tried)
		if j0 < 0 {
			break
		}
		x.tried[j0] = true
		if ok, _, _ := s.subLP(s.rinsWindow(j0, rinsJobs), rinsNodes, rinsPivots, 0); ok {
			gained = true
			x.wait = rinsStale
			x.newPacking(s.total())
			continue
		}
		miss++
	}
	if !gained {
		gained = s.deepEscape(x, open)
	}
	if !gained {
		x.wait *= 2
	}
	return gained
}

// newPacking starts the record of the escapes from a packing of value v.
func (x *escapes) newPacking(v float64) {
	clear(x.tried)
	x.at, x.deep = v, deepState{aim: deepAim}
}

// mostWanted is the left-out open job, not yet tried, of best reduced
// value at the bound's prices (its best bid's), or -1.
func (s *solver) mostWanted(open []int32, tried []bool) int32 {
	pick, want := int32(-1), 0.0
	for _, j := range open {
		if s.sel[j] >= 0 || tried[j] {
			continue
		}
		mj := s.m.jobs[j]
		for b := mj.first; b < mj.end; b++ {
			if rc := s.reducedAt(b, s.best); pick < 0 || rc > want {
				pick, want = j, rc
			}
		}
	}
	return pick
}

// rinsWindow is j0 and, breadth first, the chosen jobs whose bids share a
// resource with any other bid of a job already in the window, up to k
// jobs: the jobs a chain of moves starting at j0 would displace.
func (s *solver) rinsWindow(j0 int32, k int) []int32 {
	m := s.m
	s.stamp++
	s.jobMark[j0] = s.stamp
	set := []int32{j0}
	var bids []int32
	for q := 0; q < len(set) && len(set) < k; q++ {
		x := set[q]
		bids = s.topBids(x, bids[:0])
		for _, b := range bids {
			for _, r := range m.res(b) {
				for _, o := range m.resJobs[r] {
					if len(set) < k && s.jobMark[o] != s.stamp && s.sel[o] >= 0 && usesRes(m, s.sel[o], r) {
						s.jobMark[o] = s.stamp
						set = append(set, o)
					}
				}
			}
		}
	}
	return set
}

// subLP solves jobs by the LP branch and bound with every other job's bid
// held fixed, within limit nodes and maxPivots pivots, and keeps a better
// answer; it reports whether it found one. The LP is given the capacity
// the fixed jobs leave (a shallow copy of the model with its capacities
// replaced) and only the bids windowBids keeps (the others fixed out for
// the call), so the LP search works unchanged on a part of a group. With
// aim > 0 only answers that gain at least aim of the root bound's lead
// over the current value count (lpTree.aim). It also reports whether the
// search completed (then no answer within the bids kept gains the aim),
// and the pivots it took.
func (s *solver) subLP(jobs []int32, limit, maxPivots int64, aim float64) (gained, complete bool, pivots int64) {
	before := s.valueOf(jobs)
	old := s.release(jobs)
	sub := *s.m
	sub.capacity = slices.Clone(s.resid)
	outs := s.windowBids(jobs, old)
	s.reinstate(jobs, old)
	whole, fixing := s.m, s.fixing
	s.m, s.fixing = &sub, true
	complete, pivots = s.aimedLP(jobs, limit, maxPivots, aim)
	s.m, s.fixing = whole, fixing
	for _, b := range outs {
		s.out[b] = false
	}
	return s.valueOf(jobs) > before+s.tol, complete, pivots
}

// aimedLP is lpSearch without a carry (a sub-window is not a group),
// aimed at aim of the root's lead (0: any gain), reporting whether the
// search completed and its pivots, which the deep escape counts.
func (s *solver) aimedLP(jobs []int32, limit, maxPivots int64, aim float64) (complete bool, pivots int64) {
	cur := s.valueOf(jobs)
	old := s.release(jobs)
	t := s.newLPTree(jobs, limit, maxPivots)
	t.best, t.aim = cur, aim
	t.search(nil)
	s.nodes += t.nodes
	if t.found {
		s.reinstate(jobs, t.bestSel)
	} else {
		s.reinstate(jobs, old)
	}
	return t.complete && !t.lp.trouble, t.lp.pivots
}

// windowBids fixes out, for a subLP on released jobs (old: their bids),
// each bid that does not fit what the other jobs leave and all but the
// rinsBids fitting ones of best reduced value (besides the job's own);
// it returns the bids it fixed out.
func (s *solver) windowBids(jobs, old []int32) []int32 {
	var outs, keep []int32
	for k, j := range jobs {
		keep = keep[:0]
		for b := s.m.jobs[j].first; b < s.m.jobs[j].end; b++ {
			switch {
			case s.out[b]:
			case !s.m.fits(b, s.resid):
				s.out[b] = true
				outs = append(outs, b)
			case b != old[k]:
				keep = append(keep, b)
			}
		}
		if len(keep) > rinsBids {
			s.byReduced(keep)
			for _, b := range keep[rinsBids:] {
				s.out[b] = true
				outs = append(outs, b)
			}
		}
	}
	return outs
}

// byReduced sorts bids by reduced value at the bound's prices, best first.
func (s *solver) byReduced(bids []int32) {
	slices.SortStableFunc(bids, func(a, b int32) int { return cmp.Compare(s.reducedAt(b, s.best), s.reducedAt(a, s.best)) })
}

// topBids appends job x's bids other than its own, at most rinsBids of
// best reduced value at the bound's prices.
func (s *solver) topBids(x int32, out []int32) []int32 {
	mj := s.m.jobs[x]
	for b := mj.first; b < mj.end; b++ {
		if b != s.sel[x] {
			out = append(out, b)
		}
	}
	if len(out) > rinsBids {
		s.byReduced(out)
		out = out[:rinsBids]
	}
	return out
}
