package auction

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// polish keeps the selection feasible, never loses value, and when it
// converges leaves no chosen job a better bid that fits as things stand.
func TestPolishProperties(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	for trial := range 300 {
		p := randomProblem(rng)
		require.NoError(t, p.Validate())
		m := buildModel(p)
		s := newSolver(context.Background(), m, Options{}.withDefaults(len(p.Jobs), false))
		var open []int32
		for j := range m.jobs {
			open = append(open, int32(j))
			// a random feasible start: each job in turn on a random fitting bid, or out
			mj := m.jobs[j]
			if b := mj.first + int32(rng.IntN(int(mj.end-mj.first))); rng.IntN(3) > 0 && m.fits(b, s.resid) {
				m.take(b, s.resid)
				s.sel[j] = b
			}
		}
		before := s.total()
		converged := s.polish(&ejector{s: s}, open)
		sol := s.solution(p, make([]float64, 1), false, 0) // panics if infeasible
		require.True(t, p.Feasible(sol.Selection), "trial %d", trial)
		require.GreaterOrEqual(t, s.total(), before-1e-9, "trial %d", trial)
		if !converged {
			continue
		}
		for j := range m.jobs {
			cur := s.sel[j]
			if cur < 0 {
				continue
			}
			m.give(cur, s.resid)
			for b := m.jobs[j].first; b < m.jobs[j].end; b++ {
				if m.value[b] > m.value[cur]+s.tol {
					require.False(t, m.fits(b, s.resid), "trial %d: job %d could move to bid %d", trial, j, b)
				}
			}
			m.take(cur, s.resid)
		}
	}
}
