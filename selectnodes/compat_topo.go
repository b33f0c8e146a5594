package selectnodes

import (
	"cmp"
	"slices"

	"github.com/bits-and-blooms/bitset"
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
//     with the fewest such nodes. A required node does not pull the rest
//     next to it beyond that.
//   - select/linear then fills the switch's leaves with the fewest
//     available nodes first, ignoring weights once the request has spilled
//     past the lowest weight; --contiguous does not change this.
//   - cons_tres takes the lowest-weight nodes first, wherever they are (the
//     switch must hold them), then each further weight; within a weight,
//     leaves by best fit for the nodes still wanted: the smallest leaf
//     that holds them, else the largest (-N4 with leaves of 2, 3 and 1
//     free nodes takes the 3 and the 1). Its --contiguous ignores the tree
//     (the tightest free run, the default rule).
//   - --switches=N (Request.MaxSwitches) leaves the job pending when its
//     nodes would span more than N leaf switches.
//
// The default mode places with topology.Tree.Fit (lowest switch, best fit
// over leaves by weight).

// compatTreeFit places a job on the tree the way described above; handled
// is false when the cluster has no tree or cons_tres was asked for
// contiguous nodes.
func compatTreeFit(v View, job *Job, cand *bitset.BitSet, n Counts, cpuOf func(int) int) (chosen []int, handled bool) {
	c := v.c
	_, consRes := c.selector.(ConsRes)
	if c.topo == nil || (consRes && job.Req.Contiguous) {
		return nil, false
	}
	all := cand.Union(orEmpty(job.Required, cand.Len()))
	t := newConsResTake(v, job, cand, n, cpuOf)
	if t.slots < 0 {
		return nil, true
	}
	must := orEmpty(job.Required, cand.Len()).Clone()
	tiers := weightTiers(c, cand.Difference(must))
	if consRes && len(tiers) > 1 {
		low, cpus := tiers[0], 0
		for _, i := range low {
			cpus += cpuOf(i)
		}
		if len(low) < t.remNodes || cpus < t.remCPUs {
			for _, i := range low {
				must.Set(uint(i)) // cons_tres uses every lowest-weight node it can
			}
		} else {
			// the lowest weight suffices: cons_tres places on it alone, and
			// pends rather than go higher (--switches=1 with leaves of 3)
			all = must.Clone()
			for _, i := range low {
				all.Set(uint(i))
			}
		}
	}
	s := compatSwitch(v, all, must, t)
	if s < 0 {
		return nil, true
	}
	within := c.topo.Nodes(s)
	within.InPlaceIntersection(all) // a leaf's size counts its required nodes

	if consRes {
		t.fillTiers(v, weightTiers(c, within))
	} else {
		var nodes []int
		for i, ok := within.NextSet(0); ok; i, ok = within.NextSet(i + 1) {
			nodes = append(nodes, int(i))
		}
		t.fillLeaves(v, nodes, false)
	}
	if !t.ok() || !withinSwitches(v, t.sel, job.Req.MaxSwitches) {
		return nil, true
	}
	return t.sel, true
}

// compatSwitch is the lowest switch holding must and enough of all for t,
// the one with the fewest such nodes among its level; -1 when none.
func compatSwitch(v View, all, must *bitset.BitSet, t *consResTake) int {
	tree := v.c.topo
	best, bestLevel, bestCount := -1, 0, 0
	need := len(t.sel) + max(t.remNodes, 0)
	for s := range tree.Switches {
		nodes := tree.Nodes(s)
		if must.DifferenceCardinality(nodes) > 0 {
			continue
		}
		nodes.InPlaceIntersection(all)
		count, cpus := 0, 0
		for i, ok := nodes.NextSet(0); ok; i, ok = nodes.NextSet(i + 1) {
			count++
			cpus += t.cpuOf(int(i))
		}
		if count < need || cpus < t.remCPUs+sumCPUs(t) {
			continue
		}
		lvl := tree.Switches[s].Level
		if best < 0 || lvl < bestLevel || (lvl == bestLevel && count < bestCount) {
			best, bestLevel, bestCount = s, lvl, count
		}
	}
	return best
}

func sumCPUs(t *consResTake) int {
	s := 0
	for _, i := range t.sel {
		s += t.cpuOf(i)
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

// fillLeaves takes nodes leaf by leaf: the fewest free first, or by best
// fit (the smallest leaf holding what is left, else the largest).
func (t *consResTake) fillLeaves(v View, nodes []int, bestFit bool) {
	groups := leafGroups(v, nodes)
	if !bestFit {
		slices.SortStableFunc(groups, func(a, b []int) int { return cmp.Compare(len(a), len(b)) })
		for _, g := range groups {
			for _, i := range g {
				t.add(i)
			}
		}
		return
	}
	used := make([]bool, len(groups))
	for !t.done() {
		k := -1
		for j, g := range groups {
			if used[j] {
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
		if k < 0 {
			return
		}
		used[k] = true
		for _, i := range groups[k] {
			t.add(i)
		}
	}
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
