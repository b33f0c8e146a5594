package hostlist

import (
	"strconv"
	"strings"
)

// Budget bounds what one expansion may build. A field that is 0 or less
// takes its default (DefaultLimit hosts, DefaultByteLimit bytes).
type Budget struct {
	Hosts int // most names
	Bytes int // most bytes of all names together
}

func (b Budget) withDefaults() Budget {
	if b.Hosts <= 0 {
		b.Hosts = DefaultLimit
	}
	if b.Bytes <= 0 {
		b.Bytes = DefaultByteLimit
	}
	return b
}

// Expand returns the host names expr names, in order, duplicates kept. It
// fails with an *Error if expr is malformed or names more than DefaultLimit
// hosts or DefaultByteLimit bytes.
func Expand(expr string) ([]string, error) {
	return ExpandBudget(expr, Budget{})
}

// ExpandLimit is Expand with a caller-chosen limit on the number of names;
// the byte budget stays DefaultByteLimit. A limit of 0 or less allows no
// name at all.
func ExpandLimit(expr string, limit int) ([]string, error) {
	return expand(expr, max(limit, 0), DefaultByteLimit)
}

// ExpandBudget is Expand within b. Both limits are checked before any name
// is built, so an expression over budget costs only its parse; the error
// wraps ErrBudget and names the limit. Peak memory is about b.Bytes plus
// 24 bytes per name.
func ExpandBudget(expr string, b Budget) ([]string, error) {
	b = b.withDefaults()
	return expand(expr, b.Hosts, b.Bytes)
}

func expand(expr string, hostLimit, byteLimit int) ([]string, error) {
	toks, total, err := parse(expr, hostLimit)
	if err != nil {
		return nil, err
	}
	if total == 0 {
		return nil, nil
	}
	var nbytes uint64
	for i := range toks {
		nbytes = satAdd(nbytes, toks[i].bytes())
		if nbytes > uint64(byteLimit) {
			return nil, budgetf(ErrByteBudget, expr, toks[i].start, "expression expands to more than %d bytes (byte budget)", byteLimit)
		}
	}
	var buf strings.Builder
	buf.Grow(int(nbytes))
	ends := make([]int, 0, total)
	for i := range toks {
		ends = toks[i].expand(&buf, ends)
	}
	// One string backs every name: two allocations for the whole expansion.
	all := buf.String()
	names := make([]string, len(ends))
	start := 0
	for i, end := range ends {
		names[i] = all[start:end]
		start = end
	}
	return names, nil
}

// Count returns how many names expr expands to, without building them. It
// applies no total limit, only the per-range and per-name ones, and an
// error wrapping ErrHostBudget when the count would not fit in 62 bits.
func Count(expr string) (int, error) {
	_, total, err := parse(expr, noLimit)
	return int(total), err
}

// expand writes every name of t to buf, recording where each ends. It is
// an odometer over the groups, iterative so that a token of millions of
// groups needs no deep stack: after each name the last group advances, and
// a group that wraps carries into the one before it.
func (t *token) expand(buf *strings.Builder, ends []int) []int {
	g := t.groups()
	idx := make([]int, g)    // current range of each group
	val := make([]uint64, g) // current value of each group
	mark := make([]int, g)   // length of cur before each group's digits
	cur := []byte(t.lits[0]) // the name being built
	for k := range g {
		val[k] = t.group(k)[0].lo
	}
	from := 0 // first group whose text in cur is stale
	for {
		cur = cur[:len(t.lits[0])]
		if from > 0 {
			cur = cur[:mark[from]]
		}
		for k := from; k < g; k++ {
			mark[k] = len(cur)
			cur = appendPadded(cur, val[k], t.group(k)[idx[k]].width)
			cur = append(cur, t.lits[k+1]...)
		}
		buf.Write(cur)
		ends = append(ends, buf.Len())
		if from = t.advance(idx, val); from < 0 {
			return ends
		}
	}
}

// advance moves the odometer one step and returns the first group that
// changed, or -1 when every combination has been produced.
func (t *token) advance(idx []int, val []uint64) int {
	for k := len(idx) - 1; k >= 0; k-- {
		grp := t.group(k)
		switch {
		case val[k] < grp[idx[k]].hi:
			val[k]++
			return k
		case idx[k]+1 < len(grp):
			idx[k]++
			val[k] = grp[idx[k]].lo
			return k
		}
		idx[k], val[k] = 0, grp[0].lo // wrap, carry into group k-1
	}
	return -1
}

func appendPadded(b []byte, v uint64, width int) []byte {
	for n := digits(v); n < width; n++ {
		b = append(b, '0')
	}
	return strconv.AppendUint(b, v, 10)
}

func digits(v uint64) int {
	n := 1
	for v >= 10 {
		v /= 10
		n++
	}
	return n
}

// bytes is the exact length of all of t's names put together, saturating
// at MaxUint64.
func (t *token) bytes() uint64 {
	var lits uint64
	for _, l := range t.lits {
		lits += uint64(len(l))
	}
	total := satMul(lits, t.size)
	for g := range t.groups() {
		var d uint64
		for _, r := range t.group(g) {
			d += r.digitBytes() // at most 18 * MaxRangeSize per range
		}
		total = satAdd(total, satMul(d, t.size/t.sizes[g]))
	}
	return total
}

// digitBytes is the number of bytes lo..hi take when printed, counted by
// bands of equal digit count rather than one by one.
func (r rng) digitBytes() uint64 {
	var total uint64
	bandLo, bandHi := uint64(0), uint64(9)
	for n := 1; bandLo <= r.hi; n++ {
		lo, hi := max(bandLo, r.lo), min(bandHi, r.hi)
		if lo <= hi {
			total += (hi - lo + 1) * uint64(max(n, r.width))
		}
		bandLo = bandHi + 1
		bandHi = bandHi*10 + 9
	}
	return total
}
