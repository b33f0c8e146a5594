package queue

import (
	"time"

	"github.com/bits-and-blooms/bitset"
)

// giveBack returns a job's standing reservation r to the profile before
// the job is planned again, freeing each of its nodes only where a
// profile rebuilt without r has it free, apart from the backfill's own
// rounding: not a node that can no longer be used (drained or down since
// r was made), and not before the free time of a node that a running job
// holds past r's start by its time limit itself (a limit grown since, or
// a start that did not keep off r). A plain give frees those too, and
// the plan finds r's slot again on nodes that are not free then.
//
// A job backfilled beside r ends by r's start, but the profile rounds its
// end up to the backfill resolution, so its node reads busy a little into
// r; such a node is r's to give back, as a plain give does, or each
// backfilled start would push the reservations beside it later (which
// conservative backfill promises never to do). Usually every node of r is
// free by its start in the profile, and this is one give.
func (b *bfRun) giveBack(r reservation) {
	start := r.Start.UnixNano()
	late := b.heldPast(r.nodes, start)
	if late == nil {
		b.pr.give(r.nodes, r.Start, r.End)
		return
	}
	k := b.kept
	b.pr.give(r.nodes.Difference(late), r.Start, r.End)
	one := bitset.New(r.nodes.Len())
	end := r.End.UnixNano()
	for i, ok := late.NextSet(0); ok; i, ok = late.NextSet(i + 1) {
		if from := k.freeFrom[i]; !k.never.Test(i) && from < end {
			one.Set(i)
			b.pr.give(one, time.Unix(0, from).In(r.Start.Location()), r.End)
			one.Clear(i)
		}
	}
}

// heldPast returns the nodes of nodes that cannot be used, or that a
// running job holds past start (Unix nanoseconds) by its own time limit,
// or nil for none. Most calls end at the first loop: no node is unusable
// or busy past start in the profile.
func (b *bfRun) heldPast(nodes *bitset.BitSet, start int64) *bitset.BitSet {
	k := b.kept
	late := nodes.Intersection(k.never)
	busy := false
	for i, ok := nodes.NextSet(0); ok; i, ok = nodes.NextSet(i + 1) {
		busy = busy || k.freeFrom[i] > start
	}
	if !busy {
		if late.Any() {
			return late
		}
		return nil
	}
	// which of them hold a job past start by its limit, not by rounding
	for _, j := range b.s.active {
		p, _, end, ok := b.s.c.Allocation(j.ID)
		if !ok || end.UnixNano() <= start {
			continue
		}
		for _, a := range p.Alloc {
			if i := uint(a.Node); nodes.Test(i) {
				late.Set(i)
			}
		}
	}
	if late.Any() {
		return late
	}
	return nil
}
