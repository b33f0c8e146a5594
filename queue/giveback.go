package queue

import (
	"math"
	"math/bits"
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
// or nil for none. A reservation can hold hundreds of nodes and is given
// back at every plan of its job, so nodes are looked at a word at a time:
// a word all of whose nodes are free by start (wordFreeFrom) is passed
// over without reading its nodes.
func (b *bfRun) heldPast(nodes *bitset.BitSet, start int64) *bitset.BitSet {
	k := b.kept
	var late *bitset.BitSet
	if nodes.IntersectionCardinality(k.never) > 0 {
		late = nodes.Intersection(k.never)
	}
	latest := b.wordFreeFrom()
	for w, word := range nodes.Words() {
		if word == 0 || w >= len(latest) || latest[w] <= start {
			continue
		}
		for ; word != 0; word &= word - 1 {
			i := w*64 + bits.TrailingZeros64(word)
			// busy past start in the profile: by a limit, or by rounding only
			if k.freeFrom[i] > start && b.heldUntil()[i] > start {
				if late == nil {
					late = bitset.New(nodes.Len())
				}
				late.Set(uint(i))
			}
		}
	}
	return late
}

// wordFreeFrom is, per word of 64 nodes, the latest free time of its
// nodes (freeFrom), read once a pass.
func (b *bfRun) wordFreeFrom() []int64 {
	if b.latest != nil {
		return b.latest
	}
	k := b.kept
	n := (len(k.freeFrom) + 63) / 64
	k.latestBuf = grown(k.latestBuf, n)
	latest := k.latestBuf[:n]
	for w := range latest {
		latest[w] = math.MinInt64
	}
	for i, at := range k.freeFrom {
		latest[i/64] = max(latest[i/64], at)
	}
	b.latest = latest
	return latest
}

// heldUntil is, per node, the latest end by time limit (Unix nanoseconds,
// not rounded) of the jobs running at the pass's start, read once a pass
// when a give first needs it. The jobs a pass starts keep off every
// standing reservation's nodes until they end, so they never hold a node
// of a reservation given back past its start and need not be read.
func (b *bfRun) heldUntil() []int64 {
	if b.held != nil {
		return b.held
	}
	k := b.kept
	k.heldBuf = grown(k.heldBuf, len(k.freeFrom))
	held := k.heldBuf
	for i := range held {
		held[i] = math.MinInt64
	}
	for id := range b.s.active {
		p, _, end, ok := b.s.c.Allocation(id)
		if !ok {
			continue
		}
		at := end.UnixNano()
		for k := range p.Alloc {
			i := p.Alloc[k].Node
			held[i] = max(held[i], at)
		}
	}
	b.held = held
	return held
}
