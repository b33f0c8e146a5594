package selectnodes

import "math"

// Memory per CPU and the partition's default memory, as Slurm 22.05.8
// applies them with cons_tres and CR_Core_Memory (recorded on a real
// controller: testdata/slurm2205-own, ct_mem.conf). They are Slurm's
// semantics rather than a defect, so both modes apply them:
//
//   - a job that asks for no memory gets the partition's DefMemPerNode,
//     else DefMemPerCPU per allocated CPU: with DefMemPerCPU=4000 on
//     16000 MB nodes, -n5 takes 4 CPUs of m1 and 1 of m2, and -N1 -n5 goes
//     to a 64000 MB node;
//   - --mem-per-cpu (Request.MemPerCPU) is memory per allocated CPU: a
//     node gives the job no more CPUs than its free memory holds;
//   - a node must hold the memory of the job's per-node minimum of CPUs,
//     or it is not a candidate (the memory filter).
//
// Exclusive jobs take whole nodes; their memory is not counted per CPU.

// applyMemDefaults sets the job's memory from its request and the
// partition's defaults. The request the job carries is a copy when the
// per-node minimum changes, so the caller's is never written.
func applyMemDefaults(job *Job) {
	req, p := job.Req, job.Part
	if req.WholeMemory {
		return // the node's memory, whatever the defaults (wholeMemoryFree)
	}
	perNode, perCPU := req.MinMemoryPerNode, req.MemPerCPU
	if perNode == 0 && perCPU == 0 {
		if p.DefMemPerNode > 0 {
			perNode = p.DefMemPerNode
		} else {
			perCPU = p.DefMemPerCPU
		}
	}
	job.memPerCPU = perCPU
	if perCPU > 0 {
		perNode = max(perNode, satMul64(perCPU, int64(job.cpusPerNode)))
	}
	if perNode != req.MinMemoryPerNode {
		r := *req
		r.MinMemoryPerNode = perNode
		job.Req = &r
	}
}

// memCPUs is how many CPUs node i's free memory holds for job (no limit
// without memory per CPU, or for an exclusive job).
func memCPUs(v View, job *Job, i int) int {
	if job.memPerCPU <= 0 || job.Exclusive {
		return math.MaxInt
	}
	free := v.c.effective(i).RealMemory - v.u.mem[i]
	if free <= 0 {
		return 0
	}
	return int(min(free/job.memPerCPU, math.MaxInt32))
}

// memFor is the memory cpus CPUs take per node (0 without memory per CPU).
func memFor(job *Job, cpus int) int64 {
	if job.memPerCPU <= 0 || job.Exclusive {
		return 0
	}
	return satMul64(job.memPerCPU, int64(cpus))
}

// checkNoMemory refuses, where memory is consumable, a job that asks for
// no memory in a partition with MaxMemPerNode and no default: Slurm then
// leaves it pending (PartitionConfig) when the partition's first node (in
// name order) holds more memory than the limit, whatever nodes it would
// take: ct_mem.conf -p cap -N1 (f1 of 64000 MB first, limit 8000) and
// probe3/recorded.tsv:28, -p capz -n8 (r1 of 32000 MB, limit 20000,
// although u[1-2] of 16000 MB are in it) pend; blind2/recorded.tsv:117,
// -p lim -n8 (g1 of 24000 MB first, limit 32000) runs on h1 of 64000 MB;
// blind/recorded.tsv:139 (r1 of 32000, limit 48000) runs. An exclusive
// job too: -p gen --exclusive -n173 (vs01 of 32000 MB first, limit 8000)
// pends (blind10/recorded.tsv:86). The default mode refuses only when no
// node of the partition is within the limit.
func (c *Cluster) checkNoMemory(job *Job) error {
	first, all := c.noMemoryOver(job)
	if over := all || (c.compat && first); !over {
		return nil
	}
	return newError(ErrPartConfig, "no memory asked and partition %s has no DefMemPerCPU or DefMemPerNode: "+
		"the job would hold whole nodes' memory, above MaxMemPerNode %d MB (give --mem or --mem-per-cpu)", job.Part.Name, job.Part.MaxMemPerNode)
}

// noMemoryOver reports, for a job asking no memory where MaxMemPerNode is
// set and no default, whether the partition's first node holds more
// memory than the limit (Slurm pends) and whether every node does.
func (c *Cluster) noMemoryOver(job *Job) (first, all bool) {
	p := job.Part
	if !c.memConsumable || p.MaxMemPerNode <= 0 || job.Req.MinMemoryPerNode > 0 || job.memPerCPU > 0 {
		return false, false
	}
	nodes := c.parts[job.partIndex].nodes
	i, ok := nodes.NextSet(0)
	if !ok {
		return false, false
	}
	firstMem, least := c.nodes[i].RealMemory, int64(math.MaxInt64)
	for ; ok; i, ok = nodes.NextSet(i + 1) {
		least = min(least, c.nodes[i].RealMemory)
	}
	return firstMem > p.MaxMemPerNode, least > p.MaxMemPerNode
}

// wholeMemoryFree reports whether node i can give a --mem=0 job its whole
// memory: where memory is consumable, none of it may be allocated. Slurm
// 22.05.8 placed --mem=0 -N1 on o04, the first node without a job, after
// o01-o03 each holding some CPUs and memory, and -N2 on o[04-05]
// (topo-share, share_over.conf); on nodes holding jobs but no memory
// (CR_Core) the job shares as any other.
func wholeMemoryFree(v View, job *Job, i int) bool {
	return !job.Req.WholeMemory || !v.c.memConsumable || v.u.mem[i] == 0
}

// wholeMemory is the memory a --mem=0 job takes on node i: all of it
// where memory is consumable.
func wholeMemory(v View, job *Job, i int) int64 {
	if job.Req.WholeMemory && v.c.memConsumable {
		return v.c.effective(i).RealMemory
	}
	return 0
}
