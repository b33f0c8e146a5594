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

// aimFloor is where an aimed search puts its floor: this share of the way
// from the incumbent to the group's bound. Measured on planted 30-job
// windows of seeds 1-10 (pivots to the optimum, proven): 0.9 found and
// proved it on nine within 400,000 pivots (27,000-380,000).
const aimFloor = 0.9

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

// aimedSearch runs (or resumes) the aimed search of a group (jobs, its
// bound bounds[c]) within maxPivots pivots; it keeps a better answer,
// tightens bounds[c] and reports whether the group is proven optimal.
func (s *solver) aimedSearch(jobs []int32, c int, bounds []float64, maxPivots int64, carry *lpCarry) bool {
	inc := s.valueOf(jobs)
	floor := inc + aimFloor*(bounds[c]-inc)
	o := carry.aimed[jobs[0]]
	delete(carry.aimed, jobs[0])
	var opens [][]lpFix
	if o != nil && o.best > inc+s.tol && len(o.nodes) > 0 {
		floor, opens = o.best, o.nodes
	}
	old := s.release(jobs)
	t := s.newLPTree(jobs, max(0, s.budget-s.nodes), maxPivots)
	t.best, t.proof = floor, true
	if s.trace != nil {
		s.trace.LPSearches++
	}
	t.loadCosts(carry)
	t.search(opens)
	t.saveCosts(carry)
	s.nodes += t.nodes
	complete := t.complete && !t.lp.trouble
	if t.found {
		s.reinstate(jobs, t.bestSel)
	} else {
		s.reinstate(jobs, old)
	}
	switch {
	case complete && t.found: // it went on from what it found: nothing beats that
		bounds[c] = s.valueOf(jobs)
	case complete: // nothing beats the floor by more than the proof's gap
		bounds[c] = max(inc, min(bounds[c], floor+max(s.tol, s.proofGap)))
	case !t.lp.trouble:
		carry.aimed[jobs[0]] = &lpOpened{nodes: t.open, best: t.best}
	}
	if s.trace != nil && complete {
		s.trace.LPComplete++
	}
	return bounds[c]-s.valueOf(jobs) <= s.proofGap
}
