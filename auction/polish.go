package auction

// polish ends a local search: every chosen open job tries each of its bids
// worth more than the one it holds (an eject-and-repair move, kept only when the
// whole gains), pass after pass until one changes nothing (polishPasses at
// most). The annealing draws bids at random and can stop a few cost steps
// short of what such moves reach: on gen J100_B15_s3 at 1,000 and 2,400
// rounds it took the shortfall against the optimum from 1e-3 and 7e-4 to
// 3e-4 (the cost granularity is 1/9216); on the 100 x 15 samples (24
// seeds) the counts at or above CBC moved within the seeds' noise (19 ->
// 18 and 10 -> 10 of 24). Jobs left out are not tried: putting them in is
// the annealing's work, and trying every bid of each would cost a replay
// pass (300 rounds) more than its rounds. It reports whether the last
// pass changed nothing.
func (s *solver) polish(e *ejector, open []int32) bool {
	better := func(delta float64) bool { return delta > s.tol }
	for range polishPasses {
		if s.ctx.Err() != nil {
			return false
		}
		changed := false
		for _, j := range open {
			mj := s.m.jobs[j]
			for b := mj.first; b < mj.end; b++ {
				cur := s.sel[j]
				if cur >= 0 && s.m.value[b] > s.m.value[cur]+s.tol && s.ejectMove(e, j, b, better) {
					changed = true
				}
			}
		}
		if !changed {
			return true
		}
	}
	return false
}

// polishPasses caps polish's passes.
const polishPasses = 3
