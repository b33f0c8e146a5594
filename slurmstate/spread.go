package slurmstate

import (
	"math/bits"

	"github.com/hpcsched/hpcsched/position"
	"github.com/hpcsched/hpcsched/selectnodes"
)

// spreadJob is a running job with its CPUs and memory per node.
type spreadJob struct {
	job   *Job
	part  string
	alloc []selectnodes.NodeAlloc
}

type unlistedLoad struct {
	part  string
	alloc selectnodes.NodeAlloc
}

type spreadOut struct {
	jobs     []spreadJob
	unlisted []unlistedLoad
}

// spread gives every running job its CPUs per node: exclusive jobs the
// whole node, the others an even split of their CPUs (the remainder on
// their first nodes) within what each node reported allocated, the
// shortfall then taken where some is left; memory is each node's AllocMem
// shared by CPUs. What no job accounts for on a node is unlisted load.
func (st *State) spread(c *selectnodes.Cluster, idx map[string]int) (spreadOut, error) {
	var out spreadOut
	leftCPU := map[int]int{}
	report := map[int]*Node{}
	for k := range st.Nodes {
		n := &st.Nodes[k]
		leftCPU[idx[n.Name]] = n.CPUAlloc
		report[idx[n.Name]] = n
	}
	for k := range st.Jobs {
		j := &st.Jobs[k]
		if j.State != "RUNNING" {
			continue
		}
		sj, err := st.spreadOne(c, j, idx, leftCPU)
		if err != nil {
			return out, err
		}
		out.jobs = append(out.jobs, sj)
	}
	st.shareMemory(out.jobs, report)
	for i, left := range leftCPU {
		n := report[i]
		used := usedMemory(out.jobs, i)
		if left > 0 || n.AllocMem > used {
			part := c.DefaultPartition()
			if len(n.Partitions) > 0 && c.HasPartition(n.Partitions[0]) {
				part = n.Partitions[0] // a partition the conf lacks counts as the default
			}
			out.unlisted = append(out.unlisted, unlistedLoad{part: part,
				alloc: selectnodes.NodeAlloc{Node: i, CPUs: left, Memory: max(n.AllocMem-used, 0)}})
		}
	}
	sortUnlisted(out.unlisted)
	return out, nil
}

func (st *State) spreadOne(c *selectnodes.Cluster, j *Job, idx map[string]int, leftCPU map[int]int) (spreadJob, error) {
	sj := spreadJob{job: j, part: j.Partition}
	if !c.HasPartition(j.Partition) {
		return sj, position.Errorf(j.Pos, "job %s: partition %s is not in the configuration", j.ID, j.Partition)
	}
	if len(j.Nodes) == 0 {
		return sj, position.Errorf(j.Pos, "job %s runs on no node", j.ID)
	}
	k := len(j.Nodes)
	for x, name := range j.Nodes {
		i, ok := idx[name]
		if !ok {
			return sj, position.Errorf(j.Pos, "job %s: node %s is not in nodes.txt", j.ID, name)
		}
		want := j.CPUs / k
		if x < j.CPUs%k {
			want++
		}
		if j.Exclusive {
			want = c.Node(i).CPUs
		}
		sj.alloc = append(sj.alloc, selectnodes.NodeAlloc{Node: i, CPUs: min(want, leftCPU[i])})
	}
	short := j.CPUs
	for _, a := range sj.alloc {
		short -= a.CPUs
	}
	for x := range sj.alloc { // the even split's shortfall, where some is left
		if short <= 0 || j.Exclusive {
			break
		}
		a := &sj.alloc[x]
		more := min(short, leftCPU[a.Node]-a.CPUs)
		a.CPUs += more
		short -= more
	}
	for _, a := range sj.alloc {
		if a.CPUs <= 0 && !j.Exclusive {
			return sj, position.Errorf(j.Pos, "job %s: node %s has no allocated CPU left for it (CPUAlloc)", j.ID, c.Node(a.Node).Name)
		}
		leftCPU[a.Node] -= a.CPUs
	}
	if short > 0 && !j.Exclusive {
		return sj, position.Errorf(j.Pos, "job %s: its nodes report %d CPUs fewer allocated than it holds", j.ID, short)
	}
	sortAlloc(sj.alloc)
	return sj, nil
}

// shareMemory gives each job on a node its part of the node's AllocMem, by
// CPUs (the last job on the node the rest).
func (st *State) shareMemory(jobs []spreadJob, report map[int]*Node) {
	cpus := map[int]int{}
	for _, j := range jobs {
		for _, a := range j.alloc {
			cpus[a.Node] += a.CPUs
		}
	}
	given := map[int]int64{}
	seen := map[int]int{}
	for k := range jobs {
		for x := range jobs[k].alloc {
			a := &jobs[k].alloc[x]
			n := report[a.Node]
			seen[a.Node] += a.CPUs
			if cpus[a.Node] == 0 {
				continue
			}
			share := mulDiv(n.AllocMem, int64(seen[a.Node]), int64(cpus[a.Node]))
			a.Memory = share - given[a.Node]
			given[a.Node] = share
		}
	}
}

func usedMemory(jobs []spreadJob, i int) int64 {
	var m int64
	for _, j := range jobs {
		for _, a := range j.alloc {
			if a.Node == i {
				m += a.Memory
			}
		}
	}
	return m
}

// mulDiv is a*b/c for 0 <= a, 0 <= b <= c, 0 < c, without overflow.
func mulDiv(a, b, c int64) int64 {
	hi, lo := bits.Mul64(uint64(a), uint64(b))
	q, _ := bits.Div64(hi, lo, uint64(c)) // hi < c as b <= c
	return int64(q)
}
