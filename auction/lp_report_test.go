package auction

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// proofWindows are the six 50 x 10 windows of the proofs' benchmarks:
// the two samples (when ../shared/auction is there) and generated seeds
// 1-4.
func proofWindows(t *testing.T) map[string]*Problem {
	ws := map[string]*Problem{}
	if dir := sampleDir(); dir != "" {
		for _, n := range []string{"aucs_J50_B10_s101", "aucs_J50_B10_s102"} {
			ws[n] = loadSample(t, dir, n)
		}
	}
	for seed := uint64(1); seed <= 4; seed++ {
		p, err := GenerateWindow(WindowSpec{Jobs: 50, Bids: 10, Seed: seed})
		require.NoError(t, err)
		ws[fmt.Sprintf("gen_J50_B10_s%d", seed)] = p
	}
	return ws
}

// TestLPProofReport (AUCTION_LPREPORT=1) runs the LP search alone on each
// 50 x 10 window from its optimum (found by a budgeted Solve, fixing off)
// and prints its nodes, pivots, rows and CPU. AUCTION_ROT=r rotates the
// group's jobs by r (the tree is sensitive to their order: compare
// settings over several), AUCTION_LPNODES caps the nodes (default 3,000),
// AUCTION_ONLY filters the windows.
func TestLPProofReport(t *testing.T) {
	if os.Getenv("AUCTION_LPREPORT") == "" {
		t.Skip("set AUCTION_LPREPORT=1 to print the LP search's table")
	}
	limit, _ := strconv.ParseInt(os.Getenv("AUCTION_LPNODES"), 10, 64)
	if limit <= 0 {
		limit = 3000
	}
	rot, _ := strconv.Atoi(os.Getenv("AUCTION_ROT"))
	ws := proofWindows(t)
	for _, name := range slices.Sorted(maps.Keys(ws)) {
		if !strings.Contains(name, os.Getenv("AUCTION_ONLY")) {
			continue
		}
		p := ws[name]
		sol, err := Solve(context.Background(), p, Options{Rounds: 1000, MaxNodes: 30_000})
		require.NoError(t, err)
		m := buildModel(p)
		s := newSolver(context.Background(), m, Options{}.withDefaults(len(p.Jobs), false))
		for j, mj := range m.jobs {
			for b := mj.first; b < mj.end; b++ {
				if int(m.origBid[b]) == sol.Selection[mj.orig] {
					s.sel[j] = b
					m.take(b, s.resid)
				}
			}
		}
		for _, jobs := range m.components() {
			if r := rot % len(jobs); r > 0 {
				jobs = append(slices.Clone(jobs[r:]), jobs[:r]...)
			}
			cpu0, start := cpuTime(), time.Now()
			cur := s.valueOf(jobs)
			s.release(jobs)
			lt := s.newLPTree(jobs, limit, math.MaxInt64)
			lt.best = cur
			lt.dfs()
			t.Logf("%-18s start %.4f best %.4f root %.3f complete %v nodes %d pivots %d rows %d wall %v cpu %v",
				name, sol.Objective, lt.best, lt.root, lt.complete && !lt.lp.trouble, lt.nodes, lt.lp.pivots, len(lt.lp.rhs),
				time.Since(start).Round(time.Millisecond), (cpuTime() - cpu0).Round(time.Millisecond))
		}
	}
}

// TestSolveProofReport (AUCTION_LPREPORT=1): Solve on each 50 x 10 window
// with AUCTION_LIMIT (default 2s), its answer and CPU; AUCTION_ROT=r
// rotates the window's jobs by r first.
func TestSolveProofReport(t *testing.T) {
	if os.Getenv("AUCTION_LPREPORT") == "" {
		t.Skip("set AUCTION_LPREPORT=1 to print the proofs' table")
	}
	limit, err := time.ParseDuration(cmp.Or(os.Getenv("AUCTION_LIMIT"), "2s"))
	rot, _ := strconv.Atoi(os.Getenv("AUCTION_ROT"))
	require.NoError(t, err)
	ws := proofWindows(t)
	for _, name := range slices.Sorted(maps.Keys(ws)) {
		if !strings.Contains(name, os.Getenv("AUCTION_ONLY")) {
			continue
		}
		p := ws[name]
		if r := rot % len(p.Jobs); r > 0 {
			q := *p
			q.Jobs = append(slices.Clone(p.Jobs[r:]), p.Jobs[:r]...)
			p = &q
		}
		cpu0, start := cpuTime(), time.Now()
		sol, err := Solve(context.Background(), p, Options{TimeLimit: limit})
		require.NoError(t, err)
		t.Logf("%-18s obj %.4f bound %.3f optimal %v nodes %d rounds %d wall %v cpu %v", name, sol.Objective, sol.Bound,
			sol.Optimal, sol.Nodes, sol.Rounds, time.Since(start).Round(time.Millisecond), (cpuTime() - cpu0).Round(time.Millisecond))
	}
}
