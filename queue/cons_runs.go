package queue

import (
	"math"
	"math/bits"
	"time"

	"github.com/bits-and-blooms/bitset"
)

// A window can only become feasible through a node that became free
// somewhere in it and is now free throughout it. So a freed entry also
// records the longest free run, on the profile as it stands once the
// room is freed, of any node it freed: a job longer than that cannot use
// the room (later takes only shorten the runs; a later free is an entry
// of its own, measured on the profile that already holds this one).

// maxRunNodes is how many nodes a freed entry measures runs for; a
// larger one counts as an unbounded run (measuring costs a walk of each
// node's column).
const maxRunNodes = 64

// freedRun logs nodes freed over [from, to) (the profile pr already
// holding the change). A node running jobs with CPUs to spare may take a
// job now beside them wherever no reservation holds it, which the
// profile's whole-node runs do not show: its run counts as unbounded.
func (s *Scheduler) freedRun(l *skipLog, pr *profile, nodes *bitset.BitSet, from, to int64) {
	s.freedRunIn(l, pr, nodes, nil, from, to)
}

// freedRunIn is freedRun given open, the nodes with a free CPU (nil when
// not known): only those can run jobs and have CPUs to spare.
func (s *Scheduler) freedRunIn(l *skipLog, pr *profile, nodes, open *bitset.BitSet, from, to int64) {
	run := time.Duration(math.MaxInt64)
	if c := nodes.Count(); c > 0 && c <= maxRunNodes && !s.anyShared(nodes, open) {
		run = pr.longestRuns(nodes, from, to)
	}
	l.add(skipEntry{freed: true, from: from, to: to, run: run, nodes: nodes})
}

// anyShared reports whether a node of nodes runs jobs with CPUs to spare;
// open, when not nil, holds every node with a free CPU (the others need
// no asking).
func (s *Scheduler) anyShared(nodes, open *bitset.BitSet) bool {
	for k, w := range nodes.Words() {
		if open != nil {
			w &= wordAt(open, k)
		}
		for ; w != 0; w &= w - 1 {
			if i := k*64 + bits.TrailingZeros64(w); s.c.JobsOn(i) > 0 && s.c.FreeCPUs(i) > 0 {
				return true
			}
		}
	}
	return false
}

// freedNow logs nodes left without jobs now, whose columns are free from
// now on at least until what held them would have ended: their runs are
// the ones holding now, and the room they gained lies somewhere after it.
func (s *Scheduler) freedNow(l *skipLog, pr *profile, nodes *bitset.BitSet) {
	now := pr.at[0]
	s.freedRun(l, pr, nodes, now, now+1)
	l.entries[len(l.entries)-1].to = math.MaxInt64
}

// ownRun is the longest free run, as the job holding r sees the profile
// (r given back), that a node of both e and r has meeting e's interval;
// 0 when they share no node. (The run e measured had r in place, which
// cuts the runs of r's nodes short.)
func ownRun(pr *profile, e *skipEntry, r *reservation) time.Duration {
	if e.nodes.IntersectionCardinality(r.nodes) == 0 {
		return 0
	}
	var run time.Duration
	for i, ok := e.nodes.NextSet(0); ok; i, ok = e.nodes.NextSet(i + 1) {
		if r.nodes.Test(i) {
			run = max(run, pr.longestRunBut(i, e.from, e.to, r))
		}
	}
	return run
}

// longestRun is the length of the longest run of slots in which node n
// is free that meets [from, to) (math.MaxInt64 when one has no end).
func (p *profile) longestRun(n uint, from, to int64) time.Duration {
	return p.longestRunBut(n, from, to, nil)
}

// longestRunBut is longestRun with n free over r's interval as well
// (r nil for none).
func (p *profile) longestRunBut(n uint, from, to int64, r *reservation) time.Duration {
	lo, hi := int64(math.MaxInt64), int64(math.MinInt64)
	if r != nil {
		lo, hi = r.Start.UnixNano(), r.End.UnixNano()
	}
	free := func(s int) bool { return (p.at[s] >= lo && p.at[s] < hi) || p.free[s].Test(n) }
	i := p.slotHolding(from)
	for i > 0 && free(i) && free(i-1) {
		i-- // back to the start of the run holding from
	}
	var best time.Duration
	runStart := -1
	for s := i; s < len(p.at); s++ {
		if free(s) {
			if runStart < 0 {
				if p.at[s] >= to {
					break // runs from here on miss [from, to)
				}
				runStart = s
			}
			continue
		}
		if runStart >= 0 {
			best = max(best, time.Duration(p.at[s]-p.at[runStart]))
			runStart = -1
		}
		if p.at[s] >= to {
			break
		}
	}
	if runStart >= 0 {
		return math.MaxInt64 // free to the end of the profile
	}
	return best
}

