package queue

import (
	"math"
	"math/bits"
	"slices"
	"time"

	"github.com/bits-and-blooms/bitset"
)

// profile is the availability of whole nodes over time (Slurm backfill's
// node space map): slot i covers [times[i], times[i+1]) — the last slot
// has no end — and free[i] holds the nodes free for all of it.
type profile struct {
	times []time.Time
	at    []int64 // times as Unix nanoseconds, to search and compare
	free  []*bitset.BitSet
	count []int // |free[i]|, a quick bound
	// changed[i] marks the words of free[i] that may differ from
	// free[i-1]'s (a superset: take and give mark what they touch at the
	// ends of their interval and never unmark), so a window intersects
	// only those words; see window.
	changed [][]uint64
	// blocks caches the intersection of the slots in spans of time, so a
	// long window ANDs a few spans instead of every slot; see blocks.go.
	blocks blockCache

	// spareSets and spareMarks are slot sets and marks a regrid dropped,
	// for the slots later splits and regrids make (a profile's sets all
	// have its length, its marks its mark words)
	spareSets  []*bitset.BitSet
	spareMarks [][]uint64

	scratch []uint     // members' buffer
	masks   []wordMask // maskWords' buffer
	spare   slotArrays // regrid's buffers
	rc      recolumnBufs
	sweep   sweepBufs // runsFrom's buffers
}

// bfBuffers are storage Backfill reuses from pass to pass (they hold no
// state a decision reads: every pass overwrites what it uses).
type bfBuffers struct {
	freeAt []time.Time
	raw    []int64  // distinct free times
	words  []uint64 // the profile's initial slots
	marks  []uint64
}

// grown returns buf resliced to n elements, zeroed.
func grown[T any](buf []T, n int) []T {
	buf = slices.Grow(buf[:0], n)[:n]
	clear(buf)
	return buf
}

// newProfile starts from each node's free time (zero for never, e.g. a
// down node), rounded up to a multiple of res. Its slots also start at
// the times in extra (none before now), the boundaries the caller is
// about to take reservations between, so those takes insert no slot: for
// an instant given twice the first value given stands, free times first,
// as splitting in that order would leave it.
func newProfile(now time.Time, freeAt []time.Time, never *bitset.BitSet, res time.Duration, extra []time.Time, buf *bfBuffers) *profile {
	n := uint(len(freeAt))
	// Round up to multiples of res in absolute time, so that the same
	// release falls on the same slot boundary in every pass.
	round := func(t time.Time) time.Time { return roundUp(t, now, res) }
	// the distinct free times after now, sorted; rounding up is monotone,
	// so their rounded values come sorted too (each rounded once)
	raw := buf.raw[:0]
	for i, t := range freeAt {
		if t.After(now) && (never == nil || !never.Test(uint(i))) {
			raw = append(raw, t.UnixNano())
		}
	}
	slices.Sort(raw)
	raw = slices.Compact(raw)
	buf.raw = raw
	ts := []time.Time{now}
	for _, r := range raw {
		if t := round(time.Unix(0, r).In(now.Location())); t.After(ts[len(ts)-1]) {
			ts = append(ts, t)
		}
	}
	ts = mergeTimes(ts, extra)
	p := &profile{times: ts, at: make([]int64, len(ts)), free: make([]*bitset.BitSet, len(ts)), count: make([]int, len(ts)),
		changed: make([][]uint64, len(ts))}
	for s, t := range ts {
		p.at[s] = t.UnixNano()
	}
	// each node joins the slot of its rounded free time (now's if free
	// now) and stays: mark the joins, then OR them up slot by slot
	words := int((n + 63) / 64)
	buf.words = grown(buf.words, words*len(ts))
	buf.marks = grown(buf.marks, markWords(words)*len(ts))
	for s := range ts {
		w := buf.words[s*words : (s+1)*words : (s+1)*words]
		p.free[s] = bitset.FromWithLength(n, w)
		p.changed[s] = buf.marks[s*markWords(words) : (s+1)*markWords(words) : (s+1)*markWords(words)]
	}
	for i, t := range freeAt {
		if never != nil && never.Test(uint(i)) {
			continue
		}
		s := 0
		if t.After(now) {
			s, _ = slices.BinarySearch(p.at, round(t).UnixNano())
		}
		p.free[s].Set(uint(i))
		if s > 0 {
			markWord(p.changed[s], i/64)
		}
	}
	for s := range ts {
		if s > 0 {
			p.free[s].InPlaceUnion(p.free[s-1])
		}
		p.count[s] = int(p.free[s].Count())
	}
	p.blocks = newBlockCache(now, res, words)
	return p
}

