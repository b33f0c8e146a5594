package queue

import (
	"context"
	"time"

	"github.com/bits-and-blooms/bitset"
	"github.com/hpcsched/hpcsched/selectnodes"
)

// BackfillEASY is EASY backfilling (Lifka's "aggressive" backfill, as the
// KTH SP2 and the ANL SP ran it; seed 000 §1.2.1 contrasts it with the
// conservative Backfill). Only the queue head is protected: walking the
// queue in order, jobs start while they fit; the first eligible job that
// does not fit is the head and gets a reservation — the earliest start
// (its shadow time) and the nodes a WillRun selection finds when the
// running jobs end by their limits. Every later job starts now if it fits
// and either ends by the shadow time or keeps off the head's nodes. No
// reservation outlives the pass, and later jobs may be delayed (that is
// EASY's trade against conservative backfill).
//
// The head's nodes are chosen to hold as few of the nodes idle now as the
// selection allows, so as many idle nodes as possible remain for jobs
// running past the shadow time; on identical nodes this is the classic
// processor-count rule (a job may use the "extra" processors left at the
// shadow time). BackfillDepth limits how many jobs a pass considers. It
// returns the jobs started.
func (s *Scheduler) BackfillEASY(now time.Time) []Started {
	s.lock(context.Background())
	defer s.unlock()
	s.recalc(now)
	freeCPUs := 0 // a bound: no start can use more CPUs than are free
	for i := 0; i < s.c.NodeCount(); i++ {
		freeCPUs += max(0, s.c.FreeCPUs(i))
	}
	var started []Started
	var shadow time.Time
	var headNodes *bitset.BitSet // nil until the head is found
	considered := 0
	for _, j := range s.ordered() {
		if s.opts.backfillDepth > 0 && considered >= s.opts.backfillDepth {
			break
		}
		if !s.eligible(j, now) {
			continue
		}
		considered++
		if j.Request.CPUs <= freeCPUs {
			req := j.Request
			if headNodes != nil && j.expectedEnd(now).After(shadow) {
				req.ExcludeNodes = withheldToo(req.ExcludeNodes, headNodes)
			}
			if p, ok := s.c.Probe(&req, selectnodes.RunNow); ok {
				if st, err := s.start(j, p, now); err == nil {
					started = append(started, st)
					freeCPUs -= p.TotalCPUs
				}
				continue
			}
		}
		if headNodes != nil {
			j.Reason = ReasonResources
			continue
		}
		p, err := s.c.Try(&j.Request, selectnodes.WillRun)
		switch {
		case err != nil && neverRuns(err):
			s.setFailure(j, err, now)
			continue
		case err != nil:
			j.Reason = ReasonResources // no start even when everything ends: not a head
			continue
		case p.Immediate || !p.Start.After(now):
			// it fits after all (the CPU bound was loose)
			if st, err := s.start(j, p, now); err == nil {
				started = append(started, st)
				freeCPUs -= p.TotalCPUs
			}
			continue
		}
		shadow, headNodes = p.Start, s.easyHeadNodes(j, p)
		j.Reason = ReasonResources
	}
	return started
}

// withheldToo is the union of a request's own withheld nodes and more.
func withheldToo(own, more *bitset.BitSet) *bitset.BitSet {
	if own == nil || own.Len() != more.Len() {
		return more
	}
	return own.Union(more)
}

// easyHeadNodes picks the head's nodes at its shadow time: among the nodes
// free by then, the fewest of those idle now that a selection accepts
// (binary search over how many idle nodes, in index order, it may use).
func (s *Scheduler) easyHeadNodes(j *job, p *selectnodes.Placement) *bitset.BitSet {
	idle := s.c.Idle()
	if p.Nodes.IntersectionCardinality(idle) == 0 {
		return p.Nodes
	}
	n := uint(s.c.NodeCount())
	busyUntil := make([]time.Time, n)
	for _, id := range s.c.Running() {
		a, _, end, _ := s.c.Allocation(id)
		for _, na := range a.Alloc {
			if end.After(busyUntil[na.Node]) {
				busyUntil[na.Node] = end
			}
		}
	}
	freed := bitset.New(n) // busy now, free by the shadow time
	for i, t := range busyUntil {
		if !t.IsZero() && !t.After(p.Start) {
			freed.Set(uint(i))
		}
	}
	if freed.DifferenceCardinality(p.Nodes) == 0 {
		return p.Nodes // it uses every node freed by then already
	}
	var idleList []uint
	for i, ok := idle.NextSet(0); ok; i, ok = idle.NextSet(i + 1) {
		idleList = append(idleList, i)
	}
	try := func(k int) *bitset.BitSet {
		allowed := freed.Clone()
		for _, i := range idleList[:k] {
			allowed.Set(i)
		}
		req := j.Request
		req.ExcludeNodes = withheldToo(req.ExcludeNodes, allowed.Complement())
		if q, ok := s.c.Probe(&req, selectnodes.TestOnly); ok {
			return q.Nodes
		}
		return nil
	}
	best := p.Nodes
	lo, hi := 0, len(idleList) // the fewest idle nodes that still work
	for lo < hi {
		mid := (lo + hi) / 2
		if q := try(mid); q != nil {
			best, hi = q, mid
		} else {
			lo = mid + 1
		}
	}
	return best
}
