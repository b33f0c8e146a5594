package sbatch

import (
	"fmt"
	"time"

	"github.com/bits-and-blooms/bitset"
	"github.com/hpcsched/hpcsched/selectnodes"
)

// Place puts the running job r on cluster c as job id, started at now and
// ending at now + r.End (never, when r.End is 0). A spec without cpus
// takes its nodes whole and exclusively; one with cpus takes exactly those
// CPUs, that memory (the partition's default memory for the CPUs when
// none is given) and those GRES on each node. The job runs in the first
// partition that holds all its nodes.
func (r Running) Place(c *selectnodes.Cluster, id selectnodes.JobID, now time.Time) error {
	set, err := c.NodeSet(r.Nodes)
	if err != nil {
		return err
	}
	part := PartitionHolding(c, set)
	if part == "" {
		return fmt.Errorf("no partition holds all of %v", r.Nodes)
	}
	end := now.Add(100 * 365 * 24 * time.Hour)
	if r.End > 0 {
		end = now.Add(r.End)
	}
	p := &selectnodes.Placement{Partition: part, Exclusive: r.CPUs == 0}
	mem := r.MemoryMB
	if mem == 0 && r.CPUs > 0 {
		mem = defaultMemory(c, part, r.CPUs)
	}
	for i, ok := set.NextSet(0); ok; i, ok = set.NextSet(i + 1) {
		n := c.Node(int(i))
		a := selectnodes.NodeAlloc{Node: int(i), CPUs: r.CPUs, Memory: mem}
		if r.CPUs == 0 {
			a.CPUs, a.Memory = n.CPUs, n.RealMemory // New fills CPUs from the layout
		}
		for _, g := range r.GRES {
			a.GRES = append(a.GRES, selectnodes.GRESAlloc{Name: g.Name, Type: gresType(n, g), Count: g.Count})
		}
		p.Alloc = append(p.Alloc, a)
		p.Names = append(p.Names, n.Name)
		p.TotalCPUs += a.CPUs
		p.Weight += n.Weight
	}
	return c.Allocate(id, p, now, end)
}

// defaultMemory is the memory a job of cpus CPUs per node asking for none
// holds on each node in partition part: its DefMemPerNode, else
// DefMemPerCPU per CPU (both 0 unless memory is consumable), as a real
// Slurm job would (recorded loads of check/testdata hold it).
func defaultMemory(c *selectnodes.Cluster, part string, cpus int) int64 {
	p, ok := c.PartitionLimits(part)
	switch {
	case !ok:
		return 0
	case p.DefMemPerNode > 0:
		return p.DefMemPerNode
	case p.DefMemPerCPU > 0 && p.DefMemPerCPU <= MaxMemoryMB/int64(cpus):
		return p.DefMemPerCPU * int64(cpus)
	}
	return 0
}

// gresType fills in the type of an untyped GRES from the node's own,
// when the node has exactly one type of that name.
func gresType(n *selectnodes.Node, g selectnodes.GRES) string {
	if g.Type != "" {
		return g.Type
	}
	typ, seen := "", 0
	for _, have := range n.GRES {
		if have.Name == g.Name {
			typ, seen = have.Type, seen+1
		}
	}
	if seen == 1 {
		return typ
	}
	return ""
}

// PartitionHolding is the first partition (in definition order) whose
// nodes include every node of set, or "". A nil set is the empty set,
// which every partition holds.
func PartitionHolding(c *selectnodes.Cluster, set *bitset.BitSet) string {
	if set == nil {
		set = new(bitset.BitSet)
	}
	for _, name := range c.PartitionNames() {
		if nodes, ok := c.PartitionNodes(name); ok && nodes.IsSuperSet(set) {
			return name
		}
	}
	return ""
}
