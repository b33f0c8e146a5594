package selectnodes

import (
	"cmp"
	"math"
	"slices"

	"github.com/bits-and-blooms/bitset"
	"github.com/hpcsched/hpcsched/topology"
)

// Slurm 22.05.8's topology/tree placement, as recorded on a real controller
// (testdata/slurm2205-own, topo2_* and topo3_*, idle and loaded); used in
// SlurmCompat mode only. No Slurm code was used.
//
//   - Node sets of equal weight are merged before the tree is consulted
//     (pickbest.go tests them together), so -N1 on an idle cluster takes
//     the first node of the first leaf, whatever NodeName line it is on.
//   - The job goes under the lowest switch that holds enough of the nodes
//     (and every required node); among switches of that level, the one
//     with the fewest such nodes. select/linear sizes it for the minimum
//     node count and takes up to the maximum within it (-N2-4 gets a leaf
//     of two); cons_tres for the wanted count. With select/linear a
//     required node does not pull the rest next to it beyond that;
//     cons_tres fills the required node's own leaf, then goes on from it
//     over the whole tree as from a leaf it took (requiredLeaves).
//   - select/linear then fills the switch's leaves with the fewest
//     available CPUs first, ignoring weights once the request has spilled
//     past the lowest weight; --contiguous does not change this.
//   - cons_tres takes the lowest-weight nodes first, wherever they are (the
//     switch must hold them), then each further weight. Within a weight,
//     for a node count: the first leaf found down the tree by best fit,
//     switch by switch (the smallest child that holds the nodes wanted,
//     else the largest); then leaf by leaf, anywhere on the tree, a
//     closer leaf winning unless a farther one fits better, its branch
//     first (scanLeaf). A CPU total with no node count is not confined to
//     one switch: the smallest leaf anywhere first, then leaf by leaf as
//     for a node count once it is reached, whatever the nodes' sizes
//     (fillTree). Its --contiguous ignores the tree, as without one
//     (compat_consres.go). An exact node count with a CPU total is placed
//     for the count alone, then must hold the CPUs; when it does not, on the
//     last weight pass, the nodes holding the CPU share are placed on
//     (compatShareFit).
//   - --switches=N (Request.MaxSwitches) leaves the job pending when its
//     nodes would span more than N leaf switches.
//
// The default mode places with topology.Tree.Fit (lowest switch, best fit
// over leaves by weight).

// compatTreeFit places a job on the tree the way described above; handled
// is false when the cluster has no tree or cons_tres was asked for
// contiguous nodes. compatShareFit waits for pickBest's last pass, which
// adds the heaviest weight's nodes.
func compatTreeFit(v View, job *Job, cand *bitset.BitSet, n Counts, cpuOf func(int) int) (chosen []int, handled bool) {
	c := v.c
	_, consRes := c.selector.(ConsRes)
	if c.topo == nil || (consRes && job.Req.Contiguous) {
		return nil, false
	}
	withReq := job.Required != nil && job.Required.Any()
	if consRes && n.CPUs > 0 && !cpuTotalOnly(job, n) && !withReq && n.Max == n.Min {
		// an exact node count with a CPU total is placed for its nodes
		// alone, then must hold the CPUs (compatShareFit). Not a range:
		// in a MinNodes=3 MaxNodes=6 partition, -n56 takes the three
		// 8-CPU nodes of weight 1, then two of 24 (blind24/recorded.tsv:99)
		if chosen = treeFitOnce(v, job, cand, n, cpuOf, consRes, true); chosen != nil && cpusIn(chosen, cpuOf) >= n.CPUs {
			return chosen, true
		}
	} else {
		if consRes && n.CPUs > 0 && n.Max > 0 && cpuTotalOnly(job, n) {
			// a CPU total within a node limit is placed first without
			// its share per node (below), and kept when no node had to
			// be passed over for the last slot: -p small -n40
			// (MaxNodes=4) takes mk[05-06] of 8 CPUs, then mk01 of 32
			// (probe6/recorded.tsv:201), while -p few -n20 takes va07
			// of 24 alone, the nodes of 4 before it leaving the last
			// slot short (196); -p four -n12 -c 8 takes zd[12-13] of 12
			// CPUs and zd[05-07] of 24 (blind23/recorded.tsv:141)
			t := newConsResTake(v, job, cand, n, cpuOf)
			t.noShare = true
			if chosen = treeFitTake(v, job, cand, n, t, true, false); chosen != nil && !t.skipped {
				return chosen, true
			}
		}
		chosen = treeFitOnce(v, job, cand, n, cpuOf, consRes, false)
		if chosen != nil || !consRes || n.CPUs <= 0 || withReq {
			return chosen, true
		}
	}
	if v.sc != nil && v.sc.lighterOnly {
		return nil, true
	}
	if chosen = compatShareFit(v, job, cand, n, cpuOf); chosen != nil {
		return chosen, true
	}
	// as without a tree (compatConsResPick), a CPU total the weight order
	// cannot reach within the node limit starts again past the lowest
	// weight: -p cap -n60 with MaxNodes=4 takes y[15-18], the 16-CPU nodes
	// of the third weight (blind2/recorded.tsv:55)
	rest := cand.Clone()
	for _, tier := range weightTiers(c, cand) {
		for _, i := range tier {
			rest.Clear(uint(i))
		}
		if rest.None() {
			break
		}
		if chosen = treeFitOnce(v, job, rest, n, cpuOf, consRes, false); chosen != nil {
			return chosen, true
		}
	}
	return nil, true
}

