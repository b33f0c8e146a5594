package federation

import (
	"fmt"
	"testing"
	"time"

	"github.com/hpcsched/hpcsched/queue"
	"github.com/hpcsched/hpcsched/selectnodes"
)

// benchMember is a member of n nodes of 32 CPUs, full with 20 running jobs
// that end over the next (k+1)*hours (so members free up at different
// times).
func benchMember(b *testing.B, k, n int) *queue.Scheduler {
	nodes := make([]selectnodes.Node, n)
	all := make([]string, n)
	for i := range nodes {
		nodes[i] = selectnodes.Node{Name: fmt.Sprintf("m%dn%05d", k, i), CPUs: 32, Weight: 1}
		all[i] = nodes[i].Name
	}
	c, err := selectnodes.New(nodes, []selectnodes.Partition{{Name: "batch", Nodes: all, Default: true}})
	if err != nil {
		b.Fatal(err)
	}
	s := queue.New(c, queue.WithFirstJobID(1<<40))
	for j := 0; j < 20; j++ {
		limit := time.Duration(k+1) * time.Hour * time.Duration(j+1) / 20
		if _, err := s.Submit(queue.Spec{Name: "fill", Request: selectnodes.Request{MinNodes: n / 20}, TimeLimit: limit}, t0); err != nil {
			b.Fatal(err)
		}
	}
	s.Schedule(t0)
	return s
}

// benchGrid is members clusters of n nodes with pending jobs spread over
// them, every member a candidate of every job. Requests come from 8 sizes,
// 6 time limits and 10 users (480 shapes).
func benchGrid(b *testing.B, members, n, pending int) *Grid {
	g := New(NewMemoryIDs(1), WithCallTimeout(0))
	for k := 0; k < members; k++ {
		if err := g.Add(bg, NewLocal(fmt.Sprintf("m%d", k), benchMember(b, k, n))); err != nil {
			b.Fatal(err)
		}
	}
	limits := []time.Duration{time.Hour, 2 * time.Hour, 4 * time.Hour, 8 * time.Hour, 12 * time.Hour, 24 * time.Hour}
	for i := 0; i < pending; i++ {
		spec := queue.Spec{Name: "p", User: fmt.Sprintf("u%d", i%10),
			Request: selectnodes.Request{MinNodes: 1 << (i % 8)}, TimeLimit: limits[(i/8)%len(limits)]}
		home := fmt.Sprintf("m%d", i%members)
		id, err := g.Submit(bg, spec, []string{home}, t0) // one candidate: no forecast at submit
		if err != nil {
			b.Fatal(err)
		}
		r := g.jobs[id]
		r.candidates = nil // then every member is one
		r.group = g.groupID(r)
	}
	return g
}

// BenchmarkReevaluate is one re-evaluation pass over every pending job of
// the grid: ask each member about its jobs, forecast every shape on every
// member, decide and make the moves (at most 1000 a pass).
func BenchmarkReevaluate(b *testing.B) {
	for _, sc := range []struct{ members, nodes, pending int }{
		{4, 1000, 10000},
		{16, 10000, 100000},
	} {
		b.Run(fmt.Sprintf("members=%d/nodes=%d/pending=%d", sc.members, sc.nodes, sc.pending), func(b *testing.B) {
			g := benchGrid(b, sc.members, sc.nodes, sc.pending)
			now := t0.Add(time.Minute)
			moved := 0
			b.ReportAllocs()
			b.ResetTimer()
			cpu := cpuTime()
			for b.Loop() {
				now = now.Add(time.Minute)
				moved += g.Reevaluate(bg, now).Moved
			}
			b.ReportMetric(float64(moved)/float64(b.N), "moves/op")
			// CPU time (all threads, GC included) per pass: on a machine
			// shared with other work, wall time overstates the cost
			b.ReportMetric((cpuTime()-cpu).Seconds()/float64(b.N), "cpu-s/op")
		})
	}
}
