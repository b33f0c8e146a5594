package selectnodes

import (
	"math/bits"

	"github.com/bits-and-blooms/bitset"
)

// Word-span helpers: a record's nodes occupy words [wlo, whi) of a node
// bitmap, and rec.words holds its membership mask there, so work on one
// record touches only its span.

func intersectsSpan(b *bitset.BitSet, rec *record) bool {
	w := b.Words()
	w = w[min(rec.wlo, len(w)):min(rec.whi, len(w))]
	for k, rw := range rec.words[:len(w)] {
		if w[k]&rw != 0 {
			return true
		}
	}
	return false
}

// orSpan sets dst |= src ∩ rec.
func orSpan(dst, src *bitset.BitSet, rec *record) {
	// the spans resliced once, so the loop runs without bounds checks
	rws := rec.words
	d, s := spanOf(dst, rec)[:len(rws)], spanOf(src, rec)[:len(rws)]
	for k, rw := range rws {
		d[k] |= s[k] & rw
	}
}

// spanOf is b's words in rec's span (b has the cluster's size). Callers
// reslice it to len(rec.words) so the compiler drops the bounds checks.
func spanOf(b *bitset.BitSet, rec *record) []uint64 {
	return b.Words()[rec.wlo:rec.whi:rec.whi]
}

// countSpan is |b ∩ rec|.
func countSpan(b *bitset.BitSet, rec *record) int {
	rws := rec.words
	w := spanOf(b, rec)[:len(rws)]
	n := 0
	for k, rw := range rws {
		n += bits.OnesCount64(w[k] & rw)
	}
	return n
}

// countSpanAnd is |a ∩ b ∩ rec|, without building a ∩ b.
func countSpanAnd(a, b *bitset.BitSet, rec *record) int {
	rws := rec.words
	x, y := spanOf(a, rec)[:len(rws)], spanOf(b, rec)[:len(rws)]
	n := 0
	for k, rw := range rws {
		n += bits.OnesCount64(x[k] & y[k] & rw)
	}
	return n
}

// setSpan sets dst's bits in rec to src ∩ rec ∩ mask (mask may be nil).
func setSpan(dst, src, mask *bitset.BitSet, rec *record) {
	d, s := dst.Words(), src.Words()
	var m []uint64
	if mask != nil {
		m = mask.Words()
	}
	for k := rec.wlo; k < rec.whi; k++ {
		rw := rec.words[k-rec.wlo]
		v := s[k] & rw
		if m != nil {
			v &= m[k]
		}
		d[k] = d[k]&^rw | v
	}
}

// subsetOf reports whether a ⊆ b (both the cluster's size).
func subsetOf(a, b *bitset.BitSet) bool {
	aw, bw := a.Words(), b.Words()
	for k := range aw {
		if aw[k]&^bw[k] != 0 {
			return false
		}
	}
	return true
}

// clearSpan removes rec's nodes from dst.
func clearSpan(dst *bitset.BitSet, rec *record) {
	rws := rec.words
	d := spanOf(dst, rec)[:len(rws)]
	for k, rw := range rws {
		d[k] &^= rw
	}
}

// andInto sets dst = a ∩ b in one pass over the words (dst may be a or
// b); the three have the cluster's size.
func andInto(dst, a, b *bitset.BitSet) {
	n := min(len(dst.Words()), len(a.Words()), len(b.Words()))
	andSpan(dst, a, b, 0, n)
	clear(dst.Words()[n:])
}

// andSpan sets the words [lo, hi) of dst to a ∩ b.
func andSpan(dst, a, b *bitset.BitSet, lo, hi int) {
	d := dst.Words()[lo:hi]
	x, y := a.Words()[lo:hi][:len(d)], b.Words()[lo:hi][:len(d)]
	for k := range d {
		d[k] = x[k] & y[k]
	}
}

// orCountSpan sets dst |= src ∩ rec and returns |src ∩ rec|, in one pass.
func orCountSpan(dst, src *bitset.BitSet, rec *record) int {
	rws := rec.words
	d, s := spanOf(dst, rec)[:len(rws)], spanOf(src, rec)[:len(rws)]
	n := 0
	for k, rw := range rws {
		w := s[k] & rw
		d[k] |= w
		n += bits.OnesCount64(w)
	}
	return n
}

// eachRun calls f(start, end) for every maximal run [start, end) of set
// bits of words within the bits [lo, hi), in order, until f returns
// false. It visits only the words and the transitions between set and
// clear bits, where a walk by NextSet and NextClear calls both per run.
func eachRun(words []uint64, lo, hi int, f func(start, end int) bool) {
	hi = min(hi, len(words)*64)
	if lo >= hi {
		return
	}
	start := -1
	var carry uint64 // the bit before the word's first: 1 when set
	for k := lo / 64; k*64 < hi; k++ {
		w := words[k]
		if k == lo/64 {
			w &= ^uint64(0) << (lo % 64)
		}
		if top := hi - k*64; top < 64 {
			w &= 1<<top - 1
		}
		starts, ends := w&^(w<<1|carry), ^w&(w<<1|carry)
		carry = w >> 63
		for starts|ends != 0 {
			if s, e := bits.TrailingZeros64(starts), bits.TrailingZeros64(ends); s < e {
				start = k*64 + s
				starts &= starts - 1
			} else {
				if !f(start, k*64+e) {
					return
				}
				ends &= ends - 1
			}
		}
	}
	if carry != 0 { // a run reaching hi at a word's end
		f(start, hi)
	}
}