// treeFitOnce is one placement on the tree (see above), nil when it fails.
func treeFitOnce(v View, job *Job, cand *bitset.BitSet, n Counts, cpuOf func(int) int, consRes, countOnly bool) []int {
	return treeFitTake(v, job, cand, n, newConsResTake(v, job, cand, n, cpuOf), consRes, countOnly)
}

// treeFitTake is treeFitOnce with its take made.
func treeFitTake(v View, job *Job, cand *bitset.BitSet, n Counts, t *consResTake, consRes, countOnly bool) []int {
	c := v.c
	all := cand.Union(orEmpty(job.Required, cand.Len()))
	if t.slots < 0 {
		return nil
	}
	if countOnly { // nodes too small for any choice are still passed over (cpuFloor)
		t.remCPUs, t.countCPUs = 0, false
	}
	if t.countCPUs && t.slots > 0 && n.Max > 0 && n.Min <= 1 && !t.noShare {
		// on a tree, a CPU total within a node limit takes only nodes of
		// at least its share per node when the first try without it
		// passed a node over (compatTreeFit): -p m3 -n40 (MaxNodes=3)
		// takes g[10-12] of 16 CPUs, no node of 8 (blind5/recorded.tsv:48).
		// Not select/linear given a node count: -N3 -n93 is refused, the
		// leaf chosen (ad[17-22]) filled from its 12-CPU nodes although
		// three of its 48-CPU ones would do (blind8/recorded.tsv:65);
		// cons_tres given one places for the count alone first
		// (compatTreeFit, compatShareFit)
		t.minCPUs = max(t.minCPUs, (t.remCPUs+t.slots-1)/t.slots)
	}
	must := orEmpty(job.Required, cand.Len()).Clone()
	if consRes {
		all = consResTreeNodes(v, cand, must, all, t)
	}
	var within *bitset.BitSet
	switch {
	case consRes && cpuTotalOnly(job, n):
		// a CPU total with no node count is not confined to one switch:
		// -n20 takes w[06-10] across two middle switches although w[11-13]
		// under one leaf would hold it (blind b_topo3_ct.conf:48)
		within = all
		if t.fillCPUTotal(v, all) {
			within = nil
		}
	default:
		need := len(t.sel) + max(t.remNodes, 0)
		if !consRes {
			// linear chooses the switch for the minimum and takes up to the
			// maximum within it: -N2-4 gets w[09-10], the leaf of two
			// (blind b_topo3_lin.conf:14)
			need = max(n.Min, len(t.sel), 1)
		}
		s := compatSwitch(v, all, must, t, need, consRes)
		if s < 0 {
			return nil
		}
		within = c.topo.Nodes(s)
		within.InPlaceIntersection(all) // a leaf's size counts its required nodes
		if consRes {
			t.fillNodeCount(v, s, all, within)
			within = nil
		}
	}
	switch {
	case within == nil:
	case consRes:
		t.fillTiers(v, weightTiers(c, within))
	default:
		var nodes []int
		for i, ok := within.NextSet(0); ok; i, ok = within.NextSet(i + 1) {
			nodes = append(nodes, int(i))
		}
		t.fillLeaves(v, nodes, false)
	}
	if !t.ok() || !withinSwitches(v, t.sel, job.Req.MaxSwitches) {
		return nil
	}
	return t.sel
}

