package auction

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// cbcGenerated reads testdata/cbc_generated.tsv: CBC's 120-s objective on
// generated windows (`hpcsched auction gen`), keyed "J<jobs>_B<bids>_s<seed>".
func cbcGenerated(tb testing.TB) map[string]float64 {
	tb.Helper()
	f, err := os.Open(filepath.Join("testdata", "cbc_generated.tsv"))
	require.NoError(tb, err)
	defer f.Close()
	refs := map[string]float64{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		c := strings.Split(sc.Text(), "\t")
		if len(c) < 3 || c[0] == "window" {
			continue
		}
		v, err := strconv.ParseFloat(c[2], 64)
		require.NoError(tb, err, sc.Text())
		refs[c[0]] = v
	}
	require.NoError(tb, sc.Err())
	return refs
}

// tuneEqual: an objective this close below CBC's counts as equal (CBC's
// figures are printed to 1e-8; a cost step is 1/9216).
const tuneEqual = 5e-5

type tuneWindow struct {
	name string
	p    *Problem
	cbc  float64
}

// tuneWindows are the 100 x 15 windows the search is measured on: the two
// samples (when ../shared/auction is there) and generated seeds 1-3.
func tuneWindows(t *testing.T) []tuneWindow {
	var ws []tuneWindow
	if dir := sampleDir(); dir != "" {
		_, refs := loadReference(t)
		for _, r := range refs {
			if strings.Contains(r.name, "J100") {
				ws = append(ws, tuneWindow{r.name, loadSample(t, dir, r.name), r.cbcObj})
			}
		}
	}
	gen := cbcGenerated(t)
	for seed := uint64(1); seed <= 3; seed++ {
		name := fmt.Sprintf("J100_B15_s%d", seed)
		if _, ok := gen[name]; !ok {
			continue
		}
		p, err := GenerateWindow(WindowSpec{Jobs: 100, Bids: 15, Seed: seed})
		require.NoError(t, err)
		ws = append(ws, tuneWindow{"gen_" + name, p, gen[name]})
	}
	return ws
}

// TestTuneReport prints, per 100 x 15 window and seed, the objective
// against CBC's 120-s one (AUCTION_TUNE=1; AUCTION_ROUNDS, AUCTION_LIMIT,
// AUCTION_SEEDS=n for seeds 0..n-1 (from AUCTION_SEED0), AUCTION_ONLY to filter windows).
func TestTuneReport(t *testing.T) {
	if os.Getenv("AUCTION_TUNE") == "" {
		t.Skip("set AUCTION_TUNE=1 to print the tuning table")
	}
	rounds, _ := strconv.Atoi(os.Getenv("AUCTION_ROUNDS"))
	limit, _ := time.ParseDuration(os.Getenv("AUCTION_LIMIT"))
	seeds, _ := strconv.Atoi(os.Getenv("AUCTION_SEEDS"))
	seeds = max(seeds, 1)
	seed0, _ := strconv.Atoi(os.Getenv("AUCTION_SEED0"))
	pricing, _ := strconv.Atoi(os.Getenv("AUCTION_PRICING"))
	for _, w := range tuneWindows(t) {
		if !strings.Contains(w.name, os.Getenv("AUCTION_ONLY")) {
			continue
		}
		line, sum, worst, worstAbs, atLeast := "", 0.0, 1e9, 1e18, 0
		var cpuSum time.Duration
		for seed := range seeds {
			cpu0 := cpuTime()
			sol, err := Solve(context.Background(), w.p, Options{Rounds: rounds, TimeLimit: limit, Seed: uint64(seed0 + seed), PricingSteps: pricing})
			require.NoError(t, err)
			cpuSum += cpuTime() - cpu0
			require.True(t, w.p.Feasible(sol.Selection))
			pct := 100 * (sol.Objective - w.cbc) / w.cbc
			sum += pct
			worst = min(worst, pct)
			worstAbs = min(worstAbs, sol.Objective-w.cbc)
			if sol.Objective >= w.cbc-tuneEqual {
				atLeast++
			}
			line += fmt.Sprintf(" %+.3f", pct)
		}
		t.Logf("%-22s mean %+.3f%% worst %+.3f%% (%+.4f) >= CBC %d/%d cpu/run %v |%s", w.name, sum/float64(seeds), worst, worstAbs,
			atLeast, seeds, (cpuSum / time.Duration(seeds)).Round(time.Millisecond), line)
	}
}
