package auction

import (
	"cmp"
	"slices"
)

// Lagrangian relaxation of the capacity constraints (3)-(4): with a price
// pi_r >= 0 on every binding resource, each job alone takes its bid of best
// reduced value v_b - sum_r pi_r*a_br (or none), and
//
//	L(pi) = sum_r pi_r*resid_r + sum_j max(0, max_b reduced(b))
//
// bounds the optimum from above for any pi >= 0, and the clique rows of
// clique.go are priced the same way. Subgradient steps (Polyak step
// towards the best known solution, halved when progress stalls) lower it;
// the prices that give the lowest L also guide the searches. Two things
// make the steps converge near the LP's value within a few hundred steps
// where plain steps stalled 5 % above it (J50_B10_s101: 57689 after
// 1,500 steps, LP 57657; plain steps 60800 even after 10,000): each row
// is scaled by its capacity (a core row of 16 and a clique row of 1 move
// alike), and the direction is a running mix of the relaxed usages
// (usageMix of the newest), which damps the zig-zag between rows.

// usageMix is the weight of the newest relaxed usage in the direction.
const usageMix = 0.3

// bidTerms is bid b's resources, the amounts it takes of them (as long as
// the resources, so a loop over both checks its bounds once) and its value.
func (m *model) bidTerms(b int32) (rs []int32, as []float64, value float64) {
	lo, hi := m.useStart[b], m.useStart[b+1]
	rs, as = m.useRes[lo:hi], m.useAmtF[lo:hi]
	return rs, as[:len(rs)], m.value[b]
}

// reduced is bid b's value less the priced resources it takes.
func (s *solver) reduced(b int32) float64 {
	rs, as, v := s.m.bidTerms(b)
	for k, r := range rs {
		v -= s.price[r] * as[k]
	}
	return v
}

// reducedAbove reports whether bid b's reduced value is above floor, with
// the value when it is. Prices are not negative (nor are the amounts), so
// each term only lowers the running value, and rounding keeps that order:
// once it is at most floor, so is the whole sum, and the walk stops
// there. Otherwise the sum is reduced's, term by term in the same order.
func (s *solver) reducedAbove(b int32, floor float64) (float64, bool) {
	rs, as, v := s.m.bidTerms(b)
	for k, r := range rs {
		v -= s.price[r] * as[k]
		if k&7 == 7 && v <= floor {
			return v, false
		}
	}
	return v, v > floor
}

// lagrange lowers L over jobs (bids restricted to those fitting resid) and
// returns the lowest L seen, leaving the prices that gave it. lb is a
// known feasible value of the same jobs (the step's target).
func (s *solver) lagrange(jobs []int32, resid []int32, lb float64, iters int) float64 {
	return s.lagrangeRepairing(jobs, resid, lb, iters, false)
}

// lagrangeRepairing is lagrange that, when repair is set, also turns every
// few relaxed choices into a solution (repairChoice) and keeps the best:
// near good prices the relaxed choice is nearly feasible and often near
// the optimum. jobs must then be a whole group with resid its capacity.
func (s *solver) lagrangeRepairing(jobs []int32, resid []int32, lb float64, iters int, repair bool) float64 {
	m := s.m
	bids := s.fittingBids(jobs, resid)
	res := s.touched(bids)
	usage := s.usage
	bestPrice := make([]float64, len(res))
	avg := make([]float64, len(res))
	picks := make([]int32, len(jobs))
	best := 0.0
	theta, stall := 1.0, 0
	for it := 0; it < iters; it++ {
		if it&15 == 15 && s.ctx.Err() != nil {
			break // out of time: the lowest L so far is still a bound
		}
		L := 0.0
		for _, r := range res {
			L += s.price[r] * float64(resid[r])
			usage[r] = 0
		}
		for k, bs := range bids {
			pick, pv := int32(-1), 0.0
			for _, b := range bs {
				// Prices and uses are not negative, so a bid's reduced
				// value is at most its value: one worth no more than
				// the pick cannot beat it.
				if m.value[b] <= pv {
					continue
				}
				if v, ok := s.reducedAbove(b, pv); ok {
					pick, pv = b, v
				}
			}
			picks[k] = pick
			if pick >= 0 {
				L += pv
				rs, as := m.res(pick), m.amt(pick)
				for k, r := range rs {
					usage[r] += as[k]
				}
			}
		}
		if repair && it%repairEvery == 0 {
			s.repairChoice(jobs, picks)
			lb = max(lb, s.valueOf(jobs))
			if s.checkCut() {
				break // the caller wants no more (solveModel's cut)
			}
		}
		if it == 0 || L < best {
			if it == 0 || L < best-1e-9*max(1, best) {
				stall = 0
			} else {
				stall++
			}
			best = L
			for k, r := range res {
				bestPrice[k] = s.price[r]
			}
		} else {
			stall++
		}
		if stall >= 25 {
			theta, stall = theta/2, 0
		}
		if theta < 1e-4 || best-lb <= 1e-9*max(1, best) {
			break
		}
		for k, r := range res {
			if it == 0 {
				avg[k] = float64(usage[r])
			} else {
				avg[k] = usageMix*float64(usage[r]) + (1-usageMix)*avg[k]
			}
		}
		norm := 0.0
		for k, r := range res {
			g := float64(resid[r]) - avg[k]
			if g > 0 && s.price[r] == 0 {
				continue
			}
			g /= float64(max(1, resid[r]))
			norm += g * g
		}
		if norm == 0 {
			break // the relaxed choice fits and pays for every priced resource: L is exact
		}
		step := theta * (best - lb) / norm
		for k, r := range res {
			c := float64(max(1, resid[r]))
			s.price[r] = max(0, s.price[r]-step*(float64(resid[r])-avg[k])/(c*c))
		}
	}
	for k, r := range res {
		s.price[r] = bestPrice[k]
	}
	return best
}

