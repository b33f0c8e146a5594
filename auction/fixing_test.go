package auction

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// Reduced-cost fixing never rules out a better solution: on small random
// problems, after fixing against the first (greedy) solution, every
// feasible selection worth more than it takes no fixed-out bid, leaves no
// must-job out, and is worth no more than the tightened bound.
func TestFixingKeepsBetterSolutions(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	checked := 0
	for range testLength(120, 300) {
		p := randomProblem(rng)
		m := buildModel(p)
		s := newSolver(context.Background(), m, Options{}.withDefaults(len(p.Jobs), false))
		comps := m.components()
		bounds := make([]float64, len(comps))
		s.initial(comps, bounds, lagrangeIters)
		s.best = append([]float64(nil), s.price...)
		// A poor incumbent, so that better selections exist: the last
		// jobs first, about half of them, each on its first bid that fits.
		poor := make([]int32, len(m.jobs))
		for k := range poor {
			poor[k] = -1
		}
		s.restore(poor)
		for k := len(m.jobs) - 1; k >= 0; k-- {
			for b := m.jobs[k].first; b < m.jobs[k].end && rng.IntN(2) == 0; b++ {
				if m.fits(b, s.resid) {
					m.take(b, s.resid)
					s.sel[k] = b
					break
				}
			}
		}
		inc := make([]float64, len(comps))
		for c, jobs := range comps {
			inc[c] = s.valueOf(jobs)
		}
		s.fixAll(comps, bounds, 60, lagrangeIters)
		modelBid := map[[2]int]int32{} // (job, bid) in p -> model bid
		for b := range m.value {
			modelBid[[2]int{m.jobs[m.jobOf[b]].orig, int(m.origBid[b])}] = int32(b)
		}
		// Fixing is per group: a selection better on a group's jobs takes
		// none of the group's fixed-out bids and all its must-jobs.
		forEachSelection(p, func(sel Selection, _ float64) {
			for c, jobs := range comps {
				v, ok := 0.0, true
				for _, k := range jobs {
					if i := sel[m.jobs[k].orig]; i >= 0 {
						b, in := modelBid[[2]int{m.jobs[k].orig, i}]
						ok = ok && in // a bid worth nothing: never in a better selection's best form
						if in {
							v += m.value[b]
						}
					}
				}
				if !ok || v <= inc[c]+1e-6 {
					continue
				}
				checked++
				require.LessOrEqual(t, v, bounds[c]+1e-6, "a selection above its group's bound")
				for _, k := range jobs {
					i := sel[m.jobs[k].orig]
					if i < 0 {
						require.False(t, s.must[k], "job %d fixed in but left out of a better selection", m.jobs[k].orig)
						continue
					}
					require.False(t, s.out[modelBid[[2]int{m.jobs[k].orig, i}]], "bid %d of job %d fixed out but in a better selection", i, m.jobs[k].orig)
				}
			}
		})
	}
	require.Greater(t, checked, 50, "too few better selections to check")
}

// forEachSelection calls f with every feasible selection of p and its
// objective.
func forEachSelection(p *Problem, f func(Selection, float64)) {
	sel := make(Selection, len(p.Jobs))
	var rec func(j int)
	rec = func(j int) {
		if j == len(p.Jobs) {
			if v, err := p.Evaluate(sel); err == nil {
				f(sel, v)
			}
			return
		}
		for i := -1; i < len(p.Jobs[j].Bids); i++ {
			sel[j] = i
			rec(j + 1)
		}
	}
	rec(0)
}
