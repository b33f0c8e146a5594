package auction

import (
	"bufio"
	"compress/gzip"
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hpcsched/hpcsched/internal/shareddata"
	"github.com/stretchr/testify/require"
)

// sampleDir is ../shared/auction beside the repository, or "" when absent.
func sampleDir() string {
	d := shareddata.Dir()
	if d == "" {
		return ""
	}
	a := filepath.Join(d, "..", "auction")
	if _, err := os.Stat(filepath.Join(a, "reference.tsv")); err != nil {
		return ""
	}
	return a
}

type reference struct {
	name            string
	cbcObj, cbcUB   float64
	cbcOptimal      bool
	greedyObjective float64
}

func loadReference(tb testing.TB) (string, []reference) {
	tb.Helper()
	dir := sampleDir()
	if dir == "" {
		tb.Skip("../shared/auction not found beside the repository")
	}
	f, err := os.Open(filepath.Join(dir, "reference.tsv"))
	require.NoError(tb, err)
	defer f.Close()
	var refs []reference
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		c := strings.Split(sc.Text(), "\t")
		if c[0] == "instance" || len(c) < 7 {
			continue
		}
		r := reference{name: c[0], cbcOptimal: c[3] == "optimal"}
		r.cbcObj, _ = strconv.ParseFloat(c[4], 64)
		r.cbcUB, _ = strconv.ParseFloat(c[5], 64)
		r.greedyObjective, _ = strconv.ParseFloat(c[6], 64)
		refs = append(refs, r)
	}
	return dir, refs
}

func loadSample(tb testing.TB, dir, name string) *Problem {
	tb.Helper()
	f, err := os.Open(filepath.Join(dir, name+".json.gz"))
	require.NoError(tb, err)
	defer f.Close()
	zr, err := gzip.NewReader(f)
	require.NoError(tb, err)
	p, err := ReadJSON(zr)
	require.NoError(tb, err)
	return p
}

func TestSamplesReport(t *testing.T) {
	if os.Getenv("AUCTION_REPORT") == "" {
		t.Skip("set AUCTION_REPORT=1 to print the sample table")
	}
	dir, refs := loadReference(t)
	limit, _ := time.ParseDuration(os.Getenv("AUCTION_LIMIT"))
	for _, r := range refs {
		if !strings.Contains(r.name, os.Getenv("AUCTION_ONLY")) {
			continue
		}
		p := loadSample(t, dir, r.name)
		rounds, _ := strconv.Atoi(os.Getenv("AUCTION_ROUNDS"))
		seed, _ := strconv.ParseUint(os.Getenv("AUCTION_SEED"), 10, 64)
		pricing, _ := strconv.Atoi(os.Getenv("AUCTION_PRICING"))
		start, cpu0 := time.Now(), cpuTime()
		sol, err := Solve(context.Background(), p, Options{TimeLimit: limit, Rounds: rounds, Seed: seed, PricingSteps: pricing})
		el := time.Since(start)
		cpu := (cpuTime() - cpu0).Round(time.Millisecond)
		require.NoError(t, err)
		t.Logf("%-20s obj %.4f bound %.3f opt %v nodes %d rounds %d wall %v cpu %v | cbc %.4f ub %.3f greedy %.3f | vs cbc %+.3f%%",
			r.name, sol.Objective, sol.Bound, sol.Optimal, sol.Nodes, sol.Rounds, el.Round(time.Millisecond), cpu, r.cbcObj, r.cbcUB, r.greedyObjective, 100*(sol.Objective-r.cbcObj)/r.cbcObj)
	}
}

// cpuTime is the process's user+system CPU time, for comparing runs on a
// loaded machine.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// On the sample windows (skipped when ../shared/auction is absent): every
// solution is feasible, never above CBC's proven optimum, and the bound
// never below any objective CBC reached (its proven optima and its 120-s
// incumbents), nor below the priority-greedy pick.
func TestSamplesBoundAndFeasibility(t *testing.T) {
	dir, refs := loadReference(t)
	for _, r := range refs {
		// The 50- and 100-job windows carry CBC's proven optima and its
		// tightest incumbents; the larger ones add only test time.
		if !strings.Contains(r.name, "J50") && (testing.Short() || !strings.Contains(r.name, "J100")) {
			continue
		}
		p := loadSample(t, dir, r.name)
		sol, err := Solve(context.Background(), p, Options{Rounds: 100, MaxNodes: 20_000})
		require.NoError(t, err)
		obj, err := p.Evaluate(sol.Selection)
		require.NoError(t, err, r.name)
		require.InDelta(t, sol.Objective, obj, 1e-6)
		if r.cbcOptimal {
			require.LessOrEqual(t, sol.Objective, r.cbcObj+5e-5, r.name)
		}
		require.GreaterOrEqual(t, sol.Bound, r.cbcObj-5e-5, r.name)
		require.GreaterOrEqual(t, sol.Bound, r.greedyObjective-5e-5, r.name)
		require.GreaterOrEqual(t, sol.Objective, r.greedyObjective-5e-5, "%s: below the priority greedy", r.name)
	}
}

// The clique rows and reduced-cost fixing prove J50_B10_s102 optimal on a
// work budget: the bound meets CBC's proven optimum.
func TestSampleProvenOptimum(t *testing.T) {
	dir, refs := loadReference(t)
	for _, r := range refs {
		if r.name != "aucs_J50_B10_s102" {
			continue
		}
		p := loadSample(t, dir, r.name)
		sol, err := Solve(context.Background(), p, Options{Rounds: 2000, MaxNodes: 400_000})
		require.NoError(t, err)
		require.True(t, sol.Optimal, "bound %.4f objective %.4f", sol.Bound, sol.Objective)
		require.InDelta(t, r.cbcObj, sol.Objective, 5e-5)
		require.InDelta(t, r.cbcObj, sol.Bound, 5e-5)
	}
}
