package auction

import (
	"github.com/bits-and-blooms/bitset"
	"github.com/hpcsched/hpcsched/topology"
)

// levels is commonLevel for the bids of one GenerateBids call, or of a
// planner's problems (its arena keeps them: the tree is the same). A bid is
// a stretch of a run of consecutive nodes, and jobs of one node count
// find the same best-fitting stretches, so the level of a bid of
// consecutive nodes is kept by its first and last node; other bids are
// measured each time. One bitmap serves every measure.
type levels struct {
	tree    *topology.Tree
	buf     *bitset.BitSet
	marked  []int // the nodes set in buf
	byRange map[[2]int]int
}

func newLevels(tree *topology.Tree) *levels {
	return &levels{tree: tree, buf: bitset.New(uint(tree.NodeCount())), byRange: map[[2]int]int{}}
}

// of is commonLevel(tree, uses).
func (l *levels) of(uses []Use) int {
	if len(uses) == 0 || !consecutive(uses) {
		return l.measure(uses)
	}
	return l.ofRange(uses)
}

// ofAscending is of for uses whose nodes ascend (each above the one
// before, as a bid's do that bid generation lays out on a stretch): they
// are consecutive exactly when the last is the first plus their count
// less one, so no walk of them need tell.
func (l *levels) ofAscending(uses []Use) int {
	if len(uses) == 0 || uses[len(uses)-1].Node-uses[0].Node != len(uses)-1 {
		return l.measure(uses)
	}
	return l.ofRange(uses)
}

// maxRanges bounds the node ranges whose levels are kept: a planner's
// passes keep them from one problem to the next, and past it they start
// over.
const maxRanges = 1 << 16

// ofRange is of for consecutive uses: the level of their range, kept.
func (l *levels) ofRange(uses []Use) int {
	key := [2]int{uses[0].Node, uses[len(uses)-1].Node}
	lvl, ok := l.byRange[key]
	if !ok {
		lvl = l.measure(uses)
		if len(l.byRange) >= maxRanges {
			clear(l.byRange)
		}
		l.byRange[key] = lvl
	}
	return lvl
}

// consecutive reports whether the uses' nodes are first, first+1, ...
func consecutive(uses []Use) bool {
	first := uses[0].Node
	for k, u := range uses {
		if u.Node != first+k {
			return false
		}
	}
	return true
}

// measure is commonLevel on the shared bitmap, cleared afterwards. The
// lowest common switch depends only on the leaves the nodes are under,
// so one node of each leaf is enough: the nodes of a stretch mostly
// share a leaf with the node before them, and only those that do not
// are set.
func (l *levels) measure(uses []Use) int {
	last, marked := -1, l.marked[:0]
	for _, u := range uses {
		leaf, ok := l.tree.Leaf(u.Node)
		if ok && leaf == last {
			continue
		}
		last = leaf
		l.buf.Set(uint(u.Node))
		marked = append(marked, u.Node)
	}
	lvl, ok := l.tree.LowestCommonLevel(l.buf)
	for _, i := range marked {
		l.buf.Clear(uint(i))
	}
	l.marked = marked
	if !ok {
		return l.tree.MaxLevel
	}
	return lvl
}
