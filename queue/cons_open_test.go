package queue

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/bits-and-blooms/bitset"
)

// A pass's open set (the nodes with a free CPU, counted at its start and
// kept through its starts) is the cluster's at the pass's end, and
// freedRunIn given it measures a freed run as freedRun does asking every
// node, under random events on shared nodes and whole ones (sets of
// nodes running jobs, some with CPUs to spare).
func TestOpenSetsMeasureFreedRunsAsEveryNode(t *testing.T) {
	checked, shared := 0, 0
	for seed := uint64(1); seed <= 6; seed++ {
		t.Logf("seed %d", seed)
		r := rand.New(rand.NewPCG(seed, 23))
		n := []int{8, 40}[seed%2]
		conf := fmt.Sprintf("NodeName=n[0-%d] CPUs=%d\nPartitionName=batch Nodes=ALL Default=YES\n", n-1, []int{4, 1, 2}[seed%3])
		if seed%3 != 1 { // CPU-count jobs share nodes
			conf = "SelectType=select/cons_res\nSelectTypeParameters=CR_CPU\n" + conf
		}
		s := New(cluster(t, conf))
		now := t0
		for step := range 120 {
			now = now.Add(time.Duration(r.IntN(400)) * time.Second)
			keptEvent(t, s, r, n, now)
			planned := s.queue.Len() > 0 // else the pass returns before counting
			s.BackfillStarts(now)
			if !planned || s.kept == nil || s.kept.pass.open == nil {
				continue
			}
			open := s.kept.pass.open
			for i := range n {
				if open.Test(uint(i)) != (s.c.FreeCPUs(i) > 0) {
					t.Fatalf("seed %d step %d: node %d open %v with %d free CPUs", seed, step, i, open.Test(uint(i)), s.c.FreeCPUs(i))
				}
			}
			pr := s.kept.pr
			for range 4 {
				nodes := bitset.New(uint(n))
				for range 1 + r.IntN(n) {
					if i := r.IntN(n); s.c.JobsOn(i) > 0 { // (a node running jobs: its run is bounded)
						nodes.Set(uint(i))
					}
				}
				if s.anyShared(nodes, open) != s.anyShared(nodes, nil) {
					t.Fatalf("seed %d step %d: shared nodes in %v told apart by the open set", seed, step, nodes)
				}
				if s.anyShared(nodes, nil) {
					shared++
				}
				from := pr.at[r.IntN(len(pr.at))]
				a, b := newSkipLog(), newSkipLog()
				s.freedRunIn(a, pr, nodes, open, from, from+int64(time.Hour))
				s.freedRun(b, pr, nodes, from, from+int64(time.Hour))
				if a.entries[0].run != b.entries[0].run {
					t.Fatalf("seed %d step %d: run %v given the open set, %v asking every node", seed, step, a.entries[0].run, b.entries[0].run)
				}
				checked++
			}
		}
	}
	if checked == 0 || shared == 0 {
		t.Fatalf("%d sets checked, %d of them with a shared node", checked, shared)
	}
}
