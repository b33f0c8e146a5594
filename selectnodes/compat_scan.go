package selectnodes

import (
	"cmp"
	"slices"

	"github.com/bits-and-blooms/bitset"
	"github.com/hpcsched/hpcsched/topology"
)

// The fourth round's cons_tres rules on a tree (compat_topo.go describes
// the whole placement): how the next leaf is chosen once one is taken
// (scanLeaf), where a job with required nodes goes on from
// (requiredLeaves). Recorded on a real Slurm 22.05.8
// (testdata/slurm2205-own/probe4, blind6, blind7); no Slurm code was used.

// fillCPUTotal fills a CPU total with no node count over the lowest
// switch holding all the candidates (fillTree with smallestFirst), weight
// by weight; false when no switch holds them all.
func (t *consResTake) fillCPUTotal(v View, all *bitset.BitSet) bool {
	c := v.c
	s, ok := c.topo.LowestCommonSwitch(all)
	if !ok {
		return false
	}
	var picked []int
	for _, tier := range weightTiers(c, all) {
		picked = t.fillTree(v, s, s, tier, picked, true)
	}
	return true
}

// fillNodeCount fills a node count: the first leaf is found under s (the
// lowest switch holding the job; within is its candidates), the next
// ones anywhere, going on from the required nodes' leaves if any. -N8
// starts on a6 under b3 (10 nodes), then takes a2 under b1 (2, exactly
// what is left) rather than 2 of a7 beside a6 (blind6/recorded.tsv:5).
func (t *consResTake) fillNodeCount(v View, s int, all, within *bitset.BitSet) {
	c := v.c
	top := s
	var picked []int // leaves taken from, for closeness
	if root, ok := c.topo.LowestCommonSwitch(all); ok {
		top = root
		within = c.topo.Nodes(top)
		within.InPlaceIntersection(all)
		picked = requiredLeaves(v, t.sel)
	}
	for _, tier := range weightTiers(c, within) {
		picked = t.fillTree(v, top, s, tier, picked, false)
	}
}

// scanLeaf is cons_tres's next leaf for a node count once one is taken:
// the unused leaves are scanned in tree order, and one replaces the best
// so far when it is as close to those taken (the sum of its distances to
// each) and fits better, or closer and fits at least as well, where two
// leaves too small alike fit as well. Before the leaf, its branch (the
// largest switch above it with nothing taken yet) is compared: one whose
// branch holds what is still wanted fits better than one whose branch
// does not, however close; between branches as close that both fall
// short, the larger (-N22 takes t1's ten, then t4's nine before s4's six
// of t2: blind7/recorded.tsv:10). With r8 taken, -N9 goes on to r1 (its branch
// p1 holds the 5 left) rather than r8's sibling r7 (3), then one node of
// r2 beside r1 (probe4/recorded.tsv:3); with x5 taken, -N10 goes on to
// x4 beside it (2, its branch too small, as x1's) before 2 of x1
// (probe3 42); -N12 takes r1 after r8, then r7 beside r8 (3 for the 4
// left) rather than r6 (4, farther) (probe4 5). -1 when no unused leaf
// has nodes.
func (t *consResTake) scanLeaf(v View, at map[int]int, leaves []int, groups [][]int, used []bool, picked []int) int {
	best, bestDist, bestBranch := -1, 0, 0
	for k, g := range groups {
		if used[k] || len(g) == 0 {
			continue
		}
		if slices.Contains(picked, leaves[k]) {
			return k // a required node's own leaf first: -N2 -w g12 takes g10 (blind5 46)
		}
		d := 0
		for _, p := range picked {
			d += closeness(v.c.topo, leaves[k], []int{p})
		}
		br := branchSize(v.c.topo, at, groups, used, picked, leaves[k])
		if best < 0 {
			best, bestDist, bestBranch = k, d, br
			continue
		}
		f := cmp.Compare(b2i(br >= t.remNodes), b2i(bestBranch >= t.remNodes))
		if f == 0 && br < t.remNodes && d == bestDist {
			f = cmp.Compare(br, bestBranch) // neither branch holds it: the larger
		}
		if f == 0 {
			f = t.fitsBetter(len(g), len(groups[best]), d < bestDist)
		}
		if (d < bestDist && f >= 0) || (d == bestDist && f > 0) {
			best, bestDist, bestBranch = k, d, br
		}
	}
	return best
}

// branchSize is the unused nodes (of groups, indexed as at says) under
// the highest switch above leaf under which nothing is used yet, nor
// picked for an earlier weight: with qc[01-03] of weight 1 taken under
// t1, -N11 goes on to t3's qc[17-24] (8, what is left), not t2's 7
// (blind13/recorded.tsv:57); loaded, to qc[13-16] and qc[17-20], the
// larger branch t3 first (62).
func branchSize(tree *topology.Tree, at map[int]int, groups [][]int, used []bool, picked []int, leaf int) int {
	free := func(sw int) (int, bool) {
		n := 0
		for _, l := range tree.Switches[sw].Leaves {
			if slices.Contains(picked, l) {
				return 0, false // taken from for an earlier weight
			}
			k, ok := at[l]
			if !ok {
				continue
			}
			if used[k] {
				return 0, false
			}
			n += len(groups[k])
		}
		return n, true
	}
	size, _ := free(leaf)
	for sw := tree.Switches[leaf].Parent; sw >= 0; sw = tree.Switches[sw].Parent {
		n, ok := free(sw)
		if !ok {
			break
		}
		size = n
	}
	return size
}

// fitsBetter compares leaves of a and b nodes for the nodes still wanted:
// 1 when a fits better (it holds them and b does not; both hold them and a
// is smaller; neither does and a is larger, unless sizeBlind), -1 when b
// does, 0 for a tie.
func (t *consResTake) fitsBetter(a, b int, sizeBlind bool) int {
	if a == b {
		return 0
	}
	fa, fb := a >= t.remNodes, b >= t.remNodes
	switch {
	case fa != fb:
		if fa {
			return 1
		}
		return -1
	case fa:
		return cmp.Compare(b, a)
	case sizeBlind:
		return 0
	}
	return cmp.Compare(a, b)
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// requiredLeaves is the leaf switches of the nodes already taken (the
// job's required nodes), in tree order without repeats. cons_tres goes on
// from them as from leaves it took itself (scanLeaf), over the whole tree:
// -N2 -w k12 (weight 2) takes k06, the smallest weight-1 leaf anywhere,
// not k08 beside k12, whose leaf is larger (blind6/recorded.tsv:17);
// -N3 -w n10 takes n[01-02] beside n10 (blind3 55).
func requiredLeaves(v View, taken []int) []int {
	var out []int
	for _, i := range taken {
		if l, ok := v.c.topo.Leaf(i); ok && !slices.Contains(out, l) {
			out = append(out, l)
		}
	}
	slices.Sort(out)
	return out
}
