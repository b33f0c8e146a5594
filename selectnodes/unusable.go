package selectnodes

import "github.com/bits-and-blooms/bitset"

// UnusableInto writes into dst the nodes no job can be given: those down
// or not available, the complement of Up ∩ Avail, without the copies
// those make. dst is reused when it has the cluster's length, else a new
// set is made; the set written is returned.
func (c *Cluster) UnusableInto(dst *bitset.BitSet) *bitset.BitSet {
	c.mustBeMade("UnusableInto")
	n := uint(len(c.nodes))
	if dst == nil || dst.Len() != n {
		dst = bitset.New(n)
	}
	w, up, avail := dst.Words(), c.up.Words(), c.avail.Words()
	for k := range w {
		var u, a uint64
		if k < len(up) {
			u = up[k]
		}
		if k < len(avail) {
			a = avail[k]
		}
		w[k] = ^(u & a)
	}
	if r := n % 64; r != 0 && len(w) > 0 {
		w[len(w)-1] &= 1<<r - 1 // no nodes past the last
	}
	return dst
}
