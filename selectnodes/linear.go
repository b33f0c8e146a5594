package selectnodes

import (
	"slices"

	"github.com/bits-and-blooms/bitset"
)

// Linear is Slurm's select/linear: jobs get whole nodes. A job that may
// not share (the Novotný thesis Table 2.1) gets idle nodes and holds them
// exclusively; a job that may share goes to the least loaded nodes first
// (Min Load First, the Novotný thesis §4.3.2), at most MaxShare jobs per node.
// Whole-node selection follows the Slurm Programmer's Guide: the one consecutive run that
// suffices leaving the fewest nodes unused, else the fewest runs, largest
// first; required nodes first; lowest weight first.
type Linear struct{}

var _ Selector = Linear{}

var _ loadFilter = Linear{}

// Filter implements Selector.
func (l Linear) Filter(v View, job *Job, cand, dst *bitset.BitSet) { filterAll(l, v, job, cand, dst) }

// mask is the nodes the job may use at all under the load: idle ones
// unless it shares (idle nodes have all their GRES, which BuildNodeSets
// checked).
func (Linear) mask(v View, job *Job) *bitset.BitSet {
	if !job.Shared {
		return v.u.idle
	}
	return v.u.share
}

// dropBusy removes from the words [lo, hi) of dst the busy nodes a
// sharing job cannot join.
func (Linear) dropBusy(v View, job *Job, dst *bitset.BitSet, lo, hi int) {
	if !job.Shared {
		return
	}
	joinable := func(w int) bool { return v.joinable(job, w) } // room.go
	v.eachBusyTight(dst.Words(), lo, hi, joinable, func(i uint) {
		if int(v.u.jobs[i]) >= job.MaxShare || !v.gresFits(int(i), job) {
			dst.Clear(i)
		}
	})
}

// JobTest implements Selector.
func (Linear) JobTest(v View, job *Job, avail *bitset.BitSet, n Counts) (Choice, bool) {
	c := v.c
	cpuOf := func(i int) int { return c.effective(i).CPUs }
	test := func(cand, lower *bitset.BitSet) (Choice, bool) {
		runs := func(cand *bitset.BitSet) ([]int, bool) {
			return newPicker(v, cand, cpuOf, nil).pick(cand, job.Required, n, false)
		}
		chosen, handled := treeFit(v, job, cand, n, cpuOf, runs)
		ok := chosen != nil
		switch {
		case handled:
		case job.Shared && !job.Req.Contiguous:
			chosen, ok = minLoad(v, cand, job.Required, n, cpuOf)
		default:
			pk := newPicker(v, cand, cpuOf, lower)
			pk.slurm, pk.mixed, pk.nodeCount = c.compat, c.compat && mixedSizes(c, cand), job.Req.MinNodes > 0
			chosen, ok = pk.pick(cand, job.Required, n, job.Req.Contiguous)
		}
		if !ok {
			return Choice{}, false
		}
		// in node order, as the placement lists them: sorting the indices
		// here is cheaper than the placement sorting the uses
		slices.Sort(chosen)
		return uses(v, chosen, cpuOf, 0, !job.Shared), true
	}
	if c.compat {
		return test(avail, nil) // the sets pickbest accumulated, as they are (compat_linear.go)
	}
	return byWeight(v, avail, test)
}

// minLoad takes required nodes, then nodes by ascending job count (index
// order within a count), until the wanted count and the CPUs are met.
func minLoad(v View, cand, required *bitset.BitSet, n Counts, cpuOf func(int) int) ([]int, bool) {
	var sel []int
	cpus := 0
	nreq := 0
	if required != nil {
		for i, ok := required.NextSet(0); ok; i, ok = required.NextSet(i + 1) {
			sel = append(sel, int(i))
			cpus += cpuOf(int(i))
		}
		nreq = len(sel)
	}
	maxN := limit(n, int(cand.Count()))
	w := min(want(n, nreq), maxN)
	done := func() bool { return len(sel) >= w && cpus >= n.CPUs || len(sel) >= maxN }
	// level 0 are the idle nodes, found without visiting the busy ones
	for level := 0; !done(); level++ {
		found := false
		for i, ok := cand.NextSet(0); ok && !done(); i, ok = cand.NextSet(i + 1) {
			jobs := int(v.u.jobs[i])
			if jobs > level {
				found = true
				continue
			}
			if jobs < level || (required != nil && required.Test(i)) {
				continue
			}
			sel = append(sel, int(i))
			cpus += cpuOf(int(i))
		}
		if !found {
			break
		}
	}
	if len(sel) < max(n.Min, 1) || cpus < n.CPUs || len(sel) > maxN {
		if n.CPUs <= 0 {
			return nil, false
		}
		return largestFirst(cand, required, n, cpuOf)
	}
	return sel, true
}
