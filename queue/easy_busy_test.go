package queue

import (
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/hpcsched/hpcsched/selectnodes"
	"github.com/stretchr/testify/require"
)

// busyByNodes is EASY.busy by its definition: each busy node's last end
// (from now), sorted, then the distinct ends and how many nodes are free
// after each.
func busyByNodes(c *selectnodes.Cluster, now time.Time) ([]time.Duration, []int) {
	ends, freedBy, _ := busyByNodesWithLast(c, now)
	return ends, freedBy
}

// busyByNodesWithLast is busyByNodes with each busy node's last end.
func busyByNodesWithLast(c *selectnodes.Cluster, now time.Time) ([]time.Duration, []int, map[int]time.Duration) {
	last := map[int]time.Duration{}
	for _, id := range c.Running() {
		p, _, end, _ := c.Allocation(id)
		at := max(end.Sub(now), idleNode+1)
		for _, a := range p.Alloc {
			if t, ok := last[a.Node]; !ok || at > t {
				last[a.Node] = at
			}
		}
	}
	var all []time.Duration
	for _, t := range last {
		all = append(all, t)
	}
	slices.Sort(all)
	ends, freedBy := []time.Duration{}, []int{0}
	for i, t := range all {
		if i+1 == len(all) || all[i+1] != t {
			ends = append(ends, t)
			freedBy = append(freedBy, i+1)
		}
	}
	return ends, freedBy, last
}

// TestEASYBusyCountsEachNodesLastEnd compares the shadow's end list, its
// idle nodes and, once marked, each node's last end with their definition
// on random loads of shared nodes (a node's jobs end at different times,
// several nodes at the same time, limits past now) and of unshared ones
// (where the nodes are marked only when asked).
func TestEASYBusyCountsEachNodesLastEnd(t *testing.T) {
	branches := map[bool]int{}
	for seed := uint64(1); seed <= 8; seed++ {
		t.Logf("seed %d", seed)
		r := rand.New(rand.NewPCG(seed, 5))
		s := simple(t) // Linear: whole nodes
		if seed%2 == 0 {
			s = New(cluster(t, "SelectType=select/cons_tres\nNodeName=n[0-7] CPUs=4\nPartitionName=batch Nodes=ALL Default=YES\n"))
		}
		e := NewEASY(s)
		now := at(0)
		for step := 0; step < 40; step++ {
			for k := r.IntN(5); k > 0; k-- {
				spec := Spec{Name: "j", User: "u", TimeLimit: time.Duration(1+r.IntN(6)) * 15 * time.Minute}
				if r.IntN(2) == 0 {
					spec.Request.CPUs = 1 + r.IntN(6)
				} else {
					spec.Request.MinNodes = 1 + r.IntN(3)
				}
				submit(t, s, spec, now)
			}
			s.Schedule(now)
			now = now.Add(time.Duration(r.IntN(40)) * time.Minute)
			wantEnds, wantFreed, last := busyByNodesWithLast(s.c, now)
			ends, freedBy := e.busy(now)
			require.Equal(t, wantEnds, append([]time.Duration{}, ends...), "step %d", step)
			require.Equal(t, wantFreed, append([]int{}, freedBy...), "step %d", step)
			branches[e.marked]++
			e.markNodes()
			for i := range s.c.NodeCount() {
				want, busy := last[i]
				if !busy {
					want = idleNode
				}
				require.Equal(t, want, e.until[i], "step %d node %d", step, i)
				require.Equal(t, !busy, e.idle.Test(uint(i)), "step %d node %d", step, i)
			}
			for _, id := range s.Jobs() {
				if id.State == Running && r.IntN(4) == 0 {
					require.NoError(t, s.Finish(id.ID, Outcome{Kind: Completed}, now))
				}
			}
		}
	}
	require.Positive(t, branches[true], "no load with a shared node")
	require.Positive(t, branches[false], "no load without one")
}