// consResTreeNodes is the nodes cons_tres places on with a tree: when the
// lowest weight does not suffice, every node of it is required (it uses
// all it can); when it does, only it (the job pends rather than go
// higher: --switches=1 with leaves of 3).
func consResTreeNodes(v View, cand, must, all *bitset.BitSet, t *consResTake) *bitset.BitSet {
	tiers := weightTiers(v.c, cand.Difference(must))
	if len(tiers) < 2 {
		return all
	}
	low, cpus := tiers[0], 0
	for _, i := range low {
		cpus += t.cpuOf(i)
	}
	if len(low) < t.remNodes || cpus < t.remCPUs {
		for _, i := range low {
			must.Set(uint(i))
		}
		return all
	}
	all = must.Clone()
	for _, i := range low {
		all.Set(uint(i))
	}
	return all
}

// cpuTotalOnly reports whether the job counts CPUs and gave no node count
// nor required nodes.
func cpuTotalOnly(job *Job, n Counts) bool {
	return n.CPUs > 0 && n.Min <= 1 && n.Desired <= 1 && (job.Required == nil || !job.Required.Any())
}

// compatSwitch is the lowest switch holding must, need nodes of all and
// t's CPUs, the one with the fewest such nodes among its level; -1 when
// none.
func compatSwitch(v View, all, must *bitset.BitSet, t *consResTake, need int, consRes bool) int {
	tree := v.c.topo
	best, bestLevel, bestCount := -1, 0, 0
	for s := range tree.Switches {
		nodes := tree.Nodes(s)
		if must.DifferenceCardinality(nodes) > 0 {
			continue
		}
		nodes.InPlaceIntersection(all)
		count, usable, cpus := 0, 0, 0
		for i, ok := nodes.NextSet(0); ok; i, ok = nodes.NextSet(i + 1) {
			count++
			if c := t.cpuOf(int(i)); c >= t.minCPUs || must.Test(i) || !consRes {
				usable++
				cpus += c
			}
		}
		// with cons_tres, a switch must hold the job in nodes big enough for its share
		// (-N4 -n81 passes over mu[01-05], three of whose nodes have 8
		// CPUs, for mu[23-27]: blind16/recorded.tsv:132), but is ranked
		// by all its nodes (-N2 -n17 takes nt[09-10] of the leaf of three,
		// not nt[19-20] of a leaf of four with two of 4 CPUs: blind12 93)
		if usable < need || cpus < t.remCPUs+cpusIn(t.sel, t.cpuOf) {
			continue
		}
		lvl := tree.Switches[s].Level
		if best < 0 || lvl < bestLevel || (lvl == bestLevel && count < bestCount) {
			best, bestLevel, bestCount = s, lvl, count
		}
	}
	return best
}

// cpusIn is the CPUs of nodes.
func cpusIn(nodes []int, cpuOf func(int) int) int {
	s := 0
	for _, i := range nodes {
		s += cpuOf(i)
	}
	return s
}

// leafGroups splits nodes (ascending) by leaf switch, in tree order.
func leafGroups(v View, nodes []int) [][]int {
	byLeaf := map[int][]int{}
	var order []int
	for _, i := range nodes {
		l, ok := v.c.topo.Leaf(i)
		if !ok {
			continue // under no switch: unusable with a tree
		}
		if _, seen := byLeaf[l]; !seen {
			order = append(order, l)
		}
		byLeaf[l] = append(byLeaf[l], i)
	}
	slices.Sort(order)
	out := make([][]int, len(order))
	for k, l := range order {
		out[k] = byLeaf[l]
	}
	return out
}

