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

func (ConsRes) cpuCap(v View, job *Job, i int) int {
	capacity := v.c.effective(i).CPUs
	if job.Shared {
		capacity *= job.MaxShare
	}
	return capacity
}

// free is the CPUs node i can give job: never more than the node has,
// however far sharing lets several jobs commit its CPUs.
func (s ConsRes) free(v View, job *Job, i int) int {
	cpus := v.c.effective(i).CPUs
	if job.Exclusive {
		return cpus
	}
	return min(s.cpuCap(v, job, i)-v.u.cpus[i], cpus)
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
		if s.free(v, job, k) < job.cpusPerNode || v.FreeMemory(k) < job.Req.MinMemoryPerNode ||
			(job.Shared && int(v.u.jobs[k]) >= job.MaxShare) || !v.gresFits(k, job) {
			dst.Clear(i)
		}
	})
}

// JobTest implements Selector.
func (s ConsRes) JobTest(v View, job *Job, avail *bitset.BitSet, n Counts) (*Placement, bool) {
	c := v.c
	cpuOf := func(i int) int { return s.free(v, job, i) }
	return byWeight(v, avail, func(cand, lower *bitset.BitSet) (*Placement, bool) {
		runs := func(cand *bitset.BitSet) ([]int, bool) {
			return picker{n: len(c.nodes), cpuOf: cpuOf}.pick(cand, job.Required, n, false)
		}
		chosen, handled := treeFit(v, job, cand, n, cpuOf, runs)
		ok := chosen != nil
		if !handled {
			chosen, ok = picker{n: len(c.nodes), cpuOf: cpuOf, prefer: lower}.pick(cand, job.Required, n, job.Req.Contiguous)
		}
		if !ok {
			return nil, false
		}
		share := s.shares(v, job, chosen, n.CPUs)
		mem := job.Req.MinMemoryPerNode
		if job.Exclusive {
			mem = 0 // the node is the job's; its memory is not counted per job
		}
		return v.placement(job, chosen, func(i int) int { return share[i] }, mem, job.Exclusive), true
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
