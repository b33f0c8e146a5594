package selectnodes

import (
	"math"

	"github.com/bits-and-blooms/bitset"
)

// ConsRes is Slurm's select/cons_res (and cons_tres): CPUs, memory and
// GRES of a node are consumable, so several jobs share a node as long as
// its resources last. A job asking --exclusive, or in an EXCLUSIVE
// partition, gets whole idle nodes. With OverSubscribe=FORCE, or YES and
// --oversubscribe, a node's CPUs may be committed MaxShare times over;
// memory and GRES never are. Nodes are chosen by the same consecutive-run
// rule as Linear, counting each node's free CPUs.
type ConsRes struct{}

var _ Selector = ConsRes{}

// free is the CPUs node i can give job: never more than the node has,
// however far sharing lets several jobs commit its CPUs.
func (s ConsRes) free(v View, job *Job, i int) int {
	return s.freeOf(v, job, i, v.c.effective(i).CPUs)
}

// freeOf is free for a node of cpus CPUs.
func (ConsRes) freeOf(v View, job *Job, i, cpus int) int {
	if job.Exclusive {
		return cpus
	}
	capacity := cpus
	if job.Shared {
		capacity = satMul(cpus, job.MaxShare)
	}
	free := min(capacity-v.u.cpus[i], cpus)
	if cpusOnly(job) {
		return free // what the limits below would leave as it is
	}
	free = min(free, memCPUs(v, job, i))
	if left := v.capLeft(job, i); left >= 0 { // MaxCPUsPerNode (partcap.go)
		free = min(free, left)
	}
	return v.c.layoutUnits(job, i, free) // tasklayout.go
}

// cpusOnly reports whether a shared job's free CPUs on a node are its
// CPUs less their load alone: no memory per CPU, no partition cap per
// node, no task layout to round to. freeOf runs for every busy node a
// selection reads, and most jobs ask none of these.
func cpusOnly(job *Job) bool {
	return job.memPerCPU <= 0 && job.Part.MaxCPUsPerNode <= 0 && !job.Req.CoreTasks && job.Req.MaxCPUsPerSocket <= 0
}

var _ loadFilter = ConsRes{}

// Filter implements Selector.
func (s ConsRes) Filter(v View, job *Job, cand, dst *bitset.BitSet) { filterAll(s, v, job, cand, dst) }

// mask is the nodes the job may use at all under the load: idle ones for
// an exclusive job, else those no exclusive job holds.
func (ConsRes) mask(v View, job *Job) *bitset.BitSet {
	if job.Exclusive {
		return v.u.idle
	}
	return v.u.share
}

// dropBusy removes from the words [lo, hi) of dst the busy nodes without
// room for the job.
func (s ConsRes) dropBusy(v View, job *Job, dst *bitset.BitSet, lo, hi int) {
	if job.Exclusive || s.dropBusyOnCPUs(v, job, dst, lo, hi) {
		return
	}
	// words whose fullest node still has room are kept whole (room.go)
	roomy := func(w int) bool { return v.roomy(job, w) }
	v.eachBusyTight(dst.Words(), lo, hi, roomy, func(i uint) {
		if !s.hasRoom(v, job, int(i)) {
			dst.Clear(i)
		}
	})
}

// hasRoom reports whether busy node k has room for job: its CPUs per
// node, memory, a place among the node's sharing jobs, and its GRES.
func (s ConsRes) hasRoom(v View, job *Job, k int) bool {
	e := v.c.effective(k)
	return s.freeOf(v, job, k, e.CPUs) >= job.cpusPerNode && e.RealMemory-v.u.mem[k] >= job.Req.MinMemoryPerNode &&
		wholeMemoryFree(v, job, k) && // --mem=0 (compat_mem.go)
		(!job.Shared || int(v.u.jobs[k]) < job.MaxShare) && (len(job.gres) == 0 || v.gresFits(k, job))
}

