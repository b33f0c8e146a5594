package auction

import (
	"bytes"
	"context"
	"fmt"
	"testing"
	"time"
)

// BenchmarkSolve: one solve of a generated window under a fixed budget —
// a 1-s time limit, or ReplayOptions (the work budget of a simulated
// scheduler pass: what `simulate --policy auction` spends on each window);
// the objective and bound are reported as metrics.
func BenchmarkSolve(b *testing.B) {
	for _, c := range []struct {
		jobs, bids int
		budget     string
		opts       Options
	}{
		{50, 10, "limit=1s", Options{TimeLimit: time.Second}},
		{100, 15, "limit=1s", Options{TimeLimit: time.Second}},
		{400, 20, "limit=1s", Options{TimeLimit: time.Second}},
		{50, 10, "budget=replay", ReplayOptions()},
		{100, 10, "budget=replay", ReplayOptions()},
	} {
		p, err := GenerateWindow(WindowSpec{Jobs: c.jobs, Bids: c.bids, Seed: 1})
		if err != nil {
			b.Fatal(err)
		}
		b.Run(fmt.Sprintf("nodes=1024/jobs=%d/bids=%d/%s", c.jobs, c.bids, c.budget), func(b *testing.B) {
			var sol *Solution
			for b.Loop() {
				if sol, err = Solve(context.Background(), p, c.opts); err != nil {
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
