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

// The deep escape: when the sub-window of an escape gains nothing, the
// whole window (every open job, chosen or not: J100_B15_s102's better
// packings drop one job for two left-out ones, which no sub-window grown
// around one left-out job holds) goes to the LP branch and bound, aimed
// at solutions that gain at least an aim of the root bound's lead over
// the packing (lpTree.aim), deepAim at first. A cut that high prunes most
// of the tree, and the LP's root bound over the whole window is within
// 0.2-2% of the optimum. From the trap of J100_B15_s102 (162082.21,
// optimum 162825.10, root 163054.64) aims of 0.3 and 0.5 reach the
// optimum in 3-8 nodes and 4,700-7,200 pivots (0.17-0.20 s); 0.7 asks
// for more than there is. At 20,000 rounds, 24 seeds, one try per
// packing: s102 ends at its optimum on 22 (10 without; 18 with 20 nodes
// and 8,000 pivots, 23 with 80 and 30,000 at 1.5 times the CPU) and s101
// gains too (mean 1.25% below its optimum -> 1.04%).
//
// It is tried again at each escape due from the same packing. A search
// its budget stopped is retried with twice the budget (up to
// deepDoublings times; the retries took s101 at 5 s from 1.04% to
// 0.78%). A search that completed without a gain has shown that nothing
// within the sub-window's bids gains the aim, and the same search again
// would show it again (the prices and the packing are the same), so the
// retry halves the aim instead, down to deepAimFloor, after which that
// packing gets no more deep escapes. A held-out 100 x 15 window showed
// why: its trap (63567.25) takes one job where the optimum (63955.14)
// takes two others, a gain of 0.28 of the root's lead (64958.32), and the
// searches aimed at 0.4 completed in 41-79 nodes with nothing, one local
// search seed in three ending there 0.606% below the optimum.
const (
	deepJobs      = 120    // open jobs at most: the LP of a larger window is too slow
	deepAim       = 0.4    // the first aim from a packing; see above
	deepAimFloor  = 0.05   // the least aim tried (0.4, 0.2, 0.1, 0.05)
	deepNodes     = 40     // LP branch-and-bound nodes
	deepPivots    = 16_000 // simplex pivots
	deepDoublings = 4      // each retry after a search the budget stopped doubles it, up to 16 times
)

// escapes is one local search's record: the stale annealing cycles, and
// the left-out jobs whose sub-windows gained nothing from the best
// solution of value at, so that the next escape from the same solution
// tries the next ones.
type escapes struct {
	tried     []bool
	deep      int     // deep escapes the budget stopped from the solution of value at
	aim       float64 // the next deep escape's aim from it (0: deepAim)
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
		if ok, _ := s.subLP(s.rinsWindow(j0, rinsJobs), rinsNodes, rinsPivots, 0); ok {
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
	x.at, x.deep, x.aim = v, 0, deepAim
}

// deepEscape runs the deep escape when the window is small enough, at
// the packing's aim and with twice the budget of the last one from it
// that its budget stopped, going down the aims at once while searches
// complete without a gain; it reports whether the selection gained.
func (s *solver) deepEscape(x *escapes, open []int32) bool {
	if len(open) > deepJobs {
		return false
	}
	if x.aim == 0 {
		x.aim = deepAim
	}
	for x.aim >= deepAimFloor && s.nodes < s.budget && s.ctx.Err() == nil {
		scale := int64(1) << min(x.deep, deepDoublings)
		gained, complete := s.subLP(slices.Clone(open), scale*deepNodes, scale*deepPivots, x.aim)
		switch {
		case gained:
			x.wait = rinsStale
			x.newPacking(s.total())
			return true
		case !complete:
			x.deep++
			return false
		}
		x.aim /= 2 // nothing gains this aim: ask for less
	}
	return false
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
// search completed: then no answer within the bids kept gains the aim.
func (s *solver) subLP(jobs []int32, limit, maxPivots int64, aim float64) (gained, complete bool) {
	before := s.valueOf(jobs)
	old := s.release(jobs)
	sub := *s.m
	sub.capacity = slices.Clone(s.resid)
	outs := s.windowBids(jobs, old)
	s.reinstate(jobs, old)
	whole, fixing := s.m, s.fixing
	s.m, s.fixing = &sub, true
	complete, _ = s.lpSearch(jobs, limit, maxPivots, nil, aim)
	s.m, s.fixing = whole, fixing
	for _, b := range outs {
		s.out[b] = false
	}
	return s.valueOf(jobs) > before+s.tol, complete
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
