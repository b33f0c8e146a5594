package queue

import (
	"fmt"
	"runtime"
	"testing"
	"time"

	"github.com/hpcsched/hpcsched/selectnodes"
)

// heapAfterFinishing runs n one-node jobs to completion on s, one after
// another, and returns the live heap after a collection.
func heapAfterFinishing(tb testing.TB, s *Scheduler, n int) uint64 {
	tb.Helper()
	for i := range n {
		now := t0.Add(time.Duration(i) * time.Minute)
		id, err := s.Submit(Spec{Name: fmt.Sprintf("job-%d", i), User: "alice", Account: "physics",
			Request: selectnodes.Request{MinNodes: 1, CPUs: 2}, TimeLimit: time.Hour}, now)
		if err != nil {
			tb.Fatal(err)
		}
		s.Schedule(now)
		if err := s.Finish(id, Outcome{}, now.Add(30*time.Second)); err != nil {
			tb.Fatal(err)
		}
	}
	return liveHeap()
}

func liveHeap() uint64 {
	var m runtime.MemStats
	runtime.GC()
	runtime.GC()
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// BenchmarkJobMemory measures the heap a finished job costs: kept (the
// default), forgotten (WithForgetFinished: a tombstone), and forgotten
// without a tombstone (WithoutTombstones: a run of IDs). It reports
// bytes per finished job; the time per op is not the point.
func BenchmarkJobMemory(b *testing.B) {
	const n = 100000
	for _, mode := range []struct {
		name string
		opts []Option
	}{{"retained", nil}, {"forgotten", []Option{WithForgetFinished()}},
		{"forgotten-without-tombstones", []Option{WithForgetFinished(), WithoutTombstones()}}} {
		b.Run(fmt.Sprintf("jobs=%d/%s", n, mode.name), func(b *testing.B) {
			var perJob float64
			for b.Loop() {
				s := simple(b, mode.opts...)
				before := liveHeap()
				after := heapAfterFinishing(b, s, n)
				perJob = (float64(after) - float64(before)) / n
				runtime.KeepAlive(s)
			}
			b.ReportMetric(perJob, "B/finished-job")
		})
	}
}

// The forgotten jobs' memory is a small fraction of the retained jobs'.
// It is not a timed assertion: it compares heap sizes, which do not
// depend on the machine's speed.
func TestForgottenJobsCostLittleMemory(t *testing.T) {
	n := 5000 // the figure for BENCHMARKS.md is BenchmarkJobMemory's
	if testing.Short() {
		n = 2000
	}
	kept := simple(t)
	base := liveHeap()
	keptHeap := heapAfterFinishing(t, kept, n)
	forgot := simple(t, WithForgetFinished())
	mid := liveHeap()
	forgotHeap := heapAfterFinishing(t, forgot, n)
	perKept := (float64(keptHeap) - float64(base)) / float64(n)
	perForgot := (float64(forgotHeap) - float64(mid)) / float64(n)
	t.Logf("bytes per finished job: retained %.0f, forgotten %.0f", perKept, perForgot)
	if perForgot*4 > perKept {
		t.Fatalf("a forgotten job costs %.0f B, more than a quarter of a retained one's %.0f B", perForgot, perKept)
	}
	runtime.KeepAlive(kept)
	runtime.KeepAlive(forgot)
}
