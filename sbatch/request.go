package sbatch

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/hpcsched/hpcsched/features"
	"github.com/hpcsched/hpcsched/queue"
	"github.com/hpcsched/hpcsched/selectnodes"
	"github.com/hpcsched/hpcsched/slurmconf"
)

// Request is the selection request the options describe, for partition
// (one of o.Partitions, or "" for the default). fopts are passed to
// features.Parse (features.Legacy for Slurm-compatible constraints).
// The request is the caller's: its lists are copies, not o's.
//
// The mapping, as sbatch's: -n and -c give the CPU total (tasks x CPUs
// per task); -c, --ntasks-per-node x -c and --mincpus give the CPUs every
// node must have (a task's CPUs are on one node); with -n,
// --ntasks-per-node also asks for at least ceil(n / ntasks-per-node) nodes; --mem is per node and --mem-per-cpu is multiplied by the
// CPUs per node; --gpus-per-node adds gpu[:type]:N to every node and
// --gpus N asks for ceil(N / nodes) per node (the even spread sbatch
// uses when it can); --exclusive and -s/--oversubscribe set the share
// request; --uid, --gid (a group, or several separated by commas), -A and
// --qos say who submits, checked against the partition's AllowGroups,
// AllowAccounts and AllowQOS. --switches is carried in Options for callers
// that model it; the selection pipeline does not.
func (o *Options) Request(partition string, fopts ...features.Option) (selectnodes.Request, error) {
	if o == nil {
		return selectnodes.Request{}, noOptions()
	}
	// the request's slices are its own: a caller may change them and ask
	// the options again
	minNodes, maxNodes := o.nodeCounts()
	r := selectnodes.Request{Partition: partition, MinNodes: minNodes, MaxNodes: maxNodes,
		Required: slices.Clone(o.NodeList), Excluded: slices.Clone(o.Exclude), Contiguous: o.Contiguous, TimeLimit: o.TimeLimit,
		MaxSwitches:       o.Switches,
		MinTmpDiskPerNode: o.TmpMB, GRES: append([]selectnodes.GRESRequest(nil), o.GRES...),
		User: o.User, Account: o.Account, QOS: o.QOS}
	if o.Group != "" {
		r.Groups = strings.Split(o.Group, ",")
	}
	cpt := max(o.CPUsPerTask, 1)
	switch {
	case o.NTasks > 0:
		r.CPUs = o.NTasks * cpt // both at most 2^24
	case o.NTasksPerNode > 0 && o.MinNodes > 0:
		r.CPUs = o.NTasksPerNode * cpt * o.MinNodes
	case o.CPUsPerTask > 0:
		r.CPUs = cpt
	}
	if r.CPUs > maxCount {
		return r, fmt.Errorf("sbatch: %d CPUs in all is more than %d", r.CPUs, maxCount)
	}
	// a task's CPUs are on one node
	r.MinCPUsPerNode = max(o.MinCPUs, o.NTasksPerNode*cpt, o.CPUsPerTask)
	if o.NTasks > 0 && o.NTasksPerNode > 0 {
		// with -n, --ntasks-per-node is a most per node: Slurm 22.05 takes
		// at least ceil(n / per node) nodes (-n2 --ntasks-per-node=1 takes
		// two; -n20 --ntasks-per-node=8 three, each of 8 CPUs)
		r.MinNodes = max(r.MinNodes, (o.NTasks+o.NTasksPerNode-1)/o.NTasksPerNode)
	}
	r.MinMemoryPerNode = o.MemoryMB
	r.WholeMemory = o.WholeMemory
	o.Layout.apply(&r, cpt) // layout.go
	r.MemPerCPU = o.MemPerCPUMB
	if o.MemPerCPUMB > 0 {
		perNode := int64(max(r.MinCPUsPerNode, cpt))
		if o.MemPerCPUMB > MaxMemoryMB/perNode {
			return r, fmt.Errorf("sbatch: --mem-per-cpu x %d CPUs is more than MaxMemoryMB", perNode)
		}
		r.MinMemoryPerNode = max(r.MinMemoryPerNode, o.MemPerCPUMB*perNode)
	}
	if n := o.gpusPerNode(); n > 0 {
		r.GRES = append(r.GRES, selectnodes.GRESRequest{Name: "gpu", Type: o.GPUType, Min: int64(n), Max: int64(n)})
	}
	switch {
	case o.Exclusive:
		r.Share = selectnodes.ShareExclusiveJob
	case o.Oversubscribe:
		r.Share = selectnodes.ShareOversubscribe
	}
	if o.Constraint != "" {
		e, err := features.Parse(o.Constraint, fopts...)
		if err != nil {
			return r, err
		}
		r.Features = e
	}
	return r, nil
}

// nodeCounts are -N's minimum and maximum as sbatch submits them: with
// -n, never more nodes than tasks (sbatch -N2 -n1 warns "can't run 1
// processes on 2 nodes" and asks for one; a real Slurm 22.05.8 placed
// --hint=nomultithread -n1 -N2 on one node).
func (o *Options) nodeCounts() (int, int) {
	lo, hi := o.MinNodes, o.MaxNodes
	if o.NTasks > 0 && lo > 0 {
		lo = min(lo, o.NTasks)
		if hi > o.NTasks {
			hi = max(o.NTasks, lo)
		}
	}
	return lo, hi
}

func (o *Options) gpusPerNode() int {
	if o.GPUsPerNode > 0 {
		return o.GPUsPerNode
	}
	if o.GPUs > 0 {
		nodes := max(o.MinNodes, 1)
		return (o.GPUs + nodes - 1) / nodes
	}
	return 0
}

// Spec is the queue submission the options describe, in the first
// partition given (queue submits to one; a caller trying several uses
// Request per partition).
func (o *Options) Spec(now time.Time, fopts ...features.Option) (queue.Spec, error) {
	if o == nil {
		return queue.Spec{}, noOptions()
	}
	part := ""
	if len(o.Partitions) > 0 {
		part = o.Partitions[0]
	}
	req, err := o.Request(part, fopts...)
	if err != nil {
		return queue.Spec{}, err
	}
	begin, err := o.BeginAt(now)
	if err != nil {
		return queue.Spec{}, err
	}
	limit := o.TimeLimit
	if limit == slurmconf.Unlimited {
		limit, req.TimeLimit = queue.MaxTimeLimit, 0 // the queue's longest; one limit, in the Spec
	}
	return queue.Spec{Name: o.JobName, User: o.User, Account: o.Account, Request: req, TimeLimit: limit, TimeMin: o.TimeMin,
		Begin: begin, Dependency: o.Dependency, Requeue: o.Requeue, Nice: o.Nice, Hold: o.Hold}, nil
}
