package queue

import (
	"math/bits"
	"slices"
	"time"

	"github.com/bits-and-blooms/bitset"
)

// regrid makes the profile's slots start exactly at now and at bounds
// (sorted, all after now). Each new slot takes the free set of the old
// slot holding its start (the same set when the old slot starts there, a
// copy when the new slot splits an old one), so a column whose inputs
// did not change stays exact: its own boundaries are all kept, and the
// ones dropped separated equal sets. Slots before now fold into slot 0.
//
// It returns the instants of the boundaries it added or dropped after
// now, whose blocks' cached intersections no longer hold.
//
// The changed-word marks of a new slot are the union of the marks of the
// old slots between its predecessor's source and its own: the words that
// differ between the two are among them.
func (p *profile) regrid(now time.Time, bounds []slotTime) (moved []int64) {
	nowAt := now.UnixNano()
	n := 1 + len(bounds)
	if n == len(p.at) && p.at[0] == nowAt && sameBounds(p.at[1:], bounds) {
		p.times[0] = now
		return nil
	}
	g := &p.spare
	kept := grown(g.kept, len(p.at))
	times, at := grown(g.times, n), grown(g.at, n)
	free, count, changed := grown(g.free, n), grown(g.count, n), grown(g.changed, n)
	src, prev := 0, -1
	for s := range n {
		t, a := now, nowAt
		if s > 0 {
			t, a = bounds[s-1].t, bounds[s-1].at
		}
		for src+1 < len(p.at) && p.at[src+1] <= a {
			src++
		}
		times[s], at[s], count[s] = t, a, p.count[src]
		reused := p.at[src] == a && src != prev
		if s == 0 && !reused {
			// now falls inside old slot src, which no later slot can
			// start at (bounds are after now): slot 0 takes its set as
			// it is (slot 0's marks are never read)
			free[s], changed[s] = p.free[src], p.changed[src]
			kept[src] = true
		} else if reused {
			free[s], changed[s] = p.free[src], p.changed[src]
			kept[src] = true
		} else {
			if s > 0 {
				moved = append(moved, a)
			}
			free[s], changed[s] = p.cloneSlot(src), p.clearMarks(len(p.changed[src]))
		}
		if s > 0 {
			for o := prev + 1; o <= src; o++ {
				if o != src || !reused {
					orInto(changed[s], p.changed[o])
				}
			}
		}
		prev = src
	}
	for o, a := range p.at {
		if !kept[o] && a > nowAt {
			moved = append(moved, a)
		}
		if !kept[o] && len(p.spareSets) < maxSpareSlots { // no new slot holds it
			p.spareSets = append(p.spareSets, p.free[o])
			p.spareMarks = append(p.spareMarks, p.changed[o])
		}
	}
	// the old slot arrays are the next regrid's storage
	clear(p.free)
	clear(p.changed)
	*g = slotArrays{p.times, p.at, p.free, p.count, p.changed, kept}
	p.times, p.at, p.free, p.count, p.changed = times, at, free, count, changed
	return moved
}

// recolumnBufs is recolumn's storage, reused from pass to pass.
type recolumnBufs struct {
	dw   []int
	dm   []uint64
	cols []uint64
	hit  []int
}

// slotArrays is storage for a profile's slot arrays, which regrid fills
// and swaps with the profile's own.
type slotArrays struct {
	times   []time.Time
	at      []int64
	free    []*bitset.BitSet
	count   []int
	changed [][]uint64
	kept    []bool
}

func sameBounds(at []int64, bounds []slotTime) bool {
	for i, b := range bounds {
		if at[i] != b.at {
			return false
		}
	}
	return true
}

func orInto(dst, src []uint64) {
	for i, w := range src {
		dst[i] |= w
	}
}