// longestRuns is the most longestRun gives any node of nodes, found in
// one sweep of the slots a word of nodes at a time (a node's run is
// tracked by the slot it started in), where asking node by node walks
// the slots once per node.
func (p *profile) longestRuns(nodes *bitset.BitSet, from, to int64) time.Duration {
	i := p.slotHolding(from)
	nw := nodes.Words()
	b := &p.sweep
	b.active = grown(b.active, len(nw)) // the nodes in a run
	if len(b.start) < len(nw)*64 {
		b.start = make([]int64, len(nw)*64)
	}
	// back from slot i to the start of the runs holding it
	for k, w := range nw {
		b.active[k] = w & wordAt(p.free[i], k)
	}
	s := i
	for ; s > 0; s-- {
		live := false
		for k := range nw {
			a := b.active[k]
			ended := a &^ wordAt(p.free[s-1], k)
			setStarts(b.start, k, ended, p.at[s])
			b.active[k] = a &^ ended
			live = live || a&^ended != 0
		}
		if !live {
			break
		}
	}
	for k := range nw { // the runs still going back at slot 0, if any
		setStarts(b.start, k, b.active[k], p.at[0])
		b.active[k] = nw[k] & wordAt(p.free[i], k)
		if p.at[i] >= to { // (from before the profile's start) runs from to on miss [from, to)
			for m := b.active[k]; m != 0; m &= m - 1 {
				if bit := bits.TrailingZeros64(m); b.start[k*64+bit] >= to {
					b.active[k] &^= 1 << bit
				}
			}
		}
	}
	var best time.Duration
	for s = i + 1; s < len(p.at); s++ {
		at, live := p.at[s], false
		for k, w := range nw {
			a, f := b.active[k], w&wordAt(p.free[s], k)
			for m := a &^ f; m != 0; m &= m - 1 { // runs ending here
				best = max(best, time.Duration(at-b.start[k*64+bits.TrailingZeros64(m)]))
			}
			a &= f
			if at < to { // runs starting here
				setStarts(b.start, k, f&^a, at)
				a = f
			}
			b.active[k] = a
			live = live || a != 0
		}
		if !live && at >= to {
			return best // no run going, none to start
		}
	}
	for _, a := range b.active {
		if a != 0 {
			return math.MaxInt64 // free to the end of the profile
		}
	}
	return best
}

// wordAt is word k of f, 0 past its end.
func wordAt(f *bitset.BitSet, k int) uint64 {
	if w := f.Words(); k < len(w) {
		return w[k]
	}
	return 0
}

// setStarts records at as the run start of the nodes of word k in m.
func setStarts(start []int64, k int, m uint64, at int64) {
	for ; m != 0; m &= m - 1 {
		start[k*64+bits.TrailingZeros64(m)] = at
	}
}

// freedRun is nodes freed over [from, to), to be measured once the
// profile holds every change of the pass's start.
type freedRun struct {
	nodes    *bitset.BitSet
	from, to int64
}

// inputChanges gathers how the profile's inputs moved between two passes
// (nodes' rounded free times, nodes that can never be used, reservations
// given up outside a pass), for the change log.
type inputChanges struct {
	nowAt      int64
	freed      []int // nodes free earlier than before
	from, to   int64 // over which, together
	anyFreed   bool  // a node came back: room everywhere
	grew, down []int // nodes held longer; nodes lost
	grewTo     int64
	runs       []freedRun
}

// node notes that node i's rounded free time went from a to b (each taken
// as now when not after it) and whether it could never be used.
func (c *inputChanges) node(i int, a, b int64, wasNever, isNever bool) {
	switch {
	case wasNever && !isNever:
		c.anyFreed = true
	case isNever && !wasNever:
		c.down = append(c.down, i)
	case !isNever:
		a, b = max(a, c.nowAt), max(b, c.nowAt)
		if b < a {
			if len(c.freed) == 0 {
				c.from, c.to = b, a
			}
			c.from, c.to = min(c.from, b), max(c.to, a)
			c.freed = append(c.freed, i)
		} else if b > a {
			c.grew = append(c.grew, i)
			c.grewTo = max(c.grewTo, b)
		}
	}
}

// log writes the changes to l (n nodes), measuring runs on pr.
func (c *inputChanges) log(s *Scheduler, l *skipLog, pr *profile, n int) {
	if c.anyFreed {
		l.freed(math.MinInt64)
	}
	if len(c.freed) > 0 {
		b := l.logSet(n, c.freed)
		s.freedRun(l, pr, b, c.from, c.to)
		l.owned(b)
	}
	for _, r := range c.runs {
		s.freedRun(l, pr, r.nodes, r.from, r.to)
	}
	if len(c.grew) > 0 {
		b := l.logSet(n, c.grew)
		l.taken(b, math.MinInt64, c.grewTo)
		l.owned(b)
	}
	if len(c.down) > 0 {
		b := l.logSet(n, c.down)
		l.taken(b, math.MinInt64, math.MaxInt64)
		l.owned(b)
	}
}

// cpusFreed logs nodes with more free CPUs than the last pass left. A
// node left without jobs is free in the profile from now to its next
// reservation, and a start now there is a window like any other; a node
// still running jobs may take a job now beside them, however long its
// free run in the profile (which counts whole nodes), so it counts as
// room everywhere.
func (s *Scheduler) cpusFreed(l *skipLog, nodes []int) {
	empty := l.empty[:0] // (storage kept with the log)
	for _, i := range nodes {
		if s.c.JobsOn(i) > 0 {
			l.freed(math.MinInt64)
			return
		}
		empty = append(empty, i)
	}
	l.empty = empty
	b := l.logSet(s.c.NodeCount(), empty)
	s.freedNow(l, s.kept.pr, b)
	l.owned(b)
}
