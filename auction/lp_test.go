package auction

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// bruteCases is how many random windows a test checks against brute
// force (fewer with -short).
func bruteCases() int {
	if testing.Short() {
		return 25
	}
	return 100
}

// crowdedSolver is a crowdedProblem with its model and a solver on it.
func crowdedSolver(rng *rand.Rand) (*Problem, *model, *solver) {
	p := crowdedProblem(rng)
	m := buildModel(p)
	return p, m, newSolver(context.Background(), m, Options{}.withDefaults(len(p.Jobs), false))
}

// crowdedProblem is randomProblem with more jobs (6-9) on the same five
// nodes, so that the LP is fractional and the LP search branches.
func crowdedProblem(rng *rand.Rand) *Problem {
	p := randomProblem(rng)
	for len(p.Jobs) < 6+rng.IntN(4) {
		q := randomProblem(rng)
		for _, j := range q.Jobs {
			if len(p.Jobs) < 9 {
				j.ID = int64(len(p.Jobs) + 1)
				p.Jobs = append(p.Jobs, j)
			}
		}
	}
	prios := make([]int64, len(p.Jobs))
	for k, j := range p.Jobs {
		prios[k] = j.Priority
	}
	p.Alpha = Alpha(prios)
	for k := range p.Nodes {
		p.Nodes[k] = Node{CPUs: 8, GPUs: 2} // randomProblem's uses all fit
	}
	return p
}

// The LP branch and bound alone, from an empty selection, finds the
// optimum of every group (brute force over the whole window) and reports
// the search complete; its root bound is never below the optimum.
func TestLPTreeMatchesBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 9))
	cases, branched := bruteCases(), 0
	for c := range cases {
		p, m, s := crowdedSolver(rng)
		want, _ := bruteForce(p)
		total, roots := 0.0, 0.0
		for _, jobs := range m.components() {
			nodes := s.nodes
			complete, root := s.lpSearch(jobs, math.MaxInt64, math.MaxInt64, nil, 0)
			require.True(t, complete, "case %d", c)
			if s.nodes-nodes > 1 {
				branched++
			}
			total += s.valueOf(jobs)
			roots += max(root, s.valueOf(jobs))
		}
		got, err := p.Evaluate(modelSelection(p, m, s))
		require.NoError(t, err, "case %d: infeasible", c)
		assert.InDelta(t, total, got, 1e-6, "case %d", c)
		assert.InDelta(t, want, got, 1e-6, "case %d", c)
		assert.GreaterOrEqual(t, roots, want-1e-6, "case %d: root bound below the optimum", c)
	}
	assert.Greater(t, branched, cases/10, "too few cases branch: the test does not exercise the tree")
}

// The dual simplex's answer is an LP optimum: feasible for every
// resource of the model (rows it never added included), and its value
// equals the bound of its own prices (strong duality), which is at most
// the capacity-only relaxation's value of taking every job's best bid.
func TestLPRootIsOptimal(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for c := range 100 {
		p := crowdedProblem(rng)
		m := buildModel(p)
		for _, jobs := range m.components() {
			lp := newLP(m, jobs, nil)
			require.Equal(t, lpOptimal, lp.solve(math.MaxInt64), "case %d", c)
			act := make([]float64, len(m.capacity))
			obj, loose := 0.0, 0.0
			for col, b := range lp.cols {
				x := lp.colValue(int32(col))
				require.InDelta(t, 0.5, x, 0.5+1e-9, "case %d: column out of its bounds", c)
				obj += x * m.value[b]
				for k, r := range m.res(b) {
					act[r] += x * m.amtF(b)[k]
				}
			}
			for _, j := range jobs {
				loose += m.jobs[j].best
			}
			for r, a := range act {
				assert.LessOrEqual(t, a, float64(m.capacity[r])+1e-7, "case %d: resource %d overfilled", c, r)
			}
			U := lp.bound(lp.prices(), make([]float64, len(lp.cols)))
			assert.InDelta(t, obj, U, 1e-6*max(1, U), "case %d: primal and dual values differ", c)
			assert.LessOrEqual(t, U, loose+1e-6, "case %d", c)
		}
	}
}

// lpObjective is the LP solution's value.
func lpObjective(lp *lpRelax) float64 {
	v := 0.0
	for c := range lp.cols {
		v += lp.colValue(int32(c)) * lp.value[c]
	}
	return v
}

// Dropping the loose rows and restoring a saved basis change only the
// work, never the answer: after either, the warm LP's optimum under
// changed bounds equals a fresh LP's under the same bounds, and a
// restored basis is optimal again at once for the bounds it was saved at.
func TestLPDropAndRestoreKeepTheOptimum(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	dropped, checked := 0, 0
	for c := range 150 {
		p := crowdedProblem(rng)
		m := buildModel(p)
		for _, jobs := range m.components() {
			lp := newLP(m, jobs, nil)
			require.Equal(t, lpOptimal, lp.solve(math.MaxInt64), "case %d", c)
			root := lpObjective(lp)
			dropped += lp.dropLooseRows()
			require.Equal(t, lpOptimal, lp.solve(math.MaxInt64), "case %d", c)
			require.InDelta(t, root, lpObjective(lp), 1e-6, "case %d: dropping loose rows moved the optimum", c)
			var b lpBasis
			lp.save(&b)
			for range 3 {
				col := int32(rng.IntN(len(lp.cols)))
				oldLo, oldUp := lp.lo[col], lp.up[col]
				if rng.IntN(2) == 0 {
					lp.lo[col] = 1
				} else {
					lp.up[col] = 0
				}
				fresh := newLP(m, jobs, nil)
				copy(fresh.lo, lp.lo)
				copy(fresh.up, lp.up)
				st, fst := lp.solve(math.MaxInt64), fresh.solve(math.MaxInt64)
				require.Equal(t, fst, st, "case %d", c)
				if st == lpOptimal {
					require.InDelta(t, lpObjective(fresh), lpObjective(lp), 1e-6, "case %d: warm and fresh optima differ", c)
					checked++
				}
				lp.lo[col], lp.up[col] = oldLo, oldUp
				lp.restore(&b)
				pivots := lp.pivots
				require.Equal(t, lpOptimal, lp.solve(math.MaxInt64), "case %d", c)
				assert.InDelta(t, root, lpObjective(lp), 1e-6, "case %d: restored basis not at the root's optimum", c)
				assert.Equal(t, int64(0), lp.pivots-pivots, "case %d: a restored optimal basis needs no pivot", c)
			}
		}
	}
	assert.Greater(t, dropped, 0, "no loose row dropped: the test does not exercise dropLooseRows")
	assert.Greater(t, checked, 100)
}

// modelSelection is the solver's current choice as a Selection of p.
func modelSelection(p *Problem, m *model, s *solver) Selection {
	sel := make(Selection, len(p.Jobs))
	for k := range sel {
		sel[k] = -1
	}
	for j, b := range s.sel {
		if b >= 0 {
			sel[m.jobs[j].orig] = int(m.origBid[b])
		}
	}
	return sel
}