// find returns the slot starting at t, or where one would be inserted.
func (p *profile) find(t time.Time) (int, bool) {
	return slices.BinarySearch(p.at, t.UnixNano())
}

// mergeTimes merges extra into the sorted, distinct ts, keeping ts's value
// of an instant in both and the first of extra's repeats.
func mergeTimes(ts, extra []time.Time) []time.Time {
	if len(extra) == 0 {
		return ts
	}
	extra = slices.Clone(extra)
	slices.SortStableFunc(extra, func(a, b time.Time) int { return a.Compare(b) })
	out := make([]time.Time, 0, len(ts)+len(extra))
	i := 0
	for _, t := range extra {
		for ; i < len(ts) && !ts[i].After(t); i++ {
			out = append(out, ts[i])
		}
		if last := len(out) - 1; last >= 0 && out[last].Equal(t) {
			continue // an instant already there
		}
		out = append(out, t)
	}
	return append(out, ts[i:]...)
}

// split makes t a slot boundary and returns its slot.
func (p *profile) split(t time.Time) int {
	i, found := p.find(t)
	if found {
		return i
	}
	// t falls inside slot i-1 (t is never before times[0] = now)
	p.times = slices.Insert(p.times, i, t)
	p.at = slices.Insert(p.at, i, t.UnixNano())
	p.free = slices.Insert(p.free, i, p.cloneSlot(i-1))
	p.count = slices.Insert(p.count, i, p.count[i-1])
	p.changed = slices.Insert(p.changed, i, p.clearMarks(len(p.changed[i-1]))) // a copy: nothing differs
	p.blocks.invalidate(p.at[i])
	return i
}

// cloneSlot returns a copy of slot i's free set, in a spare set when
// there is one.
func (p *profile) cloneSlot(i int) *bitset.BitSet {
	src := p.free[i]
	if n := len(p.spareSets); n > 0 {
		c := p.spareSets[n-1]
		p.spareSets[n-1] = nil
		p.spareSets = p.spareSets[:n-1]
		if c.Len() == src.Len() {
			copy(c.Words(), src.Words())
			return c
		}
	}
	return src.Clone()
}

// clearMarks returns n words of marks, all clear, spare ones when there
// are some.
func (p *profile) clearMarks(n int) []uint64 {
	if k := len(p.spareMarks); k > 0 {
		m := p.spareMarks[k-1]
		p.spareMarks[k-1] = nil
		p.spareMarks = p.spareMarks[:k-1]
		if len(m) == n {
			clear(m)
			return m
		}
	}
	return make([]uint64, n)
}

// maxSpareSlots bounds the spare slot sets and marks a profile keeps.
const maxSpareSlots = 64

// take removes nodes from every slot in [start, end); give puts them back.
// A reservation's nodes are usually far fewer than a slot's words, so
// both work on just the words holding them then (a few word operations
// per slot instead of a pass over every word of every slot in the
// interval).
func (p *profile) take(nodes *bitset.BitSet, start, end time.Time) {
	if !end.After(p.times[0]) {
		return
	}
	start = maxTime(start, p.times[0])
	p.split(end)
	members := p.members(nodes)
	masks := p.maskWords(members)
	first, i := p.split(start), 0
	for i = first; i < len(p.at) && p.at[i] < end.UnixNano(); i++ {
		f := p.free[i]
		if members == nil {
			p.count[i] -= andNotWords(f, nodes)
			continue
		}
		fw := f.Words()
		for _, x := range masks {
			if h := fw[x.k] & x.m; h != 0 {
				fw[x.k] &^= h
				p.count[i] -= bits.OnesCount64(h)
			}
		}
	}
	p.markEnds(first, i, nodes, members)
	if i > first {
		p.blocks.took(p.at[first], p.at[i-1], nodes, members)
	}
}

func (p *profile) give(nodes *bitset.BitSet, start, end time.Time) {
	if !end.After(p.times[0]) {
		return
	}
	start = maxTime(start, p.times[0])
	members := p.members(nodes)
	masks := p.maskWords(members)
	first, i := p.split(start), 0
	for i = first; i < len(p.at) && p.at[i] < end.UnixNano(); i++ {
		f := p.free[i]
		if members == nil {
			p.count[i] += orWords(f, nodes)
			continue
		}
		fw := f.Words()
		for _, x := range masks {
			if h := x.m &^ fw[x.k]; h != 0 {
				fw[x.k] |= h
				p.count[i] += bits.OnesCount64(h)
			}
		}
	}
	p.markEnds(first, i, nodes, members)
	if i > first {
		p.blocks.invalidateRange(p.at[first], p.at[i-1])
	}
}

