package selectnodes

import (
	"slices"

	"github.com/bits-and-blooms/bitset"
)

// compatShareFit is cons_tres's second try on a tree for a CPU total
// within a node limit (-N4 -n35, or -n40 in a MaxNodes=3 partition), when
// the first placement (for a node count, by the count alone, then checked
// for the CPUs: compatTreeFit) falls short, on pickBest's last pass only
// (every weight). Recorded on a real Slurm 22.05.8
// (testdata/slurm2205-own/probe6, the blind19 trees); no Slurm code was
// used.
//
// The nodes holding at least the job's share of CPUs per node (its CPUs
// over its node limit) are placed on as any job is (treeFitOnce), when
// there are enough of them: -N3 -n77 takes dm[25-27] of one leaf, not
// dm[22-23] and dm25 of two (blind10/recorded.tsv:60). When they are too
// few, all of them are taken, weight by weight in node order, and the
// nodes still wanted come from the leaves nearest them (closestLeaf), each
// leaf's last node first. Idle, -N4 -n33 takes the 12-CPU nodes
// nv[17-18,23] of weight 1 and nv07 of weight 2, although nv[17-18,23]
// and any 8-CPU node of weight 1 would do (probe6/recorded.tsv:99); with
// nv07 nv15 nv[18-19] nv[22-23] busy, nv17 and nv08, then nv27 and nv26
// of the leaf beside nv17's (115); -N4 -n88 takes ma[03-05] of 24 CPUs,
// then ma06 of their own leaf (142). nil when it fails too.
func compatShareFit(v View, job *Job, cand *bitset.BitSet, n Counts, cpuOf func(int) int) []int {
	t := newConsResTake(v, job, cand, n, cpuOf)
	if t.slots <= 0 || n.Max <= 0 {
		return nil
	}
	share := (t.remCPUs + t.slots - 1) / t.slots
	big := bitset.New(cand.Len())
	for i, ok := cand.NextSet(0); ok; i, ok = cand.NextSet(i + 1) {
		if cpuOf(int(i)) >= share {
			big.Set(i)
		}
	}
	if int(big.Count()) >= max(t.remNodes, 1) {
		return treeFitOnce(v, job, big, n, cpuOf, true, false)
	}
	tiers := weightTiers(v.c, cand)
	for _, tier := range tiers {
		for _, i := range tier {
			if big.Test(uint(i)) {
				t.add(i)
			}
		}
	}
	if !t.done() {
		t.fillFromEnd(v, cand, tiers)
	}
	if !t.ok() || !withinSwitches(v, t.sel, job.Req.MaxSwitches) {
		return nil
	}
	return t.sel
}

// fillFromEnd takes the nodes still wanted weight by weight, leaf by leaf
// from the leaves taken (closestLeaf), each leaf's nodes last first.
func (t *consResTake) fillFromEnd(v View, cand *bitset.BitSet, tiers [][]int) {
	tree := v.c.topo
	s, ok := tree.LowestCommonSwitch(cand)
	if !ok {
		return
	}
	leaves := tree.Switches[s].Leaves
	at := leafIndex(leaves)
	picked := requiredLeaves(v, t.sel)
	for _, tier := range tiers {
		groups := byLeaf(tree, tier, at, len(leaves), func(i int) bool { return !t.taken.Test(uint(i)) })
		used := make([]bool, len(groups))
		for !t.done() {
			k := t.closestLeaf(v, leaves, groups, used, picked)
			if k < 0 {
				break
			}
			used[k] = true
			if !slices.Contains(picked, leaves[k]) {
				picked = append(picked, leaves[k])
			}
			for x := len(groups[k]) - 1; x >= 0; x-- {
				t.add(groups[k][x])
			}
		}
	}
}

// closestLeaf is the unused leaf nearest those picked (a picked leaf
// itself first, then the least sum of distances), the better fit among
// equals; -1 when none has nodes.
func (t *consResTake) closestLeaf(v View, leaves []int, groups [][]int, used []bool, picked []int) int {
	best, bestDist := -1, 0
	for k, g := range groups {
		if used[k] || len(g) == 0 {
			continue
		}
		d := 0
		if !slices.Contains(picked, leaves[k]) {
			for _, p := range picked {
				d += 1 + closeness(v.c.topo, leaves[k], []int{p})
			}
		}
		if best < 0 || d < bestDist || (d == bestDist && t.fitsBetter(len(g), len(groups[best]), false) > 0) {
			best, bestDist = k, d
		}
	}
	return best
}
