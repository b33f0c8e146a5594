package auction

import "slices"

// The deep escape: when the sub-window of an escape (rins.go) gains
// nothing, the whole window (every open job, chosen or not:
// J100_B15_s102's better packings drop one job for two left-out ones,
// which no sub-window grown around one left-out job holds) goes to the LP
// branch and bound, aimed at solutions that gain at least an aim of the
// root bound's lead over the packing (lpTree.aim), deepAim at first. A
// cut that high prunes most of the tree, and the LP's root bound over the
// whole window is within 0.2-2% of the optimum. From the trap of
// J100_B15_s102 (162082.21, optimum 162825.10, root 163054.64) aims of
// 0.3 and 0.5 reach the optimum in 3-8 nodes and 4,700-7,200 pivots
// (0.17-0.20 s); 0.7 asks for more than there is.
//
// The aims go down a ladder (0.4, 0.2, 0.1, 0.05) after every search that
// gains nothing, whether it completed or its budget stopped it. A
// completed search has shown that nothing within the window's bids gains
// the aim, and the same search again would show it again. A stopped one
// has shown little, but a lower aim is the cheaper next try: until a
// first solution is found the aim is the only cut, and a lower one lets
// the depth-first dives end in whole solutions, each of which raises the
// cut to itself. Two 100 x 15 windows, held out when first seen, showed
// it: their deep searches at 0.4 stopped on their budgets (41 nodes;
// 13-38 nodes on the pivots) every time, so the aims never came down,
// and four times the budget at 0.4 did not help; from the same packings
// aims of 0.2 and 0.1 gained at two and four times the first budget, and
// from the packing reached a search found the optimum, which gains 0.83
// of the lead there.
//
// Each stopped search doubles the budget of the later ones from the same
// packing (up to deepDoublings times); once every aim has been tried and
// one of them stopped, the ladder starts again at deepAim; once every aim
// completed empty, the packing gets no more deep searches. A gain starts
// the ladder again from the new packing within the same escape, and the
// next escape is due after deepGainWait stale annealing cycles: a
// 100-job window's 9,600 rounds are under ten cycles, and with rinsStale
// (3) the packing one deep gain reached was where the run ended (a
// tuning window, local-search seed 1: 2.380% below the optimum; with
// one cycle, at it, where the next escape's searches went on). An
// escape ends after deepSearches searches or once they have taken
// deepEscapeFirsts first searches' pivots (the last may pass that): a
// whole-window search of 100 jobs costs 1,500-2,000 pivots at the root
// alone, and on some windows a search stops on its pivots within 13
// nodes (16,000 pivots, 0.3 s of CPU or more). On the tuning window
// where that happens, an allowance of four first searches took 5 s of
// CPU at 9,600 rounds where three took 1.8 s, to the same end.
const (
	deepJobs         = 120    // open jobs at most: the LP of a larger window is too slow
	deepAim          = 0.4    // the first aim from a packing; see above
	deepAimFloor     = 0.05   // the least aim tried (0.4, 0.2, 0.1, 0.05)
	deepNodes        = 40     // LP branch-and-bound nodes of a first search
	deepPivots       = 16_000 // simplex pivots of a first search
	deepDoublings    = 4      // each stopped search doubles the later ones' budget, up to 16 times
	deepSearches     = 8      // searches in one escape, at most
	deepEscapeFirsts = 3      // one escape's pivots, at most, in first searches' pivots
	deepGainWait     = 1      // stale cycles before the escape after one that gained deep
)

// deepBudget is the budget of a first deep search from a packing.
type deepBudget struct{ nodes, pivots int64 }

// orDefault is b, or deepNodes and deepPivots when b is zero (tests give
// smaller ones, so that small windows' searches stop too).
func (b deepBudget) orDefault() deepBudget {
	if b.nodes == 0 {
		return deepBudget{deepNodes, deepPivots}
	}
	return b
}

// deepState is the record of the deep searches from one packing.
type deepState struct {
	aim     float64 // the next search's aim (below deepAimFloor: none left)
	doubled int     // searches the budget stopped: the next budget is 2^doubled times the first
	stopped bool    // a search the budget stopped since the ladder last began at deepAim
}

// deepEscape runs deep searches from the current packing, going down the
// aims (deepState), within deepSearches searches and deepEscapeFirsts
// first searches' pivots; it reports whether the selection gained.
func (s *solver) deepEscape(x *escapes, open []int32) bool {
	if len(open) > deepJobs {
		return false
	}
	if x.deep.aim == 0 {
		x.deep.aim = deepAim
	}
	first, gainedAny, spent := x.deepFirst.orDefault(), false, int64(0)
	for k := 0; k < deepSearches && spent < deepEscapeFirsts*first.pivots && x.deep.aim >= deepAimFloor && s.nodes < s.budget && s.ctx.Err() == nil; k++ {
		d := &x.deep
		scale := int64(1) << min(d.doubled, deepDoublings)
		gained, complete, pivots := s.subLP(slices.Clone(open), scale*first.nodes, scale*first.pivots, d.aim)
		spent += pivots
		if gained {
			gainedAny = true
			x.wait = deepGainWait
			x.newPacking(s.total())
			continue
		}
		if !complete {
			d.stopped = true
			d.doubled++
		}
		d.aim /= 2 // nothing gained this aim: ask for less
		if d.aim < deepAimFloor && d.stopped {
			d.aim, d.stopped = deepAim, false // the stopped ones again, with more budget
		}
	}
	return gainedAny
}
