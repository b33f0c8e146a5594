package selectnodes

// Task layouts on hyperthreaded and multi-socket nodes, as recorded on a
// real Slurm 22.05.8 with cons_tres CR_Core_Memory (testdata/slurm2205-own
// topo-share, ht_coremem.conf: nodes of 2 sockets x 4 cores x 2 threads).
// No Slurm code was used.
//
//   - With Request.CoreTasks each CPU the job counts is a core: on a node
//     of T threads per core it is offered free/T of them and every one
//     allocated holds T CPUs. --hint=nomultithread -n8 with h01 and h02
//     holding 4 and 10 CPUs takes h03 (16 CPUs: 8 cores); -n4 -N1 takes
//     h01 (8 CPUs of its 6 free cores); --ntasks-per-core=1 -n9 takes
//     h[01-02] (18 CPUs).
//   - Request.MaxCPUsPerSocket bounds what a node offers by its sockets:
//     --ntasks-per-socket=2 -n5 takes two nodes of two sockets.
//
// Both modes apply them (they are what the job asks, not a choice among
// placements). Not modelled: CR_CPU, which allocates threads rather than
// cores (a nomultithread job holds one thread per core there), and
// CR_Socket's whole sockets.

// threadsOf is node i's threads per core (at least 1).
func (c *Cluster) threadsOf(i int) int { return max(c.nodes[i].Threads, 1) }

// socketsOf is node i's sockets (at least 1). A node given by its CPUs
// alone has, as in Slurm, as many sockets as its CPUs hold cores (16 for
// CPUs=16): --ntasks-per-socket=1 -n30 takes two such nodes
// (layout-blind3 54, recorded before this was written).
func (c *Cluster) socketsOf(i int) int {
	n := &c.nodes[i]
	boards, sockets := max(n.Boards, 1), max(n.Sockets, 1)
	if sockets == 1 && n.CPUs > 0 {
		perSocket := max(n.CoresPerSocket, 1) * max(n.Threads, 1)
		sockets = max(n.CPUs/(boards*perSocket), 1)
	}
	return boards * sockets
}

// layoutUnits converts cpus CPUs of node i into what the job counts:
// cores for CoreTasks, at most MaxCPUsPerSocket per socket.
func (c *Cluster) layoutUnits(job *Job, i, cpus int) int {
	req := job.Req
	if req.CoreTasks {
		cpus /= c.threadsOf(i)
	}
	if req.MaxCPUsPerSocket > 0 {
		cpus = min(cpus, satMul(req.MaxCPUsPerSocket, c.socketsOf(i)))
	}
	return cpus
}

// layoutCPUs is the CPUs node i allocates for units of the job's count.
func (c *Cluster) layoutCPUs(job *Job, i, units int) int {
	if job.Req.CoreTasks && !job.Exclusive {
		return units * c.threadsOf(i)
	}
	return units
}

// idleUnits is what an idle node i of cpus CPUs offers the job, within its
// partition's MaxCPUsPerNode, in the job's count.
func (c *Cluster) idleUnits(job *Job, i, cpus int) int {
	return c.layoutUnits(job, i, capCPUs(job, cpus))
}
