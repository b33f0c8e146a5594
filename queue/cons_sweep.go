package queue

import (
	"math"
	"math/bits"
	"time"

	"github.com/bits-and-blooms/bitset"
)

// A certificate's gained nodes are weighed all at once: one sweep of the
// slots follows every node's free runs together (a word of nodes at a
// time), where asking hasRun node by node walks the slots once per node.
// A node's run enters a queue when it starts; runs start in time order,
// so the run at the head is always the next to reach the job's length.

// runStart is a free run of one node, queued by its start.
type runStart struct {
	node  uint
	start int64
}

// sweepBufs is runsFrom's storage, kept with the profile.
type sweepBufs struct {
	active, done []uint64
	start        []int64
	queue        []runStart
}

// runsFrom counts the nodes n of g for which hasRun(n, from, to, d, own)
// holds, own being r for the nodes of r and nil for the others; it stops
// counting past limit.
func (p *profile) runsFrom(g *bitset.BitSet, from, to int64, d time.Duration, r *reservation, limit int) int {
	lo, hi := int64(math.MaxInt64), int64(math.MinInt64)
	var own []uint64
	if r != nil {
		lo, hi, own = r.Start.UnixNano(), r.End.UnixNano(), r.nodes.Words()
	}
	i := p.slotHolding(from)
	gw := g.Words()
	b := &p.sweep
	b.active, b.done = grown(b.active, len(gw)), grown(b.done, len(gw))
	if len(b.start) < len(gw)*64 {
		b.start = make([]int64, len(gw)*64)
	}
	q, head, n := b.queue[:0], 0, 0
	for ; i < len(p.at); i++ {
		at := p.at[i]
		live := p.slotRuns(i, gw, own, at >= lo && at < hi, at < to, max(at, from), &q)
		// the runs that reach d by the next slot's start (or the end)
		for head < len(q) {
			e := q[head]
			if i+1 < len(p.at) && p.at[i+1]-e.start < int64(d) {
				break
			}
			head++
			k, bit := e.node/64, uint64(1)<<(e.node%64)
			if b.active[k]&bit != 0 && b.start[e.node] == e.start {
				b.done[k] |= bit
				b.active[k] &^= bit
				n++
			}
		}
		if n > limit || (!live && at >= to) {
			break // enough, or no run started in time is still going
		}
	}
	b.queue = q[:0]
	return n
}

// slotRuns brings the sweep to slot i: nodes of g not yet counted that
// are free there (or in r's interval, inOwn, for r's nodes own) stay
// in their runs, and when startOK new runs start at start. It reports
// whether any run is still going.
func (p *profile) slotRuns(i int, gw, own []uint64, inOwn, startOK bool, start int64, q *[]runStart) (live bool) {
	b := &p.sweep
	fw := p.free[i].Words()
	for k := range gw {
		var f uint64
		if k < len(fw) {
			f = fw[k]
		}
		if inOwn && k < len(own) {
			f |= own[k]
		}
		f &= gw[k] &^ b.done[k]
		began := f &^ b.active[k]
		act := b.active[k] & f
		if startOK && began != 0 {
			act |= began
			for m := began; m != 0; m &= m - 1 {
				node := uint(k*64 + bits.TrailingZeros64(m))
				b.start[node] = start
				*q = append(*q, runStart{node, start})
			}
		}
		b.active[k] = act
		live = live || act != 0
	}
	return live
}

// slotHolding is the index of the slot holding from (Unix nanoseconds):
// the last slot starting at or before it, 0 when from is before them all.
func (p *profile) slotHolding(from int64) int {
	if from <= p.at[0] {
		return 0
	}
	i, _ := p.find(time.Unix(0, from))
	if i == len(p.at) || p.at[i] > from {
		i--
	}
	return i
}
