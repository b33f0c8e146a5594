package auction

import "context"

// Cuts at the LP root (cuts.go): the root LP of each group is solved,
// the cover cuts its solution violates become model resources, and the
// LP, warm, is solved again with them, for a few rounds. The model then
// keeps them for the whole run.

// rootCutRounds and rootCutPivots bound the separation per group.
const (
	rootCutRounds = 1
	rootCutPivots = 20_000
)

// rootCuts adds cover cuts to m at the root of each group of at least two
// jobs and returns the groups' LP bounds before and after (valid upper
// bounds only when the LPs were solved to optimality) and the cuts added.
func (m *model) rootCuts(ctx context.Context, comps [][]int32, rounds int, pivots int64) (before, after float64, added int) {
	seen := map[string]bool{}
	adj := m.conflictGraph()
	x := make([]float64, len(m.value))
	for _, jobs := range comps {
		if len(jobs) < 2 {
			continue
		}
		lp := newLP(m, jobs, nil)
		lp.ctx = ctx
		if lp.solve(pivots) != lpOptimal {
			continue
		}
		before += lpValue(lp)
		for range rounds {
			for c, b := range lp.cols {
				x[b] = lp.colValue(int32(c))
			}
			n := m.addCuts(append(m.coverCuts(x), m.oddCycleCuts(adj, x)...), seen)
			for _, b := range lp.cols {
				x[b] = 0
			}
			if n == 0 {
				break
			}
			added += n
			lp.growResources()
			if lp.solve(pivots) != lpOptimal {
				break
			}
		}
		after += lpValue(lp)
	}
	return before, after, added
}

// lpValue is the objective of the LP's current solution.
func lpValue(lp *lpRelax) float64 {
	v := 0.0
	for c := range lp.cols {
		v += lp.colValue(int32(c)) * lp.value[c]
	}
	return v
}

// growResources extends the LP's per-resource tables to resources the
// model gained since (cuts): no row yet, and their columns.
func (lp *lpRelax) growResources() {
	old := len(lp.rowOf)
	n := len(lp.m.capacity)
	if n == old {
		return
	}
	for len(lp.rowOf) < n {
		lp.rowOf = append(lp.rowOf, -1)
		lp.resCols = append(lp.resCols, nil)
		lp.act = append(lp.act, 0)
	}
	for c, b := range lp.cols {
		as := lp.m.amtF(b)
		for k, r := range lp.m.res(b) {
			if int(r) >= old {
				lp.resCols[r] = append(lp.resCols[r], colAmt{int32(c), as[k]})
			}
		}
	}
}

// smallGroups are the groups the exact search may prove (at most exact
// jobs): the cuts are for its LP.
func smallGroups(comps [][]int32, exact int) [][]int32 {
	var out [][]int32
	for _, g := range comps {
		if len(g) <= exact {
			out = append(out, g)
		}
	}
	return out
}

// addRootCuts adds the root cuts of groups to the model once the groups
// are priced and have their first solution, so that the cuts serve the
// LP search alone: they start unpriced, and the current selection, being
// integral, satisfies them.
func (s *solver) addRootCuts(groups [][]int32) {
	m := s.m
	old := int32(len(m.capacity))
	m.rootCuts(s.ctx, groups, rootCutRounds, rootCutPivots)
	for r := old; r < int32(len(m.capacity)); r++ {
		s.price, s.best = append(s.price, 0), append(s.best, 0)
		s.resid = append(s.resid, m.capacity[r])
		s.usage, s.demand, s.mark = append(s.usage, 0), append(s.demand, 0), append(s.mark, 0)
	}
	for _, b := range s.sel {
		if b < 0 {
			continue
		}
		as := m.amt(b)
		for k, r := range m.res(b) {
			if r >= old {
				s.resid[r] -= as[k]
			}
		}
	}
}
