package queue

import (
	"context"
	"slices"
	"time"

	"github.com/bits-and-blooms/bitset"
	"github.com/hpcsched/hpcsched/selectnodes"
)

// EASY is EASY backfilling (Lifka's "aggressive" backfill, as the KTH SP2
// and the ANL SP ran it; seed 000 §1.2.1 contrasts it with the
// conservative Backfill). Only the queue head is protected: walking the
// queue in order, jobs start while they fit; the first eligible job that
// does not fit is the head and gets a reservation — its shadow time (the
// earliest moment enough nodes are free, when running jobs end by their
// limits) and the nodes it will take then. Every later job starts now if
// it fits and either ends by the shadow time or keeps off the head's
// nodes. No reservation is published, and later jobs may be delayed (EASY's
// trade against conservative backfill).
//
// Like Backfill's profile, the plan counts whole nodes: a node is free
// from the end of the last job on it. Among the nodes free at the shadow
// time the head takes as few of the nodes idle now as a selection allows,
// so the most idle nodes stay open to jobs running past the shadow time
// (one probe with the fewest idle nodes the count bound allows; if the
// selection needs more, the nodes it first found are kept). On identical
// nodes this is the classic rule that such jobs may use the
// "extra" processors left at the shadow time. BackfillDepth limits how
// many jobs a pass considers.
//
// An EASY value keeps the head's plan between passes and recomputes it
// only when the head changes or a job it counted on ends. Create it with
// NewEASY; it is not safe for concurrent use (the Scheduler is).
type EASY struct {
	s    *Scheduler
	plan easyPlan
	// scratch for the shadow's computation, reused between plans
	busyUntil, ends []time.Time
}

// easyPlan is the head's reservation and the running jobs it counted on.
type easyPlan struct {
	head    JobID
	shadow  time.Time
	nodes   *bitset.BitSet
	counted []JobID // running when planned; one ending invalidates the plan
	// known are counted and the jobs EASY started since, which respect
	// the plan; a running job outside it (started by Schedule or Start)
	// invalidates the plan.
	known map[JobID]bool
}

// NewEASY returns EASY backfilling for s.
func NewEASY(s *Scheduler) *EASY { return &EASY{s: s} }

// Backfill runs one EASY pass at now and returns the jobs it started.
func (e *EASY) Backfill(now time.Time) []Started {
	s := e.s
	s.lock(context.Background())
	defer s.unlock()
	s.recalc(now)
	// bounds: no start can use more CPUs than are free, or more nodes than
	// have a free CPU
	freeCPUs, freeNodes := 0, 0
	for i := 0; i < s.c.NodeCount(); i++ {
		if f := s.c.FreeCPUs(i); f > 0 {
			freeCPUs += f
			freeNodes++
		}
	}
	var started []Started
	var head *easyPlan
	outCPUs, outNodes := 0, 0 // the same bounds outside the head's nodes
	considered := 0
	for _, j := range s.ordered() {
		if s.opts.backfillDepth > 0 && considered >= s.opts.backfillDepth {
			break
		}
		if !s.eligible(j, now) {
			continue
		}
		considered++
		cpus, nodes := j.Request.CPUs, j.Request.MinNodes
		fits := cpus <= freeCPUs && nodes <= freeNodes
		avoid := fits && head != nil && j.expectedEnd(now).After(head.shadow)
		if avoid {
			// it must keep off the head's nodes: the same bounds outside them
			fits = cpus <= outCPUs && max(nodes, 1) <= outNodes
		}
		if fits {
			req := j.Request // a copy only for the jobs probed: it escapes
			if avoid {
				req.ExcludeNodes = withheldToo(req.ExcludeNodes, head.nodes)
			}
			if p, ok := s.c.Probe(&req, selectnodes.RunNow); ok {
				if st, err := s.start(j, p, now); err == nil {
					started = append(started, st)
					if e.plan.known != nil {
						e.plan.known[j.ID] = true
					}
					freeCPUs -= p.TotalCPUs
					for _, a := range p.Alloc {
						if s.c.FreeCPUs(a.Node) <= 0 {
							freeNodes--
						}
					}
					if head != nil {
						outCPUs, outNodes = s.freeOutside(head.nodes)
					}
				}
				continue
			}
		}
		j.Reason = ReasonResources
		if head == nil {
			if head = e.headPlan(j, now); head != nil {
				outCPUs, outNodes = s.freeOutside(head.nodes)
			}
		}
	}
	return started
}

// freeOutside counts the free CPUs, and the nodes with a free CPU, that
// are not in nodes.
func (s *Scheduler) freeOutside(nodes *bitset.BitSet) (cpus, count int) {
	for i := 0; i < s.c.NodeCount(); i++ {
		if f := s.c.FreeCPUs(i); f > 0 && (nodes == nil || !nodes.Test(uint(i))) {
			cpus += f
			count++
		}
	}
	return cpus, count
}

// headPlan returns the plan for head j, reusing the last one when it is
// still sound, or nil when j can start at no time (failing it when it can
// never run here).
func (e *EASY) headPlan(j *job, now time.Time) *easyPlan {
	if e.plan.head == j.ID && e.plan.shadow.After(now) && e.stillSound() {
		return &e.plan
	}
	e.plan = easyPlan{}
	shadow, nodes, counted, ok := e.shadow(j, now)
	if !ok {
		if _, err := e.s.c.Try(&j.Request, selectnodes.TestOnly); err != nil && neverRuns(err) {
			e.s.setFailure(j, err, now)
		}
		return nil
	}
	known := make(map[JobID]bool, len(counted))
	for _, id := range counted {
		known[id] = true
	}
	e.plan = easyPlan{head: j.ID, shadow: shadow, nodes: nodes, counted: counted, known: known}
	return &e.plan
}

