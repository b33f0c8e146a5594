package auction

import (
	"math"
	"slices"
)

// Local search, annealed. Each round draws a job and one of its bids from
// a seeded generator (so runs are reproducible) and, lnsEvery-1 rounds in
// lnsEvery, tries an eject-and-repair move (eject.go) with the bid, or
// drops the job when the bid is the one it holds; the last round of each
// lnsEvery frees a sub-window — the job, the chosen jobs its bid collides
// with and jobs waiting on the same nodes — keeps every other job's bid,
// and solves the sub-window exactly by branch and bound against what it
// earns now. A move that loses delta is kept with probability
// exp(delta/T); T falls geometrically over a cycle of rounds, and each
// cycle starts again from the best solution found. The constants were
// tuned on the 100 x 15 sample windows at equal CPU time (BENCHMARKS.md
// "Auction: 100 x 15 (fourth round)": 24 seeds each, about 0.25 s of CPU
// a run). A sub-window costs about fifty eject moves, and the many cheap
// moves wander the plateaus of equal-valued bids that a better set of
// jobs needs crossed; one sub-window in 32 rounds (it was one in 8) and a
// cycle of 10 rounds a job (it was 100, longer than a short search) took
// J100_B15_s101 from 14 to 18 seeds of 24 at or above CBC's 120-s
// objective and J100_B15_s102 from 5 to 10. When cycles stop finding
// better solutions in a large window, an escape (rins.go) solves a large
// sub-window by the LP branch and bound.

const (
	lnsJobs       = 14   // jobs freed per round, at least
	lnsColliders  = 28   // jobs freed at most, when the bid collides with that many
	lnsNodes      = 1000 // branch-and-bound nodes per round
	lnsPricing    = 40   // subgradient steps re-pricing a sub-window
	annealCycle   = 10   // rounds per job in one annealing cycle
	lnsEvery      = 32   // rounds per sub-window round
	lnsEverySmall = 8    // the same when at most smallOpen jobs are open
	smallOpen     = 60   // a window this small is one the proof can take on
	annealHot     = 0.02 // starting temperature, times a job's mean value
	annealCold    = 1e-4 // final temperature, times a job's mean value
)

func (s *solver) localSearch(comps [][]int32, bounds []float64, rounds int) int {
	var open []int32 // jobs in groups not proven by their bound alone
	for c, jobs := range comps {
		if bounds[c]-s.valueOf(jobs) > s.proofGap && len(jobs) > 1 {
			open = append(open, jobs...)
		}
	}
	if len(open) == 0 {
		return 0
	}
	e := &ejector{s: s}
	mean := 0.0
	for _, j := range open {
		mean += s.m.jobs[j].best
	}
	mean /= float64(len(open))
	cycle := annealCycle * len(open)
	temp := 0.0
	accept := func(delta float64) bool {
		return delta > -s.tol || s.rng.Float64() < math.Exp(delta/temp)
	}
	best := slices.Clone(s.sel)
	bestVal, curVal := s.total(), s.total()
	// In a window small enough for a proof, a sub-window is a third of it
	// or more: sub-windows find the optimum that the proof then needs
	// (J50_B10_s102 is proven in 50,000 nodes at one in 8 rounds, 320,000
	// at one in 32).
	every := lnsEvery
	if len(open) <= smallOpen {
		every = lnsEverySmall
	}
	esc := &escapes{wait: rinsStale, cycleBest: bestVal}
	r := 0
	for ; r < rounds && s.nodes < s.budget && s.ctx.Err() == nil; r++ {
		if r%cycle == 0 {
			if curVal < bestVal-s.tol {
				s.restore(best)
			}
			// An escape (rins.go) when the annealing is stuck in a window
			// too large for the proof.
			if esc.due(bestVal, s.tol) && len(open) > smallOpen && s.rins(esc, open) {
				bestVal = s.total()
				copy(best, s.sel)
			}
		}
		j := open[s.rng.IntN(len(open))]
		mj := s.m.jobs[j]
		b := s.drawBid(mj)
		phase := float64(r%cycle) / float64(cycle)
		temp = mean * annealHot * math.Pow(annealCold/annealHot, phase)
		switch {
		case r%every != every-1:
			if s.sel[j] != b {
				s.ejectMove(e, j, b, accept)
			} else {
				s.dropMove(e, j, accept)
			}
		default:
			s.improve(s.neighbourhood(j, b))
		}
		curVal = s.total()
		if curVal > bestVal+s.tol {
			bestVal = curVal
			copy(best, s.sel)
		}
	}
	if curVal < bestVal-s.tol {
		s.restore(best)
	}
	s.polish(e, open)
	return r
}

// total is the value of the current selection.
func (s *solver) total() float64 {
	v := 0.0
	for _, b := range s.sel {
		if b >= 0 {
			v += s.m.value[b]
		}
	}
	return v
}

// restore makes sel the current selection.
func (s *solver) restore(sel []int32) {
	for j, b := range s.sel {
		if b >= 0 {
			s.m.give(b, s.resid)
		}
		s.sel[j] = -1
	}
	for j, b := range sel {
		s.sel[j] = b
		if b >= 0 {
			s.m.take(b, s.resid)
		}
	}
}

