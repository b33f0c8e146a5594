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

// lpTreeFromOptimum is the LP search over p's one group with the
// optimum (from a budgeted Solve) as the incumbent: the pure proof.
func lpTreeFromOptimum(b *testing.B, p *Problem) func() *lpTree {
	sol, err := Solve(context.Background(), p, Options{Rounds: 1000, MaxNodes: 30_000})
	if err != nil {
		b.Fatal(err)
	}
	return func() *lpTree {
		m := buildModel(p)
		s := newSolver(context.Background(), m, Options{}.withDefaults(len(p.Jobs), false))
		for j, mj := range m.jobs {
			for bid := mj.first; bid < mj.end; bid++ {
				if int(m.origBid[bid]) == sol.Selection[mj.orig] {
					s.sel[j] = bid
					m.take(bid, s.resid)
				}
			}
		}
		jobs := m.components()[0]
		cur := s.valueOf(jobs)
		s.release(jobs)
		t := s.newLPTree(jobs, math.MaxInt64, math.MaxInt64)
		t.best = cur
		return t
	}
}

// BenchmarkLPProof: the LP search alone proving a 50 x 10 window's
// optimum (generated seed 3, and the J50_B10_s101 sample when
// ../shared/auction is there); nodes, pivots and rows are reported.
func BenchmarkLPProof(b *testing.B) {
	windows := map[string]*Problem{}
	p, err := GenerateWindow(WindowSpec{Jobs: 50, Bids: 10, Seed: 3})
	if err != nil {
		b.Fatal(err)
	}
	windows["gen_seed=3"] = p
	if dir := sampleDir(); dir != "" {
		windows["J50_B10_s101"] = loadSample(b, dir, "aucs_J50_B10_s101")
	}
	for _, name := range []string{"gen_seed=3", "J50_B10_s101"} {
		p, ok := windows[name]
		if !ok {
			continue
		}
		b.Run("nodes=1024/jobs=50/bids=10/"+name, func(b *testing.B) {
			tree := lpTreeFromOptimum(b, p)
			var t *lpTree
			for b.Loop() {
				t = tree()
				t.dfs()
				if !t.complete || t.lp.trouble {
					b.Fatal("not proven")
				}
			}
			b.ReportMetric(float64(t.nodes), "nodes")
			b.ReportMetric(float64(t.lp.pivots), "pivots")
			b.ReportMetric(float64(len(t.lp.rhs)), "rows")
		})
	}
}