// andNotWords removes nodes from f and returns how many were in it
// (IntersectionCardinality, then InPlaceDifference, in one pass over the
// words when both sets have the same words, as a profile's do).
func andNotWords(f, nodes *bitset.BitSet) int {
	fw, nw := f.Words(), nodes.Words()
	if len(fw) != len(nw) {
		c := int(f.IntersectionCardinality(nodes))
		f.InPlaceDifference(nodes)
		return c
	}
	c := 0
	for k, w := range nw {
		if h := fw[k] & w; h != 0 {
			fw[k] &^= h
			c += bits.OnesCount64(h)
		}
	}
	return c
}

// orWords adds nodes to f and returns how many were not in it
// (DifferenceCardinality, then InPlaceUnion, likewise).
func orWords(f, nodes *bitset.BitSet) int {
	fw, nw := f.Words(), nodes.Words()
	if len(fw) != len(nw) || f.Len() != nodes.Len() {
		c := int(nodes.DifferenceCardinality(f))
		f.InPlaceUnion(nodes)
		return c
	}
	c := 0
	for k, w := range nw {
		if h := w &^ fw[k]; h != 0 {
			fw[k] |= h
			c += bits.OnesCount64(h)
		}
	}
	return c
}

// members lists the nodes of a set small enough to be worked on node by
// node (fewer than a quarter of its words), or returns nil. The list
// lives in p's scratch buffer until the next call.
func (p *profile) members(nodes *bitset.BitSet) []uint {
	words := len(nodes.Words())
	p.scratch = p.scratch[:0]
	for i, ok := nodes.NextSet(0); ok; i, ok = nodes.NextSet(i + 1) {
		if 4*len(p.scratch) >= words {
			return nil
		}
		p.scratch = append(p.scratch, i)
	}
	return p.scratch
}

// wordMask is the members of a node set that fall in word k.
type wordMask struct {
	k int
	m uint64
}

// maskWords groups members (ascending, as members lists them) by word.
// The list lives in p's buffer until the next call; nil members give nil.
func (p *profile) maskWords(members []uint) []wordMask {
	if members == nil {
		return nil
	}
	p.masks = p.masks[:0]
	for _, b := range members {
		k, bit := int(b/64), uint64(1)<<(b%64)
		if n := len(p.masks); n > 0 && p.masks[n-1].k == k {
			p.masks[n-1].m |= bit
			continue
		}
		p.masks = append(p.masks, wordMask{k, bit})
	}
	return p.masks
}

// window writes into w the nodes free throughout [times[i], times[i]+d).
// The blocks the window covers whole are intersected as one set each (see
// blockCache); the slots of its first and last block one by one.
func (p *profile) window(i int, d time.Duration, w *bitset.BitSet) {
	p.free[i].Copy(w)
	ww := w.Words()
	end := laterAt(p.at[i], d)
	last, _ := slices.BinarySearch(p.at, end) // the first slot after the window
	if last <= i+1 {
		return
	}
	if len(ww) <= smallWindowWords {
		// a few words a slot: ANDing every slot costs less than the
		// marks and blocks would save (and no block is ever stored)
		for j := i + 1; j < last; j++ {
			for k, f := range p.free[j].Words() {
				ww[k] &= f
			}
		}
		return
	}
	first, final := p.blocks.block(p.at[i]), p.blocks.block(p.at[last-1])
	for j := i + 1; j < last; {
		blk := p.blocks.block(p.at[j])
		if blk == first || blk == final {
			p.intersectSlots(ww, j, j+1)
			j++
			continue
		}
		and, next := p.blockAnd(blk, j)
		for k, a := range and {
			ww[k] &= a
		}
		j = next
	}
}

// smallWindowWords is the most words a node set may have for window to
// intersect every slot of a window directly.
const smallWindowWords = 4

