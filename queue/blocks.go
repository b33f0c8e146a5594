package queue

import (
	"slices"
	"time"

	"github.com/bits-and-blooms/bitset"
)

// blockSlots is how many backfill resolution steps one block of the
// profile spans. A window pays for the slots of its first and last block
// one by one (about blockSlots in all) and one intersection per block in
// between, so for windows of a few hours at one-minute slots a block of
// a quarter of an hour makes a window several times cheaper than
// intersecting every slot.
const blockSlots = 16

// blockCache keeps, for spans of time ("blocks": block b holds the slots
// starting in [origin+b*span, origin+(b+1)*span)), the intersection of
// the free sets of the block's slots, so that a window ANDs one set per
// block it covers whole instead of one per slot (at 100,000 nodes and
// 60,000 reservations, a slot's free set differs from the one before in
// most of its words, so the changed-word marks no longer thin that out).
//
// An entry is computed when a window first needs it and kept exact: a
// take removes its nodes from the entries of the blocks it touches (a
// node taken from one slot of a block is missing from the block's
// intersection); a give or a split drops the entries it touches (a node
// given back may or may not be free in the block's other slots). Only
// blocks holding at least one slot are ever stored, so a take never
// clears nodes from an empty block, whose intersection is "everything".
type blockCache struct {
	origin, span int64 // Unix nanoseconds
	words        int
	and          map[int64][]uint64
	spare        [][]uint64 // dropped entries' storage, reused
}

func newBlockCache(now time.Time, res time.Duration, words int) blockCache {
	if res <= 0 {
		res = time.Minute
	}
	return blockCache{origin: now.UnixNano(), span: int64(res) * blockSlots, words: words, and: map[int64][]uint64{}}
}

// block returns the block of a slot starting at at (never before origin).
func (c *blockCache) block(at int64) int64 { return (at - c.origin) / c.span }

// each calls f for every stored entry of the blocks from the one holding
// a to the one holding b, visiting whichever is fewer: the blocks in the
// range or the stored entries. Each entry is changed on its own, so the
// order of the visits does not matter.
func (c *blockCache) each(a, b int64, f func(blk int64, and []uint64)) {
	if len(c.and) == 0 {
		return // nothing stored (always so for small clusters: see window)
	}
	lo, hi := c.block(a), c.block(b)
	if hi-lo < int64(len(c.and)) {
		for blk := lo; blk <= hi; blk++ {
			if and, ok := c.and[blk]; ok {
				f(blk, and)
			}
		}
		return
	}
	for blk, and := range c.and {
		if blk >= lo && blk <= hi {
			f(blk, and)
		}
	}
}

// invalidate drops the entry of the block holding at.
func (c *blockCache) invalidate(at int64) { c.invalidateRange(at, at) }

// invalidateRange drops the entries of the blocks from a's to b's.
func (c *blockCache) invalidateRange(a, b int64) {
	c.each(a, b, func(blk int64, and []uint64) {
		c.spare = append(c.spare, and)
		delete(c.and, blk)
	})
}

// took removes nodes (members, when not nil, lists them) from the
// entries of the blocks from a's to b's: the slots there lost them.
func (c *blockCache) took(a, b int64, nodes *bitset.BitSet, members []uint) {
	c.each(a, b, func(_ int64, and []uint64) {
		if members != nil {
			for _, n := range members {
				and[n/64] &^= 1 << (n % 64)
			}
			return
		}
		for k, w := range nodes.Words() {
			if k < len(and) {
				and[k] &^= w
			}
		}
	})
}

// blockAnd returns the intersection of the free sets of the slots of
// block blk, whose first slot is lo, and the index of the first slot after
// the block.
func (p *profile) blockAnd(blk int64, lo int) ([]uint64, int) {
	c := &p.blocks
	end := c.origin + (blk+1)*c.span
	hi, _ := slices.BinarySearch(p.at[lo:], end)
	hi += lo
	if and, ok := c.and[blk]; ok {
		return and, hi
	}
	var and []uint64
	if n := len(c.spare); n > 0 {
		and, c.spare = c.spare[n-1], c.spare[:n-1]
	} else {
		and = make([]uint64, c.words)
	}
	copy(and, p.free[lo].Words())
	p.intersectSlots(and, lo+1, hi)
	c.and[blk] = and
	return and, hi
}
