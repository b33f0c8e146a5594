package auction

import (
	"bytes"
	"context"
	"fmt"
	"testing"
	"time"
)

// BenchmarkSolve: one solve of a generated window under a fixed budget;
// the objective and bound are reported as metrics.
func BenchmarkSolve(b *testing.B) {
	for _, sz := range []struct{ jobs, bids int }{{50, 10}, {100, 15}, {400, 20}} {
		p, err := GenerateWindow(WindowSpec{Jobs: sz.jobs, Bids: sz.bids, Seed: 1})
		if err != nil {
			b.Fatal(err)
		}
		b.Run(fmt.Sprintf("jobs=%d/bids=%d", sz.jobs, sz.bids), func(b *testing.B) {
			var sol *Solution
			for b.Loop() {
				sol, err = Solve(context.Background(), p, Options{TimeLimit: time.Second})
				if err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(sol.Objective, "objective")
			b.ReportMetric(sol.Bound, "bound")
		})
	}
}

// BenchmarkSolveReplayPass: one solve under ReplayOptions, the work
// budget of a simulated scheduler pass (what `simulate --policy auction`
// spends on each window).
func BenchmarkSolveReplayPass(b *testing.B) {
	for _, sz := range []struct{ jobs, bids int }{{50, 10}, {100, 10}} {
		p, err := GenerateWindow(WindowSpec{Jobs: sz.jobs, Bids: sz.bids, Seed: 1})
		if err != nil {
			b.Fatal(err)
		}
		b.Run(fmt.Sprintf("nodes=1024/jobs=%d/bids=%d", sz.jobs, sz.bids), func(b *testing.B) {
			var sol *Solution
			for b.Loop() {
				if sol, err = Solve(context.Background(), p, ReplayOptions()); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(sol.Objective, "objective")
			b.ReportMetric(sol.Bound, "bound")
		})
	}
}

// BenchmarkGenerateBids: bids for a window on the 1,024-node system.
func BenchmarkGenerateBids(b *testing.B) {
	for _, jobs := range []int{100, 400} {
		b.Run(fmt.Sprintf("nodes=1024/jobs=%d/bids=20", jobs), func(b *testing.B) {
			for b.Loop() {
				if _, err := GenerateWindow(WindowSpec{Jobs: jobs, Bids: 20, Seed: 1}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkReadJSON: reading a 400 x 20 window.
func BenchmarkReadJSON(b *testing.B) {
	p, err := GenerateWindow(WindowSpec{Jobs: 400, Bids: 20, Seed: 1})
	if err != nil {
		b.Fatal(err)
	}
	var buf []byte
	{
		var w bytesWriter
		if err := WriteJSON(&w, p); err != nil {
			b.Fatal(err)
		}
		buf = w
	}
	b.Run(fmt.Sprintf("jobs=400/bytes=%d", len(buf)), func(b *testing.B) {
		b.SetBytes(int64(len(buf)))
		for b.Loop() {
			if _, err := ReadJSON(bytesReader(buf)); err != nil {
				b.Fatal(err)
			}
		}
	})
}

type bytesWriter []byte

func (w *bytesWriter) Write(p []byte) (int, error) { *w = append(*w, p...); return len(p), nil }

func bytesReader(b []byte) *bytes.Reader { return bytes.NewReader(b) }
