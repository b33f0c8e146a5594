package queue

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/hpcsched/hpcsched/selectnodes"
)

// BenchmarkEASYPartitions is one whole EASY pass over 10,000 pending jobs
// behind a full cluster of 10,000 nodes, the jobs spread over P
// partitions that split the nodes: with a depth, the pass locks each
// partition as Schedule's does and walks on past the depth for the
// partitions not locked yet. partitions=1 is the floor: the same queue on
// one partition, where the head locks everything. empty=1 leaves the last
// partition without jobs: it never locks, and the walk past the depth
// ends when the others are.
func BenchmarkEASYPartitions(b *testing.B) {
	for _, c := range []struct{ parts, empty int }{{1, 0}, {4, 0}, {16, 0}, {4, 1}, {16, 1}} {
		for _, depth := range []int{1, 100, 0} {
			name := fmt.Sprintf("nodes=10000/jobs=10000/partitions=%d/depth=%d", c.parts, depth)
			if c.empty > 0 {
				name = fmt.Sprintf("nodes=10000/jobs=10000/partitions=%d/empty=%d/depth=%d", c.parts, c.empty, depth)
			}
			b.Run(name, func(b *testing.B) {
				s := partsScheduler(b, 10000, c.parts, WithBackfillDepth(depth))
				fillParts(b, s, c.parts-c.empty, 15000, t0)
				e := NewEASY(s)
				ids := e.BackfillIDs(t0, nil) // fills the cluster
				b.ReportMetric(float64(len(s.Pending())), "pending")
				b.ReportAllocs()
				for b.Loop() {
					ids = e.BackfillIDs(t0.Add(time.Second), ids[:0])
				}
			})
		}
	}
}

// partsScheduler is a scheduler on n nodes of 16 CPUs split evenly into
// parts partitions p0, p1, ...
func partsScheduler(b *testing.B, n, parts int, opts ...Option) *Scheduler {
	nodes := make([]selectnodes.Node, n)
	ps := make([]selectnodes.Partition, parts)
	for i := range nodes {
		nodes[i] = selectnodes.Node{Name: fmt.Sprintf("n%05d", i), CPUs: 16, Weight: 1}
		p := &ps[i*parts/n]
		p.Nodes = append(p.Nodes, nodes[i].Name)
	}
	for k := range ps {
		ps[k].Name, ps[k].Default = fmt.Sprintf("p%d", k), k == 0
	}
	c, err := selectnodes.New(nodes, ps)
	if err != nil {
		b.Fatal(err)
	}
	return New(c, opts...)
}

// fillParts submits jobs of 1-32 nodes and 10-240 minutes to random
// partitions among the first parts (seeded).
func fillParts(b *testing.B, s *Scheduler, parts, jobs int, now time.Time) {
	r := rand.New(rand.NewPCG(7, 7))
	for range jobs {
		spec := Spec{Name: "j", Request: selectnodes.Request{MinNodes: 1 + r.IntN(32), Partition: fmt.Sprintf("p%d", r.IntN(parts))},
			TimeLimit: time.Duration(10+r.IntN(230)) * time.Minute}
		if _, err := s.Submit(spec, now); err != nil {
			b.Fatal(err)
		}
	}
}