// fittingBids lists, for each job, its bids that fit resid.
func (s *solver) fittingBids(jobs []int32, resid []int32) [][]int32 {
	out := make([][]int32, len(jobs))
	for k, j := range jobs {
		mj := s.m.jobs[j]
		for b := mj.first; b < mj.end; b++ {
			if !(s.fixing && s.out[b]) && s.m.fits(b, resid) {
				out[k] = append(out[k], b)
			}
		}
	}
	return out
}

// touched lists the resources the bids use, each once.
func (s *solver) touched(bids [][]int32) []int32 {
	s.stamp++
	var res []int32
	for _, bs := range bids {
		for _, b := range bs {
			for _, r := range s.m.res(b) {
				if s.mark[r] != s.stamp {
					s.mark[r] = s.stamp
					res = append(res, r)
				}
			}
		}
	}
	return res
}

// repairEvery is how often (in subgradient steps) a relaxed choice is
// repaired into a solution.
const repairEvery = 5

// repairChoice builds a solution of jobs from the relaxed choice picks:
// picked bids by value while they fit, then every other job on its fitting
// bid of best reduced value, then of best value; it replaces the current
// selection of jobs when better.
func (s *solver) repairChoice(jobs, picks []int32) {
	m := s.m
	cur := s.valueOf(jobs)
	old := s.release(jobs)
	order := make([]int, len(jobs))
	for k := range order {
		order[k] = k
	}
	slices.SortStableFunc(order, func(a, b int) int {
		va, vb := -1.0, -1.0
		if picks[a] >= 0 {
			va = m.value[picks[a]]
		}
		if picks[b] >= 0 {
			vb = m.value[picks[b]]
		}
		return cmp.Compare(vb, va)
	})
	val := 0.0
	for _, k := range order {
		if b := picks[k]; b >= 0 && m.fits(b, s.resid) {
			m.take(b, s.resid)
			s.sel[jobs[k]] = b
			val += m.value[b]
		}
	}
	for _, priced := range []bool{true, false} {
		for _, k := range order {
			j := jobs[k]
			if s.sel[j] >= 0 {
				continue
			}
			if b := s.bestFitting(j, priced); b >= 0 {
				m.take(b, s.resid)
				s.sel[j] = b
				val += m.value[b]
			}
		}
	}
	if val <= cur+s.tol {
		s.reinstate(jobs, old)
	}
}

// bestFitting is job j's fitting bid of best reduced value (priced, and
// only when positive) or of best value, or -1.
func (s *solver) bestFitting(j int32, priced bool) int32 {
	m := s.m
	mj := m.jobs[j]
	pick, pv := int32(-1), 0.0
	for b := mj.first; b < mj.end; b++ {
		v, ok := m.value[b], m.value[b] > pv
		if priced && ok {
			v, ok = s.reducedAbove(b, pv)
		}
		if ok && m.fits(b, s.resid) {
			pick, pv = b, v
		}
	}
	return pick
}
