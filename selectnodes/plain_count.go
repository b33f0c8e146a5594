package selectnodes

// CountedNeed is a counted fast path for planners: it reports whether,
// for req, "does the job fit on these nodes, ignoring the load" is a
// count comparison, and the count. When ok is true and req fits the idle
// cluster (a TestOnly selection without withheld nodes succeeds, as a
// queue's admission checks), a TestOnly selection of req with any set X
// of nodes withheld (Request.ExcludeNodes) succeeds exactly when at least
// need nodes are left. A planner may then find when a job can start by
// counting free nodes, and run the selection only to choose the nodes.
//
// It holds for a plain cluster and a plain request. The cluster: Linear or
// ConsRes selection without Slurm compatibility, no topology, every node
// up and available, in the request's partition, with the same CPUs, and a
// partition with no memory defaults and no CPU bound per node. The
// request: a node count (MinNodes, MaxNodes, DesiredNodes), a CPU total,
// and who asks (partition, user, account, QOS, time limit, sharing) — no
// feature expression, node lists, withheld nodes, contiguity, switch
// count, GRES, per-node minimums, memory, core or socket layout, and not
// held. need is max(MinNodes, 1, CPUs over the CPUs of a node rounded up);
// ok is false when MaxNodes is set below it.
//
// It reads the cluster's status (two bitmap counts) and changes nothing.
func (c *Cluster) CountedNeed(req *Request) (need int, ok bool) {
	c.mustBeMade("CountedNeed")
	if req == nil || !plainRequest(req) || !c.plainSelector() {
		return 0, false
	}
	part, ok := c.requestPartition(req)
	if !ok || part.DefMemPerCPU != 0 || part.DefMemPerNode != 0 || part.MaxCPUsPerNode != 0 {
		return 0, false
	}
	n := len(c.nodes)
	if n == 0 || int(part.nodes.Count()) != n || int(c.avail.Count()) != n {
		return 0, false
	}
	cpn := c.alikeCPUs // kept by the status: no scan
	if cpn <= 0 {
		return 0, false
	}
	need = max(req.MinNodes, 1)
	if req.CPUs > 0 {
		need = max(need, req.CPUs/cpn+min(req.CPUs%cpn, 1))
	}
	if req.MaxNodes > 0 && req.MaxNodes < need {
		return 0, false
	}
	return need, true
}

// plainRequest reports whether req asks only for counts (see CountedNeed).
func plainRequest(req *Request) bool { return req.ExcludeNodes == nil && plainShape(req) }

// plainShape is plainRequest allowing withheld nodes (a plain walk takes
// them out of the candidates).
func plainShape(req *Request) bool {
	return req.Features == nil && len(req.Required) == 0 && len(req.Excluded) == 0 &&
		!req.Contiguous && req.MaxSwitches == 0 && len(req.GRES) == 0 && req.MinCPUsPerNode == 0 &&
		req.MinMemoryPerNode == 0 && req.MinTmpDiskPerNode == 0 && req.MemPerCPU == 0 && !req.WholeMemory &&
		!req.CoreTasks && req.MaxCPUsPerSocket == 0 && !req.Held &&
		req.MinNodes >= 0 && req.MaxNodes >= 0 && req.DesiredNodes >= 0 && req.CPUs >= 0 &&
		(req.MaxNodes == 0 || req.MinNodes <= req.MaxNodes)
}

// plainSelector reports whether selection is the package's own Linear or
// ConsRes, in the default mode, without a switch tree.
func (c *Cluster) plainSelector() bool {
	if c.compat || c.topo != nil {
		return false
	}
	switch c.selector.(type) {
	case Linear, ConsRes:
		return true
	}
	return false
}

// requestPartition is the partition req names, or the default one.
func (c *Cluster) requestPartition(req *Request) (*partition, bool) {
	name := req.Partition
	if name == "" {
		if c.defPart < 0 {
			return nil, false
		}
		return &c.parts[c.defPart], true
	}
	i, ok := c.partIx[name]
	if !ok {
		return nil, false
	}
	return &c.parts[i], true
}