// fillLeaves takes nodes leaf by leaf: the fewest free CPUs first
// (select/linear: with j03 j[05-06] k04 busy, -N6 takes the leaf of 12
// CPUs, then the one of 16 before one of four nodes and 24 CPUs; blind
// b_topo2_lin.conf:90), or by best fit (the smallest leaf holding what
// is left, else the largest).
func (t *consResTake) fillLeaves(v View, nodes []int, bestFit bool) {
	groups := leafGroups(v, nodes)
	if !bestFit {
		cpus := func(g []int) int {
			s := 0
			for _, i := range g {
				s += t.cpuOf(i)
			}
			return s
		}
		slices.SortStableFunc(groups, func(a, b []int) int { return cmp.Compare(cpus(a), cpus(b)) })
		for _, g := range groups {
			for _, i := range g {
				t.add(i)
			}
		}
		return
	}
	used := make([]bool, len(groups))
	for !t.done() {
		k := t.bestGroup(groups, used)
		if k < 0 {
			return
		}
		used[k] = true
		for _, i := range groups[k] {
			t.add(i)
		}
	}
}

// bestGroup is the unused group that fits the nodes still wanted best:
// the smallest that holds them, else the largest, the first among equals;
// -1 when every group is used or empty.
func (t *consResTake) bestGroup(groups [][]int, used []bool) int {
	k := -1
	for j, g := range groups {
		if used[j] || len(g) == 0 {
			continue
		}
		fits := len(g) >= t.remNodes
		switch {
		case k < 0:
			k = j
		case fits && (len(groups[k]) < t.remNodes || len(g) < len(groups[k])):
			k = j
		case !fits && len(groups[k]) < t.remNodes && len(g) > len(groups[k]):
			k = j
		}
	}
	return k
}

// fillTree is cons_tres's fill for a node count: of one weight tier's
// nodes under switch s, the first leaf is found down the tree from switch
// first (the lowest switch holding the job) by best fit for the nodes
// wanted, switch by switch (with v01 v[04-05] v10 busy, -N4
// starts on v[02-03] under b1, not the largest leaf v[07-09]: validation
// 127). Then each next leaf by scanLeaf: closeness to those taken and
// fit, weighed as a scan in tree order does. -N9 takes n[15-20] then
// n[01-03], exactly the 3 left, while -N10 takes n[15-20], then n[13-14]
// beside them, then 2 of n[01-03] (probe3/recorded.tsv:41-42); -N8 takes
// w[11-14], w[09-10] beside them, then 2 of w[06-08] (blind 53);
// validation 127 goes on from v[02-03] to v06 beside them rather than to
// v[07-09], 3 for the 2 left.
//
// A CPU total with no node count (smallestFirst) starts on the leaf with
// the fewest of the tier's nodes anywhere under s, then goes on by
// scanLeaf with no nodes left to want: a closer leaf wins unless it is
// larger, a leaf as close when it is smaller. With h02 h05 h[16-17] h19
// h[25-26] h10 busy, -n40 takes h06 (alone on r2), h[01,03-04] beside
// it, then h27 of the two left on r8 (probe4/recorded.tsv:24); idle, -n80
// takes p1's six, then r5's two before r6's four (probe4 13). -n25 takes
// nv23 (alone), nv[17-18] beside it, then nv09 of a leaf of two under
// another switch before the four beside them, 8 or 12 CPUs alike
// (probe6/recorded.tsv:8, 52); that order once read as one node size
// after another (blind 48, blind3 45).
func (t *consResTake) fillTree(v View, s, first int, tier []int, picked []int, smallestFirst bool) []int {
	tree := v.c.topo
	leaves := tree.Switches[s].Leaves
	at := leafIndex(leaves)
	// A required node is taken already (its leaf is in picked). Too small
	// for any choice, a node does not count in its leaf's size: -N1 -n21
	// takes eq25 of a leaf whose three 24-CPU nodes hold it, not eq06 of
	// one of four 32-CPU nodes, the leaf's fourth node having 16
	// (blind19/recorded.tsv:139); smaller than the share only, it does:
	// -p narrow -n9 -c 8 (MaxNodes=3) takes eq[06-08] of that leaf of four
	// (136).
	groups := byLeaf(tree, tier, at, len(leaves), func(i int) bool {
		return !t.taken.Test(uint(i)) && t.cpuOf(i) >= t.floor
	})
	used := make([]bool, len(groups))
	for !t.done() {
		var next []int
		if len(picked) == 0 && smallestFirst {
			if k := t.bestGroup(groups, used); k >= 0 {
				next = []int{k}
			}
		} else if len(picked) == 0 {
			if k := t.firstLeaf(v, first, tier, at); k >= 0 {
				next = []int{k}
			}
		} else if k := t.scanLeaf(v, at, leaves, groups, used, picked); k >= 0 {
			next = []int{k}
		}
		if len(next) == 0 {
			return picked
		}
		for _, k := range next {
			used[k] = true
			picked = append(picked, leaves[k])
			for _, i := range groups[k] {
				t.add(i)
			}
		}
	}
	return picked
}

