package selectnodes

import (
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
	return min(capacity-v.u.cpus[i], cpus)
}

// Filter implements Selector.
func (s ConsRes) Filter(v View, job *Job, cand, dst *bitset.BitSet) {
	cand.Copy(dst)
	if job.Exclusive {
		dst.InPlaceIntersection(v.u.idle)
		return
	}
	dst.InPlaceIntersection(v.u.share)
	v.eachBusy(dst, func(i uint) {
		k := int(i)
		e := v.c.effective(k)
		if s.freeOf(v, job, k, e.CPUs) < job.cpusPerNode || e.RealMemory-v.u.mem[k] < job.Req.MinMemoryPerNode ||
			(job.Shared && int(v.u.jobs[k]) >= job.MaxShare) || (len(job.gres) > 0 && !v.gresFits(k, job)) {
			dst.Clear(i)
		}
	})
}

// JobTest implements Selector.
func (s ConsRes) JobTest(v View, job *Job, avail *bitset.BitSet, n Counts) (Choice, bool) {
	c := v.c
	cpuOf := func(i int) int { return s.free(v, job, i) }
	return byWeight(v, avail, func(cand, lower *bitset.BitSet) (Choice, bool) {
		runs := func(cand *bitset.BitSet) ([]int, bool) {
			return picker{n: len(c.nodes), cpuOf: cpuOf}.pick(cand, job.Required, n, false)
		}
		chosen, handled := treeFit(v, job, cand, n, cpuOf, runs)
		ok := chosen != nil
		if !handled {
			chosen, ok = picker{n: len(c.nodes), cpuOf: cpuOf, prefer: lower}.pick(cand, job.Required, n, job.Req.Contiguous)
		}
		if !ok {
			return Choice{}, false
		}
		share := s.shares(v, job, chosen, n.CPUs)
		mem := job.Req.MinMemoryPerNode
		if job.Exclusive {
			mem = 0 // the node is the job's; its memory is not counted per job
		}
		return uses(chosen, func(i int) int { return share[i] }, mem, job.Exclusive), true
	})
}

// shares spreads the job's CPUs: every node its per-node minimum, then
// more in node order until the total is met; exclusive jobs take all.
func (s ConsRes) shares(v View, job *Job, chosen []int, total int) map[int]int {
	share := make(map[int]int, len(chosen))
	got := 0
	for _, i := range chosen {
		if job.Exclusive {
			share[i] = v.c.effective(i).CPUs
		} else {
			share[i] = min(job.cpusPerNode, s.free(v, job, i))
		}
		got += share[i]
	}
	for _, i := range chosen {
		if got >= total || job.Exclusive {
			break
		}
		more := min(s.free(v, job, i)-share[i], total-got)
		share[i] += more
		got += more
	}
	return share
}