// recolumn recomputes the columns of the dirty nodes over the current
// slots: a node is free in slot s when it is usable, its free time is not
// after the slot's start, and no reservation holds it over the slot.
// Counts follow, and the marks of the words it rewrote are made exact.
// It returns the words it rewrote (in p's storage, until the next call).
func (p *profile) recolumn(dirty *bitset.BitSet, freeFrom []int64, never *bitset.BitSet, resv []resvStart, nowAt int64) (dw []int) {
	rc := &p.rc
	dw, dm := rc.dw[:0], rc.dm[:0]
	for k, w := range dirty.Words() {
		if w != 0 {
			dw, dm = append(dw, k), append(dm, w)
		}
	}
	rc.dw, rc.dm = dw, dm
	if len(dw) == 0 {
		return nil
	}
	slots, nw := len(p.at), len(dw)
	rc.cols = grown(rc.cols, slots*nw)
	cols := rc.cols
	// a node joins at its free slot and stays: mark the joins, OR them up
	for x, k := range dw {
		for m := dm[x]; m != 0; m &= m - 1 {
			b := bits.TrailingZeros64(m)
			node := k*64 + b
			if never.Test(uint(node)) {
				continue
			}
			s := 0
			if freeFrom[node] > nowAt {
				s, _ = slices.BinarySearch(p.at, freeFrom[node])
			}
			if s < slots {
				cols[s*nw+x] |= 1 << b
			}
		}
	}
	for s := 1; s < slots; s++ {
		orInto(cols[s*nw:(s+1)*nw], cols[(s-1)*nw:s*nw])
	}
	for i := range resv {
		p.clearHeld(cols, dw, dm, &resv[i])
	}
	for s := range slots {
		fw := p.free[s].Words()
		for x, k := range dw {
			old := fw[k]
			w := old&^dm[x] | cols[s*nw+x]
			fw[k] = w
			p.count[s] += bits.OnesCount64(w) - bits.OnesCount64(old)
		}
	}
	for s := 1; s < slots; s++ {
		for _, k := range dw {
			p.remark(s, k)
		}
	}
	return dw
}

// refreshBlocks keeps the cached block intersections true after a pass's
// regrid and recolumn: the blocks up to now's are dropped (no window
// reads them whole again), the ones holding a boundary moved are dropped,
// and in the others the rewritten words are intersected again.
func (p *profile) refreshBlocks(nowAt int64, moved []int64, words []int) {
	c := &p.blocks
	for _, at := range moved {
		c.invalidate(at)
	}
	past := c.block(nowAt)
	for blk, and := range c.and {
		if blk <= past {
			c.spare = append(c.spare, and)
			delete(c.and, blk)
			continue
		}
		if len(words) == 0 {
			continue
		}
		lo, _ := slices.BinarySearch(p.at, c.origin+blk*c.span)
		hi, _ := slices.BinarySearch(p.at, c.origin+(blk+1)*c.span)
		for _, k := range words {
			w := p.free[lo].Words()[k]
			for s := lo + 1; s < hi; s++ {
				w &= p.free[s].Words()[k]
			}
			and[k] = w
		}
	}
}

// clearHeld removes from cols (the dirty words dw, masks dm, per slot)
// the nodes reservation r holds, over the slots of its interval. With a
// few dirty words (the usual case) every one is cleared in each slot: a
// word in which r holds no dirty node loses nothing (cols holds only
// dirty nodes), so listing the words r hits costs more than it saves.
func (p *profile) clearHeld(cols []uint64, dw []int, dm []uint64, r *resvStart) {
	rw := r.nodes.Words()
	nw := len(dw)
	if nw <= smallWindowWords && len(rw) == len(p.free[0].Words()) {
		if !anyHeld(rw, dw, dm) {
			return
		}
		from, _ := slices.BinarySearch(p.at, r.start)
		for s := from; s < len(p.at) && p.at[s] < r.end; s++ {
			c := cols[s*nw : (s+1)*nw : (s+1)*nw]
			for x, k := range dw {
				c[x] &^= rw[k]
			}
		}
		return
	}
	hit := p.rc.hit[:0]
	for x, k := range dw {
		if k < len(rw) && rw[k]&dm[x] != 0 {
			hit = append(hit, x)
		}
	}
	p.rc.hit = hit
	if len(hit) == 0 {
		return
	}
	from, _ := slices.BinarySearch(p.at, r.start)
	to, _ := slices.BinarySearch(p.at, r.end)
	for s := from; s < to; s++ {
		for _, x := range hit {
			cols[s*nw+x] &^= rw[dw[x]]
		}
	}
}

// anyHeld reports whether rw holds a node of the dirty words dw (masks
// dm).
func anyHeld(rw []uint64, dw []int, dm []uint64) bool {
	for x, k := range dw {
		if rw[k]&dm[x] != 0 {
			return true
		}
	}
	return false
}