// freeThroughout reports whether nodes are free in every slot of
// [times[i], times[i]+d), that is within window(i, d), reading only the
// words that hold them when they are few.
func (p *profile) freeThroughout(nodes *bitset.BitSet, i int, d time.Duration) bool {
	end := laterAt(p.at[i], d)
	masks := p.maskWords(p.members(nodes))
	for j := i; j < len(p.at) && (j == i || p.at[j] < end); j++ {
		if masks == nil {
			if nodes.DifferenceCardinality(p.free[j]) != 0 {
				return false
			}
			continue
		}
		fw := p.free[j].Words()
		for _, x := range masks {
			if fw[x.k]&x.m != x.m {
				return false
			}
		}
	}
	return true
}

// intersectSlots intersects w with the free sets of slots [from, to),
// given that w is already within slot from-1's: only the words a slot may
// have changed from the one before are read (a word equal to the previous
// slot's leaves the running intersection as it is).
func (p *profile) intersectSlots(w []uint64, from, to int) {
	for j := from; j < to; j++ {
		fw := p.free[j].Words()
		for x, m := range p.changed[j] {
			for ; m != 0; m &= m - 1 {
				k := x*64 + bits.TrailingZeros64(m)
				w[k] &= fw[k]
			}
		}
	}
}

// markEnds updates, at slot first and at slot end (when there is one),
// the marks of the words nodes touch: an interval's change may make its
// first slot differ from the one before, or the slot after it from its
// last, or undo such a difference (one reservation handing a node to the
// next). Inside, both neighbours changed alike, so a word that differed
// still may, and one that did not still does not.
func (p *profile) markEnds(first, end int, nodes *bitset.BitSet, members []uint) {
	for _, s := range []int{first, end} {
		if s == 0 || s >= len(p.changed) {
			continue
		}
		if members != nil {
			for _, b := range members {
				p.remark(s, int(b/64))
			}
			continue
		}
		for k, word := range nodes.Words() {
			if word != 0 && k < len(p.changed[s])*64 {
				p.remark(s, k)
			}
		}
	}
}

// remark sets word k's mark at slot s (> 0) to whether it differs from
// the previous slot's.
func (p *profile) remark(s, k int) {
	bit := uint64(1) << (k % 64)
	if p.free[s].Words()[k] != p.free[s-1].Words()[k] {
		p.changed[s][k/64] |= bit
	} else {
		p.changed[s][k/64] &^= bit
	}
}

// markWords is how many words of marks cover words words.
func markWords(words int) int { return (words + 63) / 64 }

func markWord(marks []uint64, k int) { marks[k/64] |= 1 << (k % 64) }

func maxTime(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

// short returns the last slot in [times[i], times[i]+d) with fewer than
// need free nodes, or -1.
func (p *profile) short(i int, d time.Duration, need int) int {
	end := laterAt(p.at[i], d)
	last := -1
	for j := i; j < len(p.at) && (j == i || p.at[j] < end); j++ {
		if p.count[j] < need {
			last = j
		}
	}
	return last
}

// shortScan answers short for the starts of one search in increasing
// order, reading each slot's count once: a window's end never moves back
// as its start moves on, so the last short slot among the slots read so
// far is the last one in the current window whenever it lies at or after
// the window's start. The profile must not change between calls.
type shortScan struct {
	p          *profile
	d          time.Duration
	need       int
	next, last int // the first slot not read yet; the last short slot read (-1: none)
}

func (p *profile) shortScan(d time.Duration, need int) shortScan {
	return shortScan{p: p, d: d, need: need, last: -1}
}

// at is p.short(i, d, need); i must not decrease from call to call.
func (s *shortScan) at(i int) int {
	p := s.p
	end := laterAt(p.at[i], s.d)
	s.next = max(s.next, i)
	for ; s.next < len(p.at) && (s.next == i || p.at[s.next] < end); s.next++ {
		if p.count[s.next] < s.need {
			s.last = s.next
		}
	}
	if s.last >= i {
		return s.last
	}
	return -1
}

// endOfTimeAt is EndOfTime in Unix nanoseconds (a test holds them equal).
const endOfTimeAt = 9214646400000000000

// laterAt is later(t, d).UnixNano() for t at Unix nanoseconds at, in
// integers: the profile's hot loops ask it for every start they try.
func laterAt(at int64, d time.Duration) int64 {
	if d <= 0 {
		return at
	}
	if at >= endOfTimeAt {
		return endOfTimeAt
	}
	// the distance to the end, exact in unsigned arithmetic and saturated
	// as time.Time.Sub saturates
	left := min(uint64(endOfTimeAt)-uint64(at), math.MaxInt64)
	if left <= uint64(d) {
		return endOfTimeAt
	}
	return at + int64(d)
}