// firstLeaf descends from switch s to a leaf, each child by best fit for
// the nodes wanted (bestGroup); the leaf's index in at, or -1.
func (t *consResTake) firstLeaf(v View, s int, tier []int, at map[int]int) int {
	tree := v.c.topo
	for len(tree.Switches[s].Children) > 0 {
		children := tree.Switches[s].Children
		parts := make([][]int, len(children))
		for k, ch := range children {
			under := tree.Nodes(ch)
			for _, i := range tier {
				if under.Test(uint(i)) {
					parts[k] = append(parts[k], i)
				}
			}
		}
		k := t.bestGroup(parts, make([]bool, len(parts)))
		if k < 0 {
			return -1
		}
		s = children[k]
	}
	k, ok := at[s]
	if !ok {
		return -1
	}
	return k
}

// closeness is the lowest level of a switch above both leaf and one of
// picked (1 for siblings).
func closeness(tree *topology.Tree, leaf int, picked []int) int {
	best := math.MaxInt
	for _, p := range picked {
		a, b := leaf, p
		for a != b && a >= 0 && b >= 0 {
			if tree.Switches[a].Level <= tree.Switches[b].Level {
				a = tree.Switches[a].Parent
			} else {
				b = tree.Switches[b].Parent
			}
		}
		if a >= 0 && a == b {
			best = min(best, tree.Switches[a].Level)
		}
	}
	return best
}

// fillTiers is cons_tres's fill: weight by weight, leaves by best fit
// for the nodes still wanted (a job that counts only CPUs wants one node,
// so it starts on the smallest leaf: -n20 takes t12 first).
func (t *consResTake) fillTiers(v View, tiers [][]int) {
	for _, tier := range tiers {
		t.fillLeaves(v, tier, true)
	}
}

// withinSwitches reports whether nodes span at most max leaf switches (0:
// no limit).
func withinSwitches(v View, nodes []int, max int) bool {
	if max <= 0 || v.c.topo == nil {
		return true
	}
	leaves := map[int]bool{}
	for _, i := range nodes {
		if l, ok := v.c.topo.Leaf(i); ok {
			leaves[l] = true
		}
	}
	return len(leaves) <= max
}

// leafIndex is each of leaves' position in it.
func leafIndex(leaves []int) map[int]int {
	at := make(map[int]int, len(leaves))
	for k, l := range leaves {
		at[l] = k
	}
	return at
}

// byLeaf groups the nodes of tier that keep accepts by their leaf, n
// leaves indexed by at (leafIndex), each group in tier order; nodes of
// other leaves are left out.
func byLeaf(tree *topology.Tree, tier []int, at map[int]int, n int, keep func(int) bool) [][]int {
	groups := make([][]int, n)
	for _, i := range tier {
		if !keep(i) {
			continue
		}
		if l, ok := tree.Leaf(i); ok {
			if k, ok := at[l]; ok {
				groups[k] = append(groups[k], i)
			}
		}
	}
	return groups
}
