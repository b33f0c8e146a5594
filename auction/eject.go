package auction

// Eject-and-repair: put an unchosen job in on one of its bids by ejecting
// the chosen jobs it collides with (lowest value first, only as many as
// needed), then let the ejected jobs and the jobs waiting on the freed
// nodes back in greedily on any bid that fits. The move is kept when the
// caller's acceptance rule says so (the annealing of lns.go), and undone
// otherwise from a log of changes.

type change struct{ job, bid int32 } // job's previous bid

type ejector struct {
	s   *solver
	log []change
	val float64
}

func (e *ejector) set(j, b int32) {
	s := e.s
	old := s.sel[j]
	e.log = append(e.log, change{j, old})
	if old >= 0 {
		s.m.give(old, s.resid)
		e.val -= s.m.value[old]
	}
	s.sel[j] = b
	if b >= 0 {
		s.m.take(b, s.resid)
		e.val += s.m.value[b]
	}
}

func (e *ejector) undo() {
	s := e.s
	for k := len(e.log) - 1; k >= 0; k-- {
		c := e.log[k]
		if cur := s.sel[c.job]; cur >= 0 {
			s.m.give(cur, s.resid)
		}
		s.sel[c.job] = c.bid
		if c.bid >= 0 {
			s.m.take(c.bid, s.resid)
		}
	}
	e.log, e.val = e.log[:0], 0
}

// ejectMove tries job j on bid b (j may hold another bid); it reports
// whether the move was kept.
func (s *solver) ejectMove(e *ejector, j, b int32, accept func(delta float64) bool) bool {
	m := s.m
	e.log, e.val = e.log[:0], 0
	var ejected []int32
	e.set(j, -1)
	rs, as := m.res(b), m.amt(b)
	for k, r := range rs {
		for s.resid[r] < as[k] {
			victim := int32(-1)
			for _, o := range m.resJobs[r] {
				if o == j || s.sel[o] < 0 || !usesRes(m, s.sel[o], r) {
					continue
				}
				if victim < 0 || m.value[s.sel[o]] < m.value[s.sel[victim]] {
					victim = o
				}
			}
			if victim < 0 {
				e.undo()
				return false
			}
			e.set(victim, -1)
			ejected = append(ejected, victim)
		}
	}
	e.set(j, b)
	s.repair(e, ejected, rs, -1)
	if accept(e.val) {
		return true
	}
	e.undo()
	return false
}

// repair re-inserts the ejected jobs, then the unchosen jobs that bid on
// the freed resources, each on its fitting bid of best value.
func (s *solver) repair(e *ejector, ejected, freed []int32, skip int32) {
	m := s.m
	// Repair only takes capacity, so a job that fits nowhere once fits
	// nowhere later in the same repair: each job is tried once (a job
	// bids on many of the freed resources). Once every unchosen job has
	// been tried the rest of the freed resources' lists is skipped: the
	// scan of those lists was a fifth of a replay.
	s.stamp++
	sel, mark, stamp := s.sel, s.jobMark, s.stamp
	open := 0 // unchosen jobs not tried yet
	for o, b := range sel {
		if b < 0 && int32(o) != skip {
			open++
		}
	}
	try := func(o int32) {
		mark[o] = stamp
		open--
		mj := m.jobs[o]
		pick := int32(-1)
		for c := mj.first; c < mj.end; c++ {
			if (pick < 0 || m.value[c] > m.value[pick]) && m.fits(c, s.resid) {
				pick = c
			}
		}
		if pick >= 0 {
			e.set(o, pick)
		}
	}
	for _, o := range ejected {
		if sel[o] < 0 && o != skip && mark[o] != stamp {
			try(o)
		}
	}
	for _, r := range freed {
		if open == 0 {
			return
		}
		for _, o := range m.resJobs[r] {
			if sel[o] < 0 && o != skip && mark[o] != stamp {
				try(o)
			}
		}
	}
}

// dropMove takes chosen job j out and lets the jobs waiting on its nodes
// in; it reports whether the move was kept.
func (s *solver) dropMove(e *ejector, j int32, accept func(delta float64) bool) bool {
	b := s.sel[j]
	e.log, e.val = e.log[:0], 0
	e.set(j, -1)
	s.repair(e, nil, s.m.res(b), j)
	if accept(e.val) {
		return true
	}
	e.undo()
	return false
}

func usesRes(m *model, b, r int32) bool {
	for _, x := range m.res(b) {
		if x == r {
			return true
		}
	}
	return false
}
