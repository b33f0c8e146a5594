package selectnodes

import (
	"math/bits"

	"github.com/bits-and-blooms/bitset"
)

// dropBusyOnCPUs is ConsRes's dropBusy for a job whose room on a busy
// node is its free CPUs and memory alone (roomOnCPUs), in one loop over
// the words instead of a call per node through hasRoom and freeOf. On
// clusters where most nodes are busy and no word's bounds pass it whole
// (few CPUs per node, or many small jobs on many-core nodes), dropBusy
// checks nearly every node of the partition at every selection: a
// profile of such replays put a seventh of their instructions there. It
// reports false, changing nothing, when the job needs the general check.
func (s ConsRes) dropBusyOnCPUs(v View, job *Job, dst *bitset.BitSet, lo, hi int) bool {
	if !v.roomOnCPUs(job) {
		return false
	}
	b, idle := dst.Words(), v.u.idle.Words()
	for k := lo; k < hi && k < len(b) && k < len(idle); k++ {
		busy := b[k] &^ idle[k]
		if busy == 0 || v.roomy(job, k) {
			continue
		}
		if len(v.c.records) == 1 {
			b[k] &^= v.noRoomAlike(job, k, busy)
		} else {
			b[k] &^= v.noRoomEach(job, k, busy)
		}
	}
	return true
}

// noRoomEach is the nodes of busy, the busy candidates of word k, without
// room for job (one of roomOnCPUs), as freeOf and hasRoom read for it.
func (v View) noRoomEach(job *Job, k int, busy uint64) (none uint64) {
	used, mem, jobs := v.u.cpus, v.u.mem, v.u.jobs
	need, needMem := job.cpusPerNode, job.Req.MinMemoryPerNode
	for ; busy != 0; busy &= busy - 1 {
		i := k*64 + bits.TrailingZeros64(busy)
		n := v.c.nodes[i].nodeConf
		capacity := n.CPUs
		if job.Shared {
			capacity = satMul(n.CPUs, job.MaxShare)
		}
		if min(capacity-used[i], n.CPUs) < need || n.RealMemory-mem[i] < needMem ||
			job.Shared && int(jobs[i]) >= job.MaxShare {
			none |= 1 << (i & 63)
		}
	}
	return none
}

// noRoomAlike is noRoomEach on a cluster of one node configuration (one
// record: every node has its CPUs and memory), which reads no node's.
func (v View) noRoomAlike(job *Job, k int, busy uint64) (none uint64) {
	used, mem, jobs := v.u.cpus, v.u.mem, v.u.jobs
	need, needMem := job.cpusPerNode, job.Req.MinMemoryPerNode
	cpus, realMem := v.c.records[0].cpus, v.c.records[0].mem
	if !job.Shared && needMem >= 0 && realMem >= 0 {
		return noRoomBelow(used, mem, k, busy, cpus, need, realMem-needMem)
	}
	capacity := cpus
	if job.Shared {
		capacity = satMul(cpus, job.MaxShare)
	}
	for ; busy != 0; busy &= busy - 1 {
		i := k*64 + bits.TrailingZeros64(busy)
		if min(capacity-used[i], cpus) < need || realMem-mem[i] < needMem ||
			job.Shared && int(jobs[i]) >= job.MaxShare {
			none |= 1 << (i & 63)
		}
	}
	return none
}

// roomOnCPUs reports whether hasRoom reads, for job on any busy node, only
// the node's configured CPUs and memory, its CPUs and memory in use and,
// for a shared job, its jobs: the job is not exclusive and asks no memory
// per CPU, no partition cap per node, no task layout (cpusOnly), no GRES
// and not the whole memory of a node where memory is counted, and the
// nodes' configuration is what selection counts (no reported sizes under
// FastSchedule 0).
func (v View) roomOnCPUs(job *Job) bool {
	return !job.Exclusive && cpusOnly(job) && len(job.gres) == 0 &&
		(!job.Req.WholeMemory || !v.c.memConsumable) &&
		!(v.c.fastSchedule == 0 && v.c.reported != nil)
}

// noRoomBelow is noRoomAlike for a job that does not share: a node of cpus
// CPUs lacks room when more than cpus-need of them are in use (all do
// when cpus < need) or more than maxMem of its memory.
func noRoomBelow(used []int, mem []int64, k int, busy uint64, cpus, need int, maxMem int64) (none uint64) {
	if cpus < need {
		return busy
	}
	maxUsed := cpus - need
	for ; busy != 0; busy &= busy - 1 {
		b := bits.TrailingZeros64(busy)
		if i := k*64 + b; used[i] > maxUsed || mem[i] > maxMem {
			none |= 1 << b
		}
	}
	return none
}
