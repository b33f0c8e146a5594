package auction

// The overfilling pairs by levels. A bid a taking x of resource r (of
// capacity c) overfills it beside exactly the bids taking more than c-x
// of it, so r's partners of a are one of c sets: the bids taking at
// least v of r, for v = 1..c. Built from each bid's own uses (no list of
// the uses by resource to lay out and sort), these sets make each bid's
// conflicts the union of one set per use, ORed into its row. Which pairs
// overfill is what it was: only the way of finding them changed.

// maxLevelCap and maxLevelWords cap the capacities (and the sets in all) found by levels;
// past them the uses are listed by resource (overfills).
const (
	maxLevelCap   = 64
	maxLevelWords = 1 << 21 // 16 MB of sets
)

// overfillsByLevels ORs into adj every pair of bids that overfills one
// of the model's resources, and reports whether it did; false (adj
// untouched) when a capacity or the sets are over the caps, or a use is
// not within its resource (1..c).
func (m *model) overfillsByLevels(adj bitrows) bool {
	off, total := make([]int32, len(m.capacity)), 0
	for r, c := range m.capacity {
		if c > maxLevelCap {
			return false
		}
		off[r] = int32(total)
		total += int(c)
	}
	if total*adj.words > maxLevelWords {
		return false
	}
	sets := bitrows{words: adj.words, bits: m.mem.levelWords(total * adj.words)}
	most := make([]int32, len(m.capacity)) // per resource: its largest use
	for b := range int32(len(m.value)) {
		as := m.amt(b)
		for k, r := range m.res(b) {
			x := as[k]
			if x < 1 || x > m.capacity[r] {
				return false
			}
			sets.bits[int(off[r]+x-1)*sets.words+int(b>>6)] |= 1 << (b & 63)
			most[r] = max(most[r], x)
		}
	}
	// Set v-1 of r (from off[r]) holds the bids taking exactly v; make it
	// those taking at least v.
	for r := range m.capacity {
		for v := most[r] - 1; v >= 1; v-- {
			row, above := sets.row(off[r]+v-1), sets.row(off[r]+v)
			for w := range row {
				row[w] |= above[w]
			}
		}
	}
	for a := range int32(len(m.value)) {
		row, as := adj.row(a), m.amt(a)
		for k, r := range m.res(a) {
			v := m.capacity[r] - as[k] + 1 // partners take at least v
			if v > most[r] {
				continue
			}
			set := sets.row(off[r] + v - 1)
			for w := range row {
				row[w] |= set[w]
			}
		}
		row[a>>6] &^= 1 << (a & 63) // no bid conflicts with itself
	}
	return true
}
