package topology

import "github.com/bits-and-blooms/bitset"

// LowestCommonLevel is seed 001's "lowest level common switch": the level
// of the lowest switch from which all the nodes can be reached. It reports
// false for an empty set, a node under no switch, or nodes in different
// trees (no common switch).
func (t *Tree) LowestCommonLevel(nodes *bitset.BitSet) (int, bool) {
	s, ok := t.LowestCommonSwitch(nodes)
	if !ok {
		return 0, false
	}
	return t.Switches[s].Level, true
}

// LowestCommonSwitch is the switch LowestCommonLevel measures.
func (t *Tree) LowestCommonSwitch(nodes *bitset.BitSet) (int, bool) {
	lca := -1
	lastLeaf := -1
	for i, ok := nodes.NextSet(0); ok; i, ok = nodes.NextSet(i + 1) {
		leaf, in := t.Leaf(int(i))
		if !in {
			return -1, false
		}
		if leaf == lastLeaf {
			continue // runs of nodes share a leaf; skip the walk
		}
		lastLeaf = leaf
		if lca < 0 {
			lca = leaf
			continue
		}
		if lca = t.ancestor(lca, leaf); lca < 0 {
			return -1, false
		}
	}
	return lca, lca >= 0
}

// ancestor is the lowest common ancestor of switches a and b, or -1.
func (t *Tree) ancestor(a, b int) int {
	for a != b {
		la, lb := t.Switches[a].Level, t.Switches[b].Level
		switch {
		case la < lb:
			a = t.Switches[a].Parent
		case lb < la:
			b = t.Switches[b].Parent
		default:
			a, b = t.Switches[a].Parent, t.Switches[b].Parent
		}
		if a < 0 || b < 0 {
			return -1
		}
	}
	return a
}

// Spread is seed 001's spread: the distance from the first to the last of
// the nodes, by node index (0 for fewer than two nodes).
func Spread(nodes *bitset.BitSet) int {
	first, ok := nodes.NextSet(0)
	if !ok {
		return 0
	}
	last, _ := nodes.PreviousSet(nodes.Len() - 1)
	return int(last - first)
}
