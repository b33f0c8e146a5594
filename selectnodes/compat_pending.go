package selectnodes

// Slurm 22.05.8 leaves a job pending with the reason PartitionConfig, not
// refused at submission, when it asks for more nodes or CPUs than its
// partition has in all (blind b_topo3_*.conf -N19 on 18 nodes,
// b_ct.conf -n400 on 288 CPUs). A request the partition's nodes could
// hold in number but not in shape (a counted constraint, a node limit
// too small for the CPUs, memory no node has) is refused at submission:
// "Requested node configuration is not available" (node_config). No
// Slurm code was used.

// compatPartitionTotals is the compat mode's PartitionConfig answer for a
// request above its partition's totals, nil otherwise (and always in the
// default mode, which names the request node_config: no change of load
// lets it run).
func (c *Cluster) compatPartitionTotals(job *Job, n Counts) *Error {
	if !c.compat {
		return nil
	}
	nodes := c.parts[job.partIndex].nodes
	count, cpus := 0, 0
	for i, ok := nodes.NextSet(0); ok; i, ok = nodes.NextSet(i + 1) {
		count++
		cpus += c.effective(int(i)).CPUs
	}
	switch {
	case max(n.Min, 1) > count:
		return newError(ErrPartConfig, "%d nodes asked and partition %s has %d: Slurm 22.05 leaves the job pending (PartitionConfig)",
			max(n.Min, 1), job.Part.Name, count)
	case n.CPUs > cpus:
		return newError(ErrPartConfig, "%d CPUs asked and partition %s has %d: Slurm 22.05 leaves the job pending (PartitionConfig)",
			n.CPUs, job.Part.Name, cpus)
	}
	return nil
}
