package hostlist

import "strconv"

// Expand returns the host names expr names, in order, duplicates kept. It
// fails with an *Error if expr is malformed or names more than DefaultLimit
// hosts.
func Expand(expr string) ([]string, error) {
	return ExpandLimit(expr, DefaultLimit)
}

// ExpandLimit is Expand with a caller-chosen limit on the number of names.
// The limit is checked before any name is built, so an expression that
// would name too many hosts costs only its parse.
func ExpandLimit(expr string, limit int) ([]string, error) {
	toks, total, err := parse(expr, limit)
	if err != nil {
		return nil, err
	}
	if total == 0 {
		return nil, nil
	}
	var nbytes uint64
	for i := range toks {
		nbytes += toks[i].bytes()
	}
	e := expander{buf: make([]byte, 0, nbytes), ends: make([]int, 0, total)}
	for i := range toks {
		e.cur = e.cur[:0]
		e.token(&toks[i], 0)
	}
	// One string backs every name: two allocations for the whole expansion.
	all := string(e.buf)
	names := make([]string, len(e.ends))
	start := 0
	for i, end := range e.ends {
		names[i] = all[start:end]
		start = end
	}
	return names, nil
}

// Count returns how many names expr expands to, without building them. It
// applies no total limit, only the per-range one.
func Count(expr string) (int, error) {
	_, total, err := parse(expr, noLimit)
	return int(total), err
}

type expander struct {
	buf  []byte // every finished name, back to back
	ends []int  // where each name ends in buf
	cur  []byte // the name being built
}

// token appends to e every name of t, given that the part of the name
// before group k is already in e.cur.
func (e *expander) token(t *token, k int) {
	e.cur = append(e.cur, t.lits[k]...)
	if k == len(t.groups) {
		e.buf = append(e.buf, e.cur...)
		e.ends = append(e.ends, len(e.buf))
		return
	}
	mark := len(e.cur)
	for _, r := range t.groups[k] {
		for v := r.lo; ; v++ {
			e.cur = appendPadded(e.cur[:mark], v, r.width)
			e.token(t, k+1)
			if v == r.hi {
				break
			}
		}
	}
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

// bytes is the exact length of all of t's names put together.
func (t *token) bytes() uint64 {
	var lits uint64
	for _, l := range t.lits {
		lits += uint64(len(l))
	}
	total := lits * t.size
	for g, grp := range t.groups {
		var d uint64
		for _, r := range grp {
			d += r.digitBytes()
		}
		total += d * (t.size / t.sizes[g])
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
