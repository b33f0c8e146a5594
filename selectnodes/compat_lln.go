package selectnodes

import (
	"cmp"
	"slices"

	"github.com/bits-and-blooms/bitset"
)

// Slurm 22.05.8's least-loaded-node choice (SelectTypeParameters CR_LLN, or
// a partition's LLN=YES) with cons_tres, as recorded on a real controller
// (testdata/slurm2205-own/lln-maxcpus-fit, lln_a.conf and llnp_a.conf;
// lln-probe); SlurmCompat only. No Slurm code was used.
//
//   - Weight first: a node of a higher weight is taken only when the
//     lower ones fall short (-n20 with every weight-1 node nearly full
//     takes them all, then l07 of weight 5).
//   - Within a weight, the nodes with the largest share of their CPUs
//     idle first, ties in node order: on idle nodes that is node order
//     (-n1 takes l01 of 16 CPUs, not l05 of 32; -n20 takes l[01-02]);
//     with l01, l02 and l05 holding 4, 10 and 20 CPUs, -n1 takes l03,
//     -N3 l[03-04,06] and -n70 l[01,03-04,06] (16+16+32, then l01's
//     12). Neither the most idle CPUs nor the fewest allocated: with
//     v02 (16 CPUs) holding 2, v06 (32) 3 and v07 (8) 1, -N3 takes v06
//     (29 of 32 idle), v02 and v07 (both 7/8; lln-probe).
//   - Each node taken gives what it has free, and required nodes come
//     first (-w l01 -n20 takes l01's 12, then l03). With a node count of
//     the job's own (-N), the last slot goes to a node that completes
//     the CPU total, as cons_tres's other choices do (consResTake): -N1
//     -n8 with every weight-1 node nearly full takes l07. Within only a
//     partition's MaxNodes, the nodes are taken in turn and a total the
//     first MaxNodes cannot hold is refused: -n90 in an LLN=YES
//     partition of MaxNodes=4 whose least loaded nodes hold 20 CPUs each
//     is refused at submission, though two 40-CPU nodes would complete
//     it (lln-maxcpus-blind 103, 118: the held-out set's two misses on
//     its first replay, this rule written after it).
func compatLLNPick(v View, job *Job, avail *bitset.BitSet, n Counts, cpuOf func(int) int) ([]int, bool) {
	t := newConsResTake(v, job, avail, n, cpuOf)
	if t.slots < 0 {
		return nil, false
	}
	t.inTurn = job.Req.MaxNodes == 0
	all := avail.Union(orEmpty(job.Required, avail.Len()))
	var keyed []shareKey
	for _, tier := range weightTiers(v.c, all) {
		keyed = v.idleShares(keyed[:0], tier)
		// weightTiers gives each tier in node order: a stable sort keeps
		// it among equally loaded nodes
		slices.SortStableFunc(keyed, func(a, b shareKey) int { return cmp.Compare(b.idle*a.cpus, a.idle*b.cpus) })
		for _, k := range keyed {
			if t.done() {
				break
			}
			t.add(int(k.node))
		}
	}
	return t.sel, t.ok()
}

// shareKey is a node with its idle and total CPUs, read once for the sort
// (a profile of 100,000 nodes spent most of the call reading them in the
// comparisons).
type shareKey struct {
	node       int
	idle, cpus int64
}

// idleShares appends the tier's nodes with their idle and total CPUs.
func (v View) idleShares(dst []shareKey, tier []int) []shareKey {
	for _, i := range tier {
		cpus := int64(v.c.effective(i).CPUs)
		dst = append(dst, shareKey{node: i, idle: max(cpus-int64(v.u.cpus[i]), 0), cpus: max(cpus, 1)})
	}
	return dst
}
