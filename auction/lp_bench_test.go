package auction

import (
	"context"
	"fmt"
	"math"
	"testing"
)

// BenchmarkLPRoot: the LP relaxation of a generated 50 x 10 window (one
// group) solved from scratch by the dual simplex, rows added as needed;
// rows and pivots are reported.
func BenchmarkLPRoot(b *testing.B) {
	for _, seed := range []uint64{1, 3} {
		p, err := GenerateWindow(WindowSpec{Jobs: 50, Bids: 10, Seed: seed})
		if err != nil {
			b.Fatal(err)
		}
		m := buildModel(p)
		jobs := m.components()[0]
		b.Run(fmt.Sprintf("nodes=1024/jobs=50/bids=10/seed=%d", seed), func(b *testing.B) {
			var lp *lpRelax
			for b.Loop() {
				lp = newLP(m, jobs, nil)
				if st := lp.solve(math.MaxInt64); st != lpOptimal {
					b.Fatal("not solved", st)
				}
			}
			b.ReportMetric(float64(len(lp.rhs)), "rows")
			b.ReportMetric(float64(lp.pivots), "pivots")
		})
	}
}

// BenchmarkSolveProof: Solve with default options (no time limit: work
// budgets only, deterministic) on generated 50 x 10 seed 3, proven by the
// LP search in its quick attempt.
func BenchmarkSolveProof(b *testing.B) {
	p, err := GenerateWindow(WindowSpec{Jobs: 50, Bids: 10, Seed: 3})
	if err != nil {
		b.Fatal(err)
	}
	b.Run("nodes=1024/jobs=50/bids=10/seed=3", func(b *testing.B) {
		var sol *Solution
		for b.Loop() {
			if sol, err = Solve(context.Background(), p, Options{}); err != nil {
				b.Fatal(err)
			}
		}
		if !sol.Optimal {
			b.Fatal("not proven")
		}
		b.ReportMetric(float64(sol.Nodes), "nodes")
	})
}
