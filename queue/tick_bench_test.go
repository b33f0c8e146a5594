package queue

import (
	"fmt"
	"testing"
	"time"

	"github.com/hpcsched/hpcsched/selectnodes"
)

// BenchmarkTickNoneDue is a Tick with n jobs running and none at its
// time limit, as at most of a replay's events: path=list is Tick, which
// walks the running jobs' list; path=mapscan the scan of the running
// jobs' map it replaced, its floor.
func BenchmarkTickNoneDue(b *testing.B) {
	for _, n := range []int{100, 1000, 10000} {
		c := cluster(b, fmt.Sprintf("NodeName=n[1-%d] CPUs=4\nPartitionName=batch Nodes=ALL Default=YES\n", n))
		s := New(c)
		for range n {
			if _, err := s.Submit(Spec{Request: selectnodes.Request{MinNodes: 1}, TimeLimit: time.Hour}, at(0)); err != nil {
				b.Fatal(err)
			}
		}
		if got := len(s.Schedule(at(0))); got != n {
			b.Fatalf("%d of %d jobs started", got, n)
		}
		now := at(0).Add(30 * time.Minute)
		b.Run(fmt.Sprintf("running=%d/path=list", n), func(b *testing.B) {
			for b.Loop() {
				if len(s.Tick(now)) != 0 {
					b.Fatal("a job was due")
				}
			}
		})
		b.Run(fmt.Sprintf("running=%d/path=mapscan", n), func(b *testing.B) {
			for b.Loop() {
				if len(scanTimedOut(s, now)) != 0 {
					b.Fatal("a job was due")
				}
			}
		})
	}
}
