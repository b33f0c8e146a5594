package selectnodes

import "slices"

// A partition's MaxCPUsPerNode bounds the CPUs of one node that its jobs
// hold together, as recorded on a real Slurm 22.05.8 with cons_tres
// (testdata/slurm2205-own/lln-maxcpus-fit, mc_a.conf: 16-CPU nodes in a
// partition capped at 8): -N1 -n9, -c10, -N2 -n20 and --exclusive -N1
// are refused at submission (node_config); -n40 spreads over five nodes
// and -n65, above the eight nodes' 64, waits (PartitionConfig); with
// jobs of the partition holding 6 CPUs of m01 and 4 of m02, -n9 takes
// m01 (2), m02 (4) and m03, and -w m01 -n4 needs m02 too; a job of an
// uncapped partition still has the node's 10 free CPUs of m01. No Slurm
// code was used.

// partLoad is the CPUs one capped partition's jobs hold on each node.
type partLoad struct {
	name string
	cpus []int32
}

// newLoad is an empty load with a zero table for every partition with a
// MaxCPUsPerNode.
func (c *Cluster) newLoad() usage {
	u := newUsage(len(c.nodes), len(c.gres.key))
	for i := range c.parts {
		if c.parts[i].MaxCPUsPerNode > 0 {
			u.part = append(u.part, partLoad{name: c.parts[i].Name, cpus: make([]int32, len(c.nodes))})
		}
	}
	return u
}

// reloadPartLoads rebuilds the per-partition tables from the running jobs
// after a partition changed (UpdatePartition), in new arrays: snapshots
// taken before keep theirs.
func (c *Cluster) reloadPartLoads() {
	fresh := c.newLoad()
	for _, id := range c.Running() {
		fresh.applyPart(c.jobs[id].p, 1)
	}
	c.use.part = fresh.part
	c.empty.Store(nil) // made again, with the new tables, when next needed
}

// applyPart adds (sign 1) or removes (sign -1) a placement's CPUs from its
// partition's table, when the partition is capped.
func (u *usage) applyPart(p *Placement, sign int) {
	for k := range u.part {
		if u.part[k].name != p.Partition {
			continue
		}
		for _, a := range p.Alloc {
			u.part[k].cpus[a.Node] += int32(sign * a.CPUs)
		}
	}
}

// clonePartLoads copies src into dst's arrays, reused when they fit.
func clonePartLoads(dst, src []partLoad) []partLoad {
	if len(src) == 0 {
		return dst[:0]
	}
	if len(dst) != len(src) {
		dst = make([]partLoad, len(src))
	}
	for k := range src {
		dst[k].name = src[k].name
		dst[k].cpus = append(dst[k].cpus[:0], src[k].cpus...)
	}
	return dst
}

func partLoadsEqual(a, b []partLoad) bool {
	return slices.EqualFunc(a, b, func(x, y partLoad) bool { return x.name == y.name && slices.Equal(x.cpus, y.cpus) })
}

// capLeft is what the job's partition cap leaves of node i under the load
// v: the cap less its jobs' CPUs there; -1 without a cap.
func (v View) capLeft(job *Job, i int) int {
	limit := job.Part.MaxCPUsPerNode
	if limit <= 0 {
		return -1
	}
	for k := range v.u.part {
		if v.u.part[k].name == job.Part.Name {
			return max(limit-int(v.u.part[k].cpus[i]), 0)
		}
	}
	return limit
}

// capCPUs is the CPUs of a node of cpus CPUs the job's partition lets it
// use when the node is idle.
func capCPUs(job *Job, cpus int) int {
	if job.Part.MaxCPUsPerNode > 0 {
		return min(cpus, job.Part.MaxCPUsPerNode)
	}
	return cpus
}
