package auction

import (
	"context"
	"fmt"
)

// searchTrace counts what the proof's exact searches did, and checks each
// pruning and fixing rule against a known solution (the witness): a rule
// that cuts off a solution better than the incumbent it prunes against is
// a defect. Only tests set it (solveTraced); Solve runs with none, and
// each hook is then one nil test.
type searchTrace struct {
	LPNodes    int64 // LP search nodes (prove's searches)
	LPBound    int64 // nodes pruned by their LP bound
	LPRay      int64 // nodes pruned as infeasible (dual ray)
	LPStrong   int64 // nodes pruned by strong branching (both children cut)
	LPIntegral int64 // nodes whose LP solution was whole
	LPFixedRC  int64 // bids fixed by the LP's reduced costs
	LPFixedSB  int64 // bids fixed by strong branching (one child cut)
	MaxDepth   int   // deepest branching path
	BBBound    int64 // its nodes pruned by bound
	LPSearches int   // LP searches (proof attempts)
	LPComplete int   // LP searches that completed
	FixedOut   int   // bids fixed out by reduced cost against the incumbent (fixing.go)
	MustJobs   int   // jobs marked in every better solution
	witness    []int32
	Violations []string // rules that cut off the witness while it beat the incumbent
}

// solveTraced is Solve with a trace; witness (per Problem job: bid index
// or -1) is checked against every pruning and fixing rule when not nil.
func solveTraced(ctx context.Context, p *Problem, opts Options, tr *searchTrace, witness Selection) (*Solution, error) {
	if witness != nil {
		m := buildModel(p)
		tr.witness = make([]int32, len(m.jobs))
		for k, mj := range m.jobs {
			tr.witness[k] = -1
			for b := mj.first; b < mj.end; b++ {
				if witness[mj.orig] == int(m.origBid[b]) {
					tr.witness[k] = b
				}
			}
		}
	}
	return solve(ctx, p, opts, tr)
}

// witnessValue is the witness's value over jobs.
func (s *solver) witnessValue(jobs []int32) float64 {
	v := 0.0
	for _, j := range jobs {
		if b := s.trace.witness[j]; b >= 0 {
			v += s.m.value[b]
		}
	}
	return v
}

// violated records rule cutting off the witness when it beats best by
// more than the proof's gap.
func (s *solver) violated(rule string, jobs []int32, best float64) {
	if w := s.witnessValue(jobs); w > best+max(s.tol, s.proofGap) {
		s.trace.Violations = append(s.trace.Violations, fmt.Sprintf("%s: witness %.6f, incumbent %.6f", rule, w, best))
	}
}

// holdsWitness reports whether the LP tree's node (its column bounds, and
// the bids fixed out before it began) still admits the witness.
func (t *lpTree) holdsWitness() bool {
	w := t.s.trace.witness
	lp := t.lp
	in := 0
	for c, b := range lp.cols {
		x := 0.0
		if w[t.jobs[lp.colJob[c]]] == b {
			x = 1
			in++
		}
		if x < lp.lo[c] || x > lp.up[c] {
			return false
		}
	}
	for _, j := range t.jobs {
		if w[j] >= 0 {
			in--
		}
	}
	return in == 0 // a witness bid fixed out has no column
}

// The LP tree's ways of pruning a node.
const (
	pruneBound  = iota // the node's bound is at most the cut
	pruneRay           // the node's bounds admit no LP solution
	pruneStrong        // strong branching cut both children of a candidate
)

// traced counts a node of the LP tree pruned by rule and checks it.
func (t *lpTree) traced(rule int) {
	tr := t.s.trace
	if tr == nil || !t.proof {
		return
	}
	name := [...]string{"bound", "ray", "strong branching"}[rule]
	*[...]*int64{&tr.LPBound, &tr.LPRay, &tr.LPStrong}[rule]++
	if tr.witness != nil && t.holdsWitness() {
		t.s.violated("the LP tree pruned by "+name, t.jobs, t.best)
	}
}

// witnessHeld reports whether a traced proof search's node admits the
// witness (false when there is nothing to check).
func (t *lpTree) witnessHeld() bool {
	tr := t.s.trace
	return tr != nil && t.proof && tr.witness != nil && t.holdsWitness()
}

// tracedFix counts a bid fixed at the LP tree's node and checks the fix
// against held, whether the node admitted the witness before it; it
// reports whether the fix cut the witness off.
func (t *lpTree) tracedFix(rule string, held bool) bool {
	tr := t.s.trace
	if tr == nil || !t.proof {
		return false
	}
	if rule == "strong branching's fixing" {
		tr.LPFixedSB++
	} else {
		tr.LPFixedRC++
	}
	if held && !t.holdsWitness() {
		t.s.violated(rule, t.jobs, t.best)
		return true
	}
	return false
}

// tracedMust counts job j marked in every better solution than inc (of
// jobs) and checks it against the witness.
func (s *solver) tracedMust(j int32, jobs []int32, inc float64) {
	if tr := s.trace; tr != nil {
		tr.MustJobs++
		if tr.witness != nil && tr.witness[j] < 0 {
			s.violated("a must-job the witness leaves out", jobs, inc)
		}
	}
}

// tracedOut counts bid b fixed out against inc (of jobs) and checks it
// against the witness.
func (s *solver) tracedOut(b int32, jobs []int32, inc float64) {
	if tr := s.trace; tr != nil {
		tr.FixedOut++
		if tr.witness != nil && tr.witness[s.m.jobOf[b]] == b {
			s.violated("fixing out a witness bid", jobs, inc)
		}
	}
}

// tracedPrune counts a node at depth d of a proof's Lagrangian search
// pruned by its bound and checks it against the witness.
func (t *bb) tracedPrune(d int) {
	tr := t.s.trace
	if tr == nil || !t.s.fixing {
		return
	}
	tr.BBBound++
	if tr.witness == nil {
		return
	}
	for k := range d {
		if t.cur[k] != tr.witness[t.jobs[k]] {
			return
		}
	}
	t.s.violated("the Lagrangian search pruned by bound", t.jobs, t.best)
}

// String is the trace's counts (the witness left out).
func (tr *searchTrace) String() string {
	return fmt.Sprintf("LP: %d searches (%d complete), %d nodes (bound %d, ray %d, strong %d, whole %d), fixed %d by reduced cost and %d by strong branching, depth %d; Lagrangian: %d pruned; fixing: %d bids out, %d must-jobs; %d violations",
		tr.LPSearches, tr.LPComplete, tr.LPNodes, tr.LPBound, tr.LPRay, tr.LPStrong, tr.LPIntegral, tr.LPFixedRC, tr.LPFixedSB, tr.MaxDepth, tr.BBBound, tr.FixedOut, tr.MustJobs, len(tr.Violations))
}