// JobTest implements Selector.
func (s ConsRes) JobTest(v View, job *Job, avail *bitset.BitSet, n Counts) (Choice, bool) {
	cpuOf := s.cpuTable(v, job)
	if v.c.compatConsRes(job) {
		chosen, ok := compatConsResPick(v, job, avail, n, cpuOf) // compat_consres.go
		if !ok {
			return Choice{}, false
		}
		return s.choice(v, job, chosen, n), true
	}
	return byWeight(v, avail, func(cand, lower *bitset.BitSet) (Choice, bool) {
		runs := func(cand *bitset.BitSet) ([]int, bool) {
			return newPicker(v, cand, cpuOf, nil).pick(cand, job.Required, n, false)
		}
		if v.c.compat && v.sc != nil && cand.Count() < avail.Count() {
			// a lighter pass of byWeight's, like pickBest's (compatShareFit)
			defer func(was bool) { v.sc.lighterOnly = was }(v.sc.lighterOnly)
			v.sc.lighterOnly = true
		}
		chosen, handled := treeFit(v, job, cand, n, cpuOf, runs)
		ok := chosen != nil
		if !handled {
			chosen, ok = newPicker(v, cand, cpuOf, lower).pick(cand, job.Required, n, job.Req.Contiguous)
		}
		if !ok {
			return Choice{}, false
		}
		return s.choice(v, job, chosen, n), true
	})
}

// choice is the Choice for the chosen nodes: their CPU shares and memory.
func (s ConsRes) choice(v View, job *Job, chosen []int, n Counts) Choice {
	mem := job.Req.MinMemoryPerNode
	if job.Exclusive {
		mem = 0 // the node is the job's; its memory is not counted per job
	}
	// the choice lives in the call's scratch: the pipeline copies it into
	// the Placement at once
	ch := Choice{Nodes: v.sc.nodeUses(len(chosen)), Exclusive: job.Exclusive}
	for k, cpus := range s.shares(v, job, chosen, n.CPUs) {
		// field by field: the scratch's uses have no GRES, and writing
		// the slice (a pointer) costs a barrier while the collector runs
		u := &ch.Nodes[k]
		cpus = v.c.layoutCPUs(job, chosen[k], cpus) // tasklayout.go
		u.Node, u.CPUs, u.Memory = chosen[k], cpus, max(mem, memFor(job, cpus), wholeMemory(v, job, chosen[k]))
		if u.GRES != nil {
			u.GRES = nil
		}
	}
	return ch
}

// cpuTable returns the free-CPU function the selection asks per node.
// With a topology, Fit and its best-fit fill ask it for every available
// node, many times over (a profile of the backfill planner showed the
// per-call work as a top cost), so each node's value is memoised in a
// table of the cluster's size; that is O(nodes), which Fit costs anyway.
// Without a topology the picker asks few nodes: compute on demand.
func (s ConsRes) cpuTable(v View, job *Job) func(int) int {
	if v.c.topo == nil {
		if v.sc != nil && freeIsCPUsLeft(v, job) {
			return v.sc.cpusLeftOf(v, job) // consres_free.go
		}
		return func(i int) int { return s.free(v, job, i) }
	}
	table := v.sc.cpuTable(len(v.c.nodes))
	return func(i int) int {
		if t := table[i]; t != unknownCPUs {
			return int(t)
		}
		f := s.free(v, job, i)
		if f > math.MinInt32 && f <= math.MaxInt32 { // else too big to keep: recomputed each time
			table[i] = int32(f)
		}
		return f
	}
}

// unknownCPUs marks a cpuTable entry not computed yet.
const unknownCPUs = math.MinInt32

// shares spreads the job's CPUs: every node its per-node minimum, then
// more in node order until the total is met; exclusive jobs take all.
// share[k] is chosen[k]'s.
func (s ConsRes) shares(v View, job *Job, chosen []int, total int) []int {
	share := v.sc.ints(len(chosen))
	got := 0
	left := freeIsCPUsLeft(v, job) // consres_free.go
	free := func(v View, job *Job, i int) int {
		if left {
			return cpusLeft(v, job, i)
		}
		return s.free(v, job, i)
	}
	for k, i := range chosen {
		if job.Exclusive {
			share[k] = v.c.effective(i).CPUs
		} else {
			share[k] = min(job.cpusPerNode, free(v, job, i))
		}
		got += share[k]
	}
	for k, i := range chosen {
		if got >= total || job.Exclusive {
			break
		}
		more := min(free(v, job, i)-share[k], total-got)
		share[k] += more
		got += more
	}
	return share
}
