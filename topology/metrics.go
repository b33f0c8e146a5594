package topology

import "github.com/bits-and-blooms/bitset"

// LowestCommonLevel is the AUCSCHED3 paper's "lowest level common switch": the level
// of the lowest switch from which all the nodes can be reached. It reports
// false for an empty (or nil) set, a node under no switch, or nodes in
// different trees (no common switch).
func (t *Tree) LowestCommonLevel(nodes *bitset.BitSet) (int, bool) {
	s, ok := t.LowestCommonSwitch(nodes)
	if !ok {
		return 0, false
	}
	return t.Switches[s].Level, true
}

// LowestCommonSwitch is the switch LowestCommonLevel measures. In a
// depth-first numbering the switch common to a set of leaves is the one
// common to its first and last leaf, so it costs one pass over the nodes
// and one walk up the tree.
func (t *Tree) LowestCommonSwitch(nodes *bitset.BitSet) (int, bool) {
	if nodes == nil { // the empty set, as everywhere else in the package
		return -1, false
	}
	lo, hi := -1, -1
	lastLeaf := -1
	for i, ok := nodes.NextSet(0); ok; i, ok = nodes.NextSet(i + 1) {
		leaf, in := t.Leaf(int(i))
		if !in {
			return -1, false
		}
		if leaf == lastLeaf {
			continue // runs of nodes share a leaf
		}
		lastLeaf = leaf
		if lo < 0 || t.Switches[leaf].pre < t.Switches[lo].pre {
			lo = leaf
		}
		if hi < 0 || t.Switches[leaf].pre > t.Switches[hi].pre {
			hi = leaf
		}
	}
	if lo < 0 {
		return -1, false
	}
	for !t.below(hi, lo) {
		if lo = t.Switches[lo].Parent; lo < 0 {
			return -1, false // different trees
		}
	}
	return lo, true
}

// Spread is the AUCSCHED3 paper's spread: the distance from the first to the last of
// the nodes, by node index (0 for fewer than two nodes, or a nil set).
func Spread(nodes *bitset.BitSet) int {
	if nodes == nil {
		return 0
	}
	first, ok := nodes.NextSet(0)
	if !ok {
		return 0
	}
	last, _ := nodes.PreviousSet(nodes.Len() - 1)
	return int(last - first)
}
