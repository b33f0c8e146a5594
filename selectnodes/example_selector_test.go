package selectnodes_test

import (
	"fmt"
	"slices"
	"time"

	"github.com/bits-and-blooms/bitset"
	"github.com/hpcsched/hpcsched/selectnodes"
)

// MostFree is a selector written outside the package: it shares nodes by
// CPU and packs each job onto the nodes with the most free CPUs, so small
// jobs leave whole nodes for large ones least often.
type MostFree struct{}

var _ selectnodes.Selector = MostFree{}

// Filter keeps the nodes with room for the job's per-node minimum.
func (MostFree) Filter(v selectnodes.View, job *selectnodes.Job, cand, dst *bitset.BitSet) {
	cand.Copy(dst)
	for i, ok := cand.NextSet(0); ok; i, ok = cand.NextSet(i + 1) {
		n := int(i)
		if v.FreeCPUs(n) < job.CPUsPerNode() || !v.GRESFits(n, job) || (job.Exclusive && v.Jobs(n) > 0) {
			dst.Clear(i)
		}
	}
}

// JobTest takes the required nodes, then the nodes with the most free
// CPUs, until the node count and the CPU total are met.
func (MostFree) JobTest(v selectnodes.View, job *selectnodes.Job, avail *bitset.BitSet, n selectnodes.Counts) (selectnodes.Choice, bool) {
	var order []int
	for i, ok := avail.NextSet(0); ok; i, ok = avail.NextSet(i + 1) {
		if job.Required == nil || !job.Required.Test(i) {
			order = append(order, int(i))
		}
	}
	slices.SortStableFunc(order, func(a, b int) int { return v.FreeCPUs(b) - v.FreeCPUs(a) })
	var ch selectnodes.Choice
	cpus := 0
	take := func(i int) {
		share := v.FreeCPUs(i)
		if !job.Exclusive && n.CPUs > 0 {
			share = max(job.CPUsPerNode(), min(share, n.CPUs-cpus))
		}
		ch.Nodes = append(ch.Nodes, selectnodes.NodeUse{Node: i, CPUs: share})
		cpus += share
	}
	if job.Required != nil {
		for i, ok := job.Required.NextSet(0); ok; i, ok = job.Required.NextSet(i + 1) {
			take(int(i))
		}
	}
	for _, i := range order {
		if len(ch.Nodes) >= max(n.Desired, n.Min, 1) && cpus >= n.CPUs || n.Max > 0 && len(ch.Nodes) >= n.Max {
			break
		}
		take(i)
	}
	ok := len(ch.Nodes) >= max(n.Min, 1) && cpus >= n.CPUs
	return ch, ok
}

// A selector from another package plugs into the whole pipeline:
// partitions, features, counts, explanations and error classes come from
// selectnodes; the selector only chooses nodes and shares, and the
// pipeline builds the Placement. As in Slurm, the node sets (here one per
// node) are offered to the selector in weight order, growing until it
// succeeds: a1 alone cannot give 40 CPUs, a1 and a2 can.
func ExampleSelector_external() {
	nodes := []selectnodes.Node{
		{Name: "a1", CPUs: 8, Weight: 1}, {Name: "a2", CPUs: 32, Weight: 1}, {Name: "a3", CPUs: 16, Weight: 1},
	}
	c, err := selectnodes.New(nodes, []selectnodes.Partition{{Name: "p", Nodes: []string{"a1", "a2", "a3"}, Default: true}},
		selectnodes.WithSelector(MostFree{}))
	if err != nil {
		panic(err)
	}
	p, _ := c.SelectNodes(&selectnodes.Request{CPUs: 40}, selectnodes.RunNow)
	fmt.Println(p.Hostlist(), p.TotalCPUs, p.Alloc[0].CPUs, p.Alloc[1].CPUs)
	now := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	_ = c.Allocate(1, p, now, now.Add(time.Hour))

	p, _ = c.SelectNodes(&selectnodes.Request{CPUs: 10}, selectnodes.RunNow)
	fmt.Println(p.Hostlist(), p.TotalCPUs)

	_, err = c.SelectNodes(&selectnodes.Request{CPUs: 100}, selectnodes.RunNow)
	fmt.Println(selectnodes.ClassName(err))
	// Output:
	// a[1-2] 40 8 32
	// a3 10
	// node_config
}
