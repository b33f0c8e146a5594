package auction

// Aimed searches. A proof attempt's LP branch and bound looks for
// solutions better than the incumbent; when the incumbent is well below
// the optimum, its cut prunes almost nothing (the LP bound falls below it
// only where the LP has lost whole jobs) and the search is blind. A
// planted 30-job window, whose optimum packs every core, was left at 28
// jobs by the local search, and the search from there spent its whole
// budget among packings of 29 jobs or fewer. An aimed search raises the
// value to beat to a floor between the incumbent and the bound: its cut
// then prunes every node whose LP cannot reach the floor, which on the
// planted windows leaves a narrow tree whose leaves pack every job. Either
// outcome helps: a solution above the floor is a better incumbent (and,
// when the search then completes, the optimum), and a search that
// completes without one proves that nothing beats the floor, a new bound.
//
// It runs only while the bound leaves room for at least one more job of
// the chosen jobs' mean value: nearer the optimum the plain search's cut
// is already that tight. An aimed search stopped by its budget leaves its
// open nodes and floor for the next attempt, which resumes them while its
// incumbent is still below that floor (the explored part holds nothing
// above the floor, whatever the incumbent).

// aimFloors are where the aimed searches put their floors, in turn: this
// share of the way from the incumbent to the group's bound. The first is
// high because the LP bound of a window worth packing tightly is close:
// on the planted 30-job windows (tuning seeds 1-10) it lies within 1.2 of
// the optimum while the incumbent is 2,000-5,000 below. A search that
// completes without a solution lowers the bound to its floor and the
// next floor is tried; one stopped by its budget is resumed by the next
// attempt at its own floor. Measured on seeds 2, 7 and 9 (CPU of Solve
// to the proven optimum, shared machine): a single floor of 0.9 10.9 s,
// none on the default budget (38 s) and about 15 s; 0.99 2.3, 1.2 and
// 0.47 s; 0.999 0.80, 0.54 and 0.43 s, and on all ten seeds 0.43-3.4 s.
var aimFloors = [...]float64{0.999, 0.99, 0.9}

// roomForAJob reports whether the group's bound is above its incumbent by
// more than the mean value of the incumbent's chosen bids.
func (s *solver) roomForAJob(jobs []int32, bound float64) bool {
	v, n := 0.0, 0
	for _, j := range jobs {
		if b := s.sel[j]; b >= 0 {
			v += s.m.value[b]
			n++
		}
	}
	return n == 0 || bound-v > v/float64(n)
}

// aimedSearch runs (or resumes) the aimed searches of a group (jobs, its
// bound bounds[c]) within maxPivots pivots in all, floor after floor of
// aimFloors while each completes without a solution and the bound still
// leaves room for a job; it keeps a better answer, tightens bounds[c] and
// reports whether the group is proven optimal.
func (s *solver) aimedSearch(jobs []int32, c int, bounds []float64, maxPivots int64, carry *lpCarry) bool {
	rung, floor, opens := 0, 0.0, [][]lpFix(nil)
	o := carry.aimed[jobs[0]]
	delete(carry.aimed, jobs[0])
	inc := s.valueOf(jobs)
	if o != nil && o.best > inc+s.tol && len(o.nodes) > 0 {
		rung, floor, opens = o.rung, o.best, o.nodes
	} else {
		floor = inc + aimFloors[0]*(bounds[c]-inc)
	}
	for {
		complete, found, t := s.searchAbove(jobs, floor, opens, maxPivots, carry)
		maxPivots -= t.lp.pivots
		switch {
		case complete && found: // it went on from what it found: nothing beats that
			bounds[c] = s.valueOf(jobs)
			return true
		case found: // a better incumbent, above the floor: the plain search goes on from it
			return false
		case !complete:
			if !t.lp.trouble {
				carry.aimed[jobs[0]] = &lpOpened{nodes: t.open, best: floor, rung: rung}
			}
			return false
		}
		// Nothing beats the floor by more than the proof's gap.
		bounds[c] = max(inc, min(bounds[c], floor+max(s.tol, s.proofGap)))
		rung++
		if bounds[c]-inc <= s.proofGap {
			return true
		}
		if rung == len(aimFloors) || maxPivots <= 0 || !s.roomForAJob(jobs, bounds[c]) {
			return false
		}
		floor, opens = inc+aimFloors[rung]*(bounds[c]-inc), nil
	}
}

// searchAbove is the LP branch and bound of jobs (a whole group) for
// solutions worth more than floor (at least their current value), from
// the open nodes opens of an earlier search of the same floor (nil: the
// whole tree), within maxPivots pivots; it keeps a better answer and
// reports whether the search completed, whether it found one, and the
// tree. It starts from carry's pseudo-costs and leaves its own there.
func (s *solver) searchAbove(jobs []int32, floor float64, opens [][]lpFix, maxPivots int64, carry *lpCarry) (complete, found bool, t *lpTree) {
	old := s.release(jobs)
	t = s.newLPTree(jobs, max(0, s.budget-s.nodes), maxPivots)
	t.best, t.proof = floor, true
	if s.trace != nil {
		s.trace.LPSearches++
	}
	t.loadCosts(carry)
	t.search(opens)
	t.saveCosts(carry)
	s.nodes += t.nodes
	complete = t.complete && !t.lp.trouble
	if s.trace != nil && complete {
		s.trace.LPComplete++
	}
	if t.found {
		s.reinstate(jobs, t.bestSel)
	} else {
		s.reinstate(jobs, old)
	}
	return complete, t.found, t
}
