package auction

// The quick search's free cores and GPUs. A node's free cores and GPUs
// are one word, cores in the high half and GPUs in the low (packAmount),
// and so is each use's amount as the search walks a bid: one load, one
// subtraction and one test a use tell whether both fit, and one store
// takes both. Cores and GPUs are at most MaxPerNode (a valid problem's),
// far below a half word's guard bit.

// guardBits are the top bit of each half: set in a free word before a
// use's amounts are subtracted, each stays set exactly when its half did
// not go below zero (a half never borrows from the other: its guard
// covers its amount).
const guardBits = 1<<63 | 1<<31

// packAmount is cores and GPUs as one word.
func packAmount(cores, gpus int) uint64 { return uint64(cores)<<32 | uint64(gpus) }

// fits reports whether b fits the free cores and GPUs.
func (q *quickSearch) fits(b *Bid) bool {
	for _, u := range b.Uses {
		if ((q.free[u.Node]|guardBits)-packAmount(u.Cores, u.GPUs))&guardBits != guardBits {
			return false
		}
	}
	return true
}

// take takes bid b off the free nodes (sign 1) or gives it back (-1); b
// fits them when taken.
func (q *quickSearch) take(b *Bid, sign int) {
	for _, u := range b.Uses {
		if sign > 0 {
			q.free[u.Node] -= packAmount(u.Cores, u.GPUs)
		} else {
			q.free[u.Node] += packAmount(u.Cores, u.GPUs)
		}
	}
}

// tryTake takes b off the free nodes when it fits them, in one walk of
// its uses, and reports whether it did. It looks first at the use *miss,
// where b last did not fit, and keeps there the use where it does not:
// the search tries a bid again and again beside the same taken bids,
// which it overlaps on the same nodes, so most bids that do not fit are
// told at their first look. A bid uses a node once, so taking its uses
// as the walk goes changes none of the later checks; on a use that does
// not fit, the ones taken are given back.
func (q *quickSearch) tryTake(b *Bid, miss *int32) bool {
	free := q.free
	if u := b.Uses[*miss]; ((free[u.Node]|guardBits)-packAmount(u.Cores, u.GPUs))&guardBits != guardBits {
		return false
	}
	for k, u := range b.Uses {
		x := (free[u.Node] | guardBits) - packAmount(u.Cores, u.GPUs)
		if x&guardBits != guardBits {
			for _, v := range b.Uses[:k] {
				free[v.Node] += packAmount(v.Cores, v.GPUs)
			}
			*miss = int32(k)
			return false
		}
		free[u.Node] = x &^ guardBits
	}
	return true
}