// neighbourhood is job j with the chosen jobs its bid b collides with and
// unchosen jobs bidding on the same resources, up to lnsJobs, drawn at
// random when there are more.
func (s *solver) neighbourhood(j, b int32) []int32 {
	m := s.m
	s.stamp++
	s.mark2(j)
	set := []int32{j}
	var chosen, waiting []int32
	for _, r := range m.res(b) {
		for _, o := range m.resJobs[r] {
			if s.jobMark[o] == s.stamp {
				continue
			}
			s.jobMark[o] = s.stamp
			if s.sel[o] >= 0 {
				chosen = append(chosen, o)
			} else {
				waiting = append(waiting, o)
			}
		}
	}
	for k, pool := range [][]int32{chosen, waiting} {
		limit := lnsJobs
		if k == 0 {
			limit = lnsColliders // every collider, so the bid can get in
		}
		s.rng.Shuffle(len(pool), func(a, b int) { pool[a], pool[b] = pool[b], pool[a] })
		for _, o := range pool {
			if len(set) >= limit {
				break
			}
			set = append(set, o)
		}
	}
	return set
}

func (s *solver) mark2(j int32) { s.jobMark[j] = s.stamp }

// improve frees jobs, solves them exactly against their current value and
// keeps a better answer.
func (s *solver) improve(jobs []int32) bool {
	_, found := s.solveExactly(jobs, lnsPricing, lnsNodes)
	return found
}

// solveExactly frees jobs, re-prices them (pricing subgradient steps),
// searches them by branch and bound against their current value within
// limit nodes, and keeps a better answer. It reports whether the search
// completed (then the jobs' selection is optimal given the others) and
// whether it found better.
func (s *solver) solveExactly(jobs []int32, pricing int, limit int64) (complete, found bool) {
	cur := s.valueOf(jobs)
	old := s.release(jobs)
	if pricing > 0 {
		s.lagrange(jobs, s.resid, cur, pricing)
	}
	t := s.newBB(jobs, cur, min(limit, s.budget-s.nodes))
	t.run()
	s.nodes += t.nodes
	if t.found {
		s.reinstate(t.jobs, t.bestSel)
	} else {
		s.reinstate(jobs, old)
	}
	return t.complete, t.found
}

// prove runs the exact searches on each group of at most exact jobs whose
// bound is above its value, smallest first, within the budgets: while the
// bound leaves room for one more job, an aimed LP search (lp_aim.go),
// then the LP branch and bound (lp_tree.go), lpPivotBudget(perGroup)
// pivots each, then the Lagrangian one (search.go), perGroup nodes. It tightens
// bounds[c] to the group's optimum when the search completes, and reports
// whether every group is then proven.
func (s *solver) prove(comps [][]int32, bounds []float64, exact int, perGroup int64) bool {
	order := make([]int, len(comps))
	for c := range order {
		order[c] = c
	}
	slices.SortStableFunc(order, func(a, b int) int { return len(comps[a]) - len(comps[b]) })
	all := true
	for _, c := range order {
		jobs := comps[c]
		if bounds[c]-s.valueOf(jobs) <= s.proofGap {
			bounds[c] = s.valueOf(jobs)
			continue
		}
		if len(jobs) > exact || s.nodes >= s.budget || s.ctx.Err() != nil {
			all = false
			continue
		}
		s.fixing = true // only better solutions are wanted here
		left := max(0, s.budget-s.nodes)
		pivots := min(lpPivotBudget(perGroup), left/lpPivotShare)
		if s.roomForAJob(jobs, bounds[c]) && s.aimedSearch(jobs, c, bounds, pivots, s.carried()) {
			s.fixing = false
			continue
		}
		left = max(0, s.budget-s.nodes)
		complete, root := s.lpSearch(jobs, left, min(pivots, left/lpPivotShare), s.carried(), 0)
		bounds[c] = min(bounds[c], max(root, s.valueOf(jobs)))
		if !complete {
			complete, _ = s.solveExactly(jobs, 0, perGroup)
		}
		s.fixing = false
		if complete {
			bounds[c] = s.valueOf(jobs)
		} else {
			all = false
		}
	}
	return all
}

// drawBid draws bidDraws of the job's bids at random and returns the one
// of best reduced value at the bound's prices: on the 100 x 15 samples,
// six seeds at 2,000 rounds, the mean against CBC went from -0.42% (one
// draw) to +0.08% (six); two to fifteen draws all helped, within the
// seed-to-seed spread of each other.
func (s *solver) drawBid(mj mjob) int32 {
	n := int(mj.end - mj.first)
	b := mj.first + int32(s.rng.IntN(n))
	rb := s.reducedAt(b, s.best)
	for range bidDraws - 1 {
		c := mj.first + int32(s.rng.IntN(n))
		if rc := s.reducedAt(c, s.best); rc > rb {
			b, rb = c, rc
		}
	}
	return b
}

// bidDraws: see drawBid.
const bidDraws = 6

// reducedAt is bid b's value less its resources at the given prices.
func (s *solver) reducedAt(b int32, price []float64) float64 {
	m := s.m
	v := m.value[b]
	as := m.amtF(b)
	for k, r := range m.res(b) {
		v -= price[r] * as[k]
	}
	return v
}
