package queue

import (
	"errors"
	"slices"
	"time"

	"github.com/bits-and-blooms/bitset"
	"github.com/hpcsched/hpcsched/selectnodes"
)

// Reservation is where and when Backfill planned a blocked job to start.
type Reservation struct {
	Job   JobID
	Start time.Time
	End   time.Time
	Nodes []string
}

type reservation struct {
	Reservation
	p *selectnodes.Placement
}

// Backfill is conservative backfilling (seed 000 §1.2.1): in queue order,
// every eligible job gets the earliest start that the running jobs (ending
// at their time limits) and every standing reservation allow; a job whose
// earliest start is now starts, the others keep a reservation, which later
// passes only move earlier. So no job starts later than the reservation
// it was given while jobs end by their limits, and no start delays a
// reservation. Only starts within the backfill window (a day by default)
// are reserved; a job's planning ignores its own reservation. It returns
// the jobs started and the standing reservations.
func (s *Scheduler) Backfill(now time.Time) ([]Started, []Reservation) {
	s.mu.Lock()
	defer s.unlock()
	s.recalc(now)
	for id := range s.resv {
		if j, ok := s.jobs[id]; !ok || j.State != Pending {
			delete(s.resv, id)
		}
	}
	base := s.c.Snapshot()
	var started []Started
	considered := 0
	for _, j := range s.ordered() {
		if s.opts.backfillDepth > 0 && considered >= s.opts.backfillDepth {
			break
		}
		if !s.eligible(j, now) {
			continue
		}
		considered++
		p, at, err := s.earliest(base, j, now)
		switch {
		case err != nil:
			delete(s.resv, j.ID)
			if !errors.Is(err, selectnodes.ErrBusy) {
				s.setFailure(j, err, now)
			} else {
				j.Reason = ReasonResources
			}
		case at.Equal(now):
			delete(s.resv, j.ID)
			st, err := s.start(j, p, now)
			if err != nil {
				continue
			}
			started = append(started, st)
			alloc, _, _, _ := s.c.Allocation(j.ID)
			_ = base.Allocate(j.ID, alloc, now, j.expectedEnd(now))
		default:
			s.resv[j.ID] = reservation{Reservation{Job: j.ID, Start: at, End: j.expectedEnd(at), Nodes: p.Names}, p}
			j.Reason = ReasonResources
		}
	}
	return started, s.reservations()
}

// reservations lists the standing reservations by start, then job.
func (s *Scheduler) reservations() []Reservation {
	out := make([]Reservation, 0, len(s.resv))
	for _, r := range s.resv {
		out = append(out, r.Reservation)
	}
	slices.SortFunc(out, func(a, b Reservation) int {
		if c := a.Start.Compare(b.Start); c != 0 {
			return c
		}
		return int(a.Job) - int(b.Job)
	})
	return out
}

// Reservations returns the standing reservations of the last Backfill.
func (s *Scheduler) Reservations() []Reservation {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.reservations()
}

// earliest finds j's earliest start on base (the running jobs) around the
// other jobs' reservations: it walks the moments something frees nodes —
// a running job or a reservation ending — and at each tries a RunNow
// selection on a copy where the jobs ended by then are gone and the
// reservations overlapping [t, t+limit) hold their nodes.
func (s *Scheduler) earliest(base *selectnodes.Snapshot, j *job, now time.Time) (*selectnodes.Placement, time.Time, error) {
	d := j.expectedEnd(now).Sub(now)
	horizon := now.Add(s.opts.bfWindow)
	var others []reservation
	for id, r := range s.resv {
		if id != j.ID {
			others = append(others, r)
		}
	}
	slices.SortFunc(others, func(a, b reservation) int { return int(a.Job) - int(b.Job) })
	// the moments something frees nodes, in order
	var times []time.Time
	for _, id := range base.Jobs() {
		if e, _ := base.End(id); e.After(now) && !e.After(horizon) {
			times = append(times, e)
		}
	}
	for _, r := range others {
		if r.End.After(now) && !r.End.After(horizon) {
			times = append(times, r.End)
		}
	}
	slices.SortFunc(times, func(a, b time.Time) int { return a.Compare(b) })
	times = slices.CompactFunc(times, func(a, b time.Time) bool { return a.Equal(b) })

	snap := base.Clone()
	applied := map[JobID]bool{}
	released := map[JobID]bool{}
	pseudo := func(id JobID) JobID { return id | 1<<62 }
	var whole *bitset.BitSet
	if needsIdle(s.c, j) {
		whole, _ = s.c.PartitionNodes(j.Partition)
	}
	var lastErr error
	for k := -1; k < len(times); k++ {
		t := now
		if k >= 0 {
			t = times[k]
		}
		for _, id := range base.Jobs() {
			if e, _ := base.End(id); !e.After(t) && !released[id] {
				_ = snap.Release(id)
				released[id] = true
			}
		}
		for _, r := range others {
			overlaps := r.Start.Before(t.Add(d)) && r.End.After(t)
			switch {
			case overlaps && !applied[r.Job]:
				_ = snap.Allocate(pseudo(r.Job), r.p, r.Start, r.End)
				applied[r.Job] = true
			case !overlaps && applied[r.Job]:
				_ = snap.Release(pseudo(r.Job))
				applied[r.Job] = false
			}
		}
		if whole != nil && snap.IdleIn(whole) < max(j.Request.MinNodes, 1) {
			continue // not enough idle nodes for a whole-node job yet
		}
		p, err := snap.SelectNodes(&j.Request, selectnodes.RunNow)
		if err == nil {
			return p, t, nil
		}
		lastErr = err
		if !errors.Is(err, selectnodes.ErrBusy) && !errors.Is(err, selectnodes.ErrPartConfig) {
			return nil, time.Time{}, err
		}
	}
	if lastErr == nil || errors.Is(lastErr, selectnodes.ErrPartConfig) {
		lastErr = &selectnodes.Error{Class: selectnodes.ErrBusy, Reason: "no start within the backfill window"}
	}
	return nil, time.Time{}, lastErr
}

// needsIdle reports whether j can only use idle nodes (whole, unshared),
// so counting idle nodes bounds it cheaply.
func needsIdle(c *selectnodes.Cluster, j *job) bool {
	p, _ := c.Partition(j.Partition)
	if _, linear := c.Selector().(selectnodes.Linear); linear {
		return !selectnodes.MayShare(p.Sharing.Mode, j.Request.Share)
	}
	return j.Request.Share == selectnodes.ShareExclusiveJob || p.Sharing.Mode == selectnodes.ShareExclusive
}
