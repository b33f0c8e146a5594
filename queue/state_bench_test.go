package queue

import (
	"bytes"
	"fmt"
	"testing"
)

// BenchmarkStateSaveRestore saves and restores a scheduler of 10,000 nodes
// with about 10,000 pending and 600 running jobs: what a controller pays
// to checkpoint, and a backup to take over (the Slurm Programmer's Guide).
func BenchmarkStateSaveRestore(b *testing.B) {
	s := benchScheduler(b, 10000)
	fill(b, s, 10620, t0)
	s.Schedule(t0)
	var buf bytes.Buffer
	if err := s.Snapshot(&buf); err != nil {
		b.Fatal(err)
	}
	state := buf.Bytes()
	name := fmt.Sprintf("jobs=%d/nodes=10000", len(s.Jobs()))
	b.Run(name+"/save", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(len(state)))
		for b.Loop() {
			var out bytes.Buffer
			if err := s.Snapshot(&out); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run(name+"/restore", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(len(state)))
		for b.Loop() {
			b.StopTimer()
			c := benchScheduler(b, 10000).Cluster()
			b.StartTimer()
			if _, err := Restore(bytes.NewReader(state), c); err != nil {
				b.Fatal(err)
			}
		}
	})
}