// stillSound reports whether every job the plan counted on still runs and
// every running job is one the plan knows.
func (e *EASY) stillSound() bool {
	for _, id := range e.plan.counted {
		if _, _, _, ok := e.s.c.Allocation(id); !ok {
			return false
		}
	}
	for _, id := range e.s.c.Running() {
		if !e.plan.known[id] {
			return false
		}
	}
	return true
}

// withheldToo is the union of a request's own withheld nodes and more.
func withheldToo(own, more *bitset.BitSet) *bitset.BitSet {
	if own == nil || own.Len() != more.Len() {
		return more
	}
	return own.Union(more)
}

// shadow finds when head j can start (the k-th distinct end of the
// running jobs, the fewest that free enough nodes) and on which nodes
// (the fewest idle ones), by probing node masks; a count bound gives the
// first guess of both, which on identical nodes is the answer.
func (e *EASY) shadow(j *job, now time.Time) (time.Time, *bitset.BitSet, []JobID, bool) {
	s := e.s
	n := uint(s.c.NodeCount())
	counted := s.c.Running()
	busyUntil, idle, ends, freedBy := e.busy(counted)
	freeBy := func(k int) *bitset.BitSet { // busy now, free after the first k ends
		b := bitset.New(n)
		for i, t := range busyUntil {
			if !t.IsZero() && k > 0 && !t.After(ends[k-1]) {
				b.Set(uint(i))
			}
		}
		return b
	}
	need := max(j.Request.MinNodes, 1)
	if cpn := s.maxNodeCPUs(); cpn > 0 && j.Request.CPUs > 0 {
		need = max(need, (j.Request.CPUs+cpn-1)/cpn)
	}
	// the count bound: no start before enough nodes are free
	idleCount := int(idle.Count())
	bound, _ := smallestTrue(0, len(ends), func(k int) bool { return freedBy[k]+idleCount >= need })
	var nodes *bitset.BitSet
	probed := -1
	k, ok := smallestTrue(bound, len(ends), func(k int) bool {
		nodes, probed = s.probeOn(j, freeBy(k).Union(idle)), k
		return nodes != nil
	})
	if ok && probed != k {
		nodes = s.probeOn(j, freeBy(k).Union(idle))
	}
	if !ok || k == 0 {
		// k == 0: it fits on the idle nodes as wholes but not under the
		// current load (shared nodes): hold those nodes from now
		return now, nodes, counted, ok
	}
	// Prefer the freed nodes: allow only as many idle ones as the count
	// bound says the head needs beyond them. One probe; when the
	// selection needs more (features, topology), keep the nodes found.
	freed := freeBy(k)
	least := max(0, need-freedBy[k])
	if nodes == nil || int(nodes.IntersectionCardinality(idle)) <= least {
		return ends[k-1], nodes, counted, true // already the fewest idle nodes
	}
	allowed := freed
	for i, ok := idle.NextSet(0); ok && least > 0; i, ok = idle.NextSet(i + 1) {
		allowed.Set(i)
		least--
	}
	if fewest := s.probeOn(j, allowed); fewest != nil {
		nodes = fewest
	}
	return ends[k-1], nodes, counted, true
}

// busy returns when each node's last running job ends (zero when idle),
// the idle nodes, the distinct ends in order, and freedBy: freedBy[k] is
// how many busy nodes are free after the first k ends. Its slices are
// e's buffers, valid until the next call.
func (e *EASY) busy(running []JobID) (busyUntil []time.Time, idle *bitset.BitSet, ends []time.Time, freedBy []int) {
	c := e.s.c
	n := c.NodeCount()
	busyUntil = slices.Grow(e.busyUntil[:0], n)[:n]
	clear(busyUntil)
	e.busyUntil = busyUntil
	for _, id := range running {
		a, _, end, _ := c.Allocation(id)
		for _, na := range a.Alloc {
			if end.After(busyUntil[na.Node]) {
				busyUntil[na.Node] = end
			}
		}
	}
	idle = bitset.New(uint(n))
	ends = e.ends[:0]
	for i, t := range busyUntil {
		if t.IsZero() {
			idle.Set(uint(i))
		} else {
			ends = append(ends, t)
		}
	}
	slices.SortFunc(ends, func(a, b time.Time) int { return a.Compare(b) })
	freedBy = []int{0}
	for i, t := range ends {
		if i+1 == len(ends) || !ends[i+1].Equal(t) {
			freedBy = append(freedBy, i+1)
		}
	}
	e.ends = ends // the whole buffer: CompactFunc zeroes the tail it drops
	return busyUntil, idle, slices.CompactFunc(ends, func(a, b time.Time) bool { return a.Equal(b) }), freedBy
}

// probeOn selects j's nodes among allowed, ignoring the load (the nodes
// are free by then), or returns nil.
func (s *Scheduler) probeOn(j *job, allowed *bitset.BitSet) *bitset.BitSet {
	req := j.Request
	req.ExcludeNodes = withheldToo(req.ExcludeNodes, allowed.Complement())
	if p, ok := s.c.ProbeNodes(&req, selectnodes.TestOnly); ok {
		return p.Nodes
	}
	return nil
}

// smallestTrue finds the smallest k in [lo, hi] with f(k), for f
// monotone (false then true) and lo a proven lower bound, trying lo first;
// ok is false when f(hi) is false.
func smallestTrue(lo, hi int, f func(int) bool) (int, bool) {
	lo = min(max(lo, 0), hi)
	if f(lo) {
		return lo, true
	}
	best := -1
	for lo++; lo <= hi; {
		mid := (lo + hi) / 2
		if f(mid) {
			best, hi = mid, mid-1
		} else {
			lo = mid + 1
		}
	}
	return best, best >= 0
}
