package queue

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/hpcsched/hpcsched/selectnodes"
)

func benchScheduler(b *testing.B, n int, opts ...Option) *Scheduler {
	nodes := make([]selectnodes.Node, n)
	names := make([]string, n)
	for i := range nodes {
		nodes[i] = selectnodes.Node{Name: fmt.Sprintf("n%05d", i), CPUs: 16, Weight: 1}
		names[i] = nodes[i].Name
	}
	c, err := selectnodes.New(nodes, []selectnodes.Partition{{Name: "batch", Nodes: names, Default: true}})
	if err != nil {
		b.Fatal(err)
	}
	return New(c, opts...)
}

// fill submits jobs of 1-32 nodes and 10-240 minutes (seeded).
func fill(b *testing.B, s *Scheduler, jobs int, now time.Time) {
	r := rand.New(rand.NewPCG(7, 7))
	for i := 0; i < jobs; i++ {
		spec := Spec{Name: "j", User: fmt.Sprintf("u%d", i%50), Request: selectnodes.Request{MinNodes: 1 + r.IntN(32)},
			TimeLimit: time.Duration(10+r.IntN(230)) * time.Minute}
		if _, err := s.Submit(spec, now); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSchedule is one pass over 10,000 pending jobs on a full
// cluster: the first busy job locks the partition, so the pass is the
// walk over the queue.
func BenchmarkSchedule(b *testing.B) {
	s := benchScheduler(b, 10000)
	fill(b, s, 10620, t0)
	s.Schedule(t0) // fills the cluster; about 10,000 jobs stay pending
	b.Run(fmt.Sprintf("jobs=%d/nodes=10000", len(s.Pending())), func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			s.Schedule(t0.Add(time.Second))
		}
	})
}

// BenchmarkBackfill plans the whole queue: 10,000 pending jobs of 1-32
// nodes behind 5,000 running ones filling 10,000 nodes, from scratch; and
// the same pass bounded by WithBackfillSelections. With HPCSCHED_LONG set,
// also 100,000 pending jobs behind 50,000 running ones on 100,000 nodes
// (under 10 s), whose setup alone takes a while.
func BenchmarkBackfill(b *testing.B) {
	type scale struct{ nodes, budget int }
	scales := []scale{{10000, 0}, {10000, 1000}}
	if os.Getenv("HPCSCHED_LONG") != "" {
		scales = append(scales, scale{100000, 0})
	}
	for _, sc := range scales {
		s := backfillBench(b, sc.nodes, sc.nodes, sc.budget)
		running := 0
		for _, j := range s.Jobs() {
			if j.State == Running {
				running++
			}
		}
		name := fmt.Sprintf("pending=%d/running=%d", len(s.Pending()), running)
		if sc.nodes != 10000 {
			name += fmt.Sprintf("/nodes=%d", sc.nodes)
		}
		if sc.budget > 0 {
			name += fmt.Sprintf("/selections=%d", sc.budget)
		}
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				s.mu.Lock()
				s.resv = map[JobID]reservation{} // plan from scratch every time
				s.kept = nil
				s.mu.Unlock()
				s.Backfill(t0.Add(time.Second))
			}
		})
	}
}

// backfillBench fills n nodes with n/2 running jobs of 2 nodes and queues
// pending jobs of 1-32 nodes behind them.
func backfillBench(b *testing.B, n, pending, budget int) *Scheduler {
	s := benchScheduler(b, n, WithBackfillSelections(budget))
	r := rand.New(rand.NewPCG(3, 3))
	for i := 0; i < n/2; i++ {
		spec := Spec{Name: "r", Request: selectnodes.Request{MinNodes: 2}, TimeLimit: time.Duration(10+r.IntN(600)) * time.Minute}
		if _, err := s.Submit(spec, t0); err != nil {
			b.Fatal(err)
		}
	}
	s.Schedule(t0)
	fill(b, s, pending, t0)
	return s
}

func BenchmarkSubmitFinish(b *testing.B) {
	s := benchScheduler(b, 10000)
	now := t0
	b.ReportAllocs()
	for b.Loop() {
		id, err := s.Submit(Spec{Request: selectnodes.Request{MinNodes: 4}, TimeLimit: time.Hour}, now)
		if err != nil {
			b.Fatal(err)
		}
		s.Schedule(now)
		if err := s.Finish(id, Outcome{}, now); err != nil {
			b.Fatal(err)
		}
		now = now.Add(time.Second)
	}
}

// BenchmarkReplanAfterEnd is the event loop: 2,000 exclusive
// one-node jobs on 1,024 nodes, a schedule pass and whole-queue
// conservative backfill after every job end (jobs end by seeded run
// times shorter than their limits, so reservations move).
func BenchmarkReplanAfterEnd(b *testing.B) {
	b.Run("jobs=2000/nodes=1024", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			replanAfterEnd(b, 2000, 1024)
		}
	})
}

func replanAfterEnd(b *testing.B, jobs, n int) {
	s := benchScheduler(b, n)
	r := rand.New(rand.NewPCG(5, 5))
	run := map[JobID]time.Duration{}
	for i := 0; i < jobs; i++ {
		limit := time.Duration(5+r.IntN(55)) * time.Minute
		spec := Spec{Name: "x", Request: selectnodes.Request{MinNodes: 1, Share: selectnodes.ShareExclusiveJob}, TimeLimit: limit}
		id, err := s.Submit(spec, t0)
		if err != nil {
			b.Fatal(err)
		}
		run[id] = limit / time.Duration(1+r.IntN(4))
	}
	type end struct {
		at time.Time
		id JobID
	}
	var ends []end
	pass := func(now time.Time) {
		started := s.Schedule(now)
		more, _ := s.Backfill(now)
		for _, st := range append(started, more...) {
			ends = append(ends, end{now.Add(run[st.Job]), st.Job})
		}
		slices.SortFunc(ends, func(a, b end) int {
			if c := a.at.Compare(b.at); c != 0 {
				return c
			}
			return cmp.Compare(a.id, b.id)
		})
	}
	pass(t0)
	for len(ends) > 0 {
		e := ends[0]
		ends = ends[1:]
		if err := s.Finish(e.id, Outcome{Kind: Completed}, e.at); err != nil {
			b.Fatal(err)
		}
		pass(e.at)
	}
	if p := len(s.Pending()); p != 0 {
		b.Fatalf("%d jobs never started", p)
	}
}
