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
	return readColumn(tb, "cbc_generated.tsv", 2)
}

// readColumn reads column col of testdata/name, a TSV with a "window"
// header, as numbers keyed by the first column.
func readColumn(tb testing.TB, name string, col int) map[string]float64 {
	tb.Helper()
	f, err := os.Open(filepath.Join("testdata", name))
	require.NoError(tb, err)
	defer f.Close()
	out := map[string]float64{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		c := strings.Split(sc.Text(), "\t")
		if len(c) <= col || c[0] == "window" {
			continue
		}
		v, err := strconv.ParseFloat(c[col], 64)
		require.NoError(tb, err, sc.Text())
		out[c[0]] = v
	}
	require.NoError(tb, sc.Err())
	return out
}

// tuneEqual: an objective this close below CBC's counts as equal (CBC's
// figures are printed to 1e-8; a cost step is 1/9216).
const tuneEqual = 5e-5

type tuneWindow struct {
	name string
	p    *Problem
	cbc  float64
	opt  float64 // the optimum (or best known) from testdata/optima.tsv, 0 when absent
}

// optima reads testdata/optima.tsv: each window's proven optimum (or best
// known objective) and how it was obtained, keyed as the tune windows are
// named ("aucs_J100_B15_s101", "gen_J100_B15_s1").
func optima(tb testing.TB) map[string]float64 {
	return readColumn(tb, "optima.tsv", 1)
}

// tuneWindows are the 100 x 15 windows the search is measured on: the two
// samples (when ../shared/auction is there) and generated seeds 1-6 (4-6
// have no CBC figure: their "vs CBC" columns compare with the optimum).
func tuneWindows(t *testing.T) []tuneWindow {
	var ws []tuneWindow
	if dir := sampleDir(); dir != "" {
		_, refs := loadReference(t)
		for _, r := range refs {
			if strings.Contains(r.name, "J100") {
				ws = append(ws, tuneWindow{r.name, loadSample(t, dir, r.name), r.cbcObj, 0})
			}
		}
	}
	opt := optima(t)
	for k := range ws {
		ws[k].opt = opt[ws[k].name]
	}
	gen := cbcGenerated(t)
	for seed := uint64(1); seed <= 6; seed++ {
		name := fmt.Sprintf("J100_B15_s%d", seed)
		if gen[name] == 0 && opt["gen_"+name] == 0 {
			continue
		}
		p, err := GenerateWindow(WindowSpec{Jobs: 100, Bids: 15, Seed: seed})
		require.NoError(t, err)
		ws = append(ws, tuneWindow{"gen_" + name, p, gen[name], opt["gen_"+name]})
	}
	return ws
}

// TestTuneReport prints, per 100 x 15 window and seed, the objective
// against CBC's 120-s one (and, in brackets, the gap below the optimum of
// testdata/optima.tsv) (AUCTION_TUNE=1; AUCTION_ROUNDS, AUCTION_LIMIT,
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
		optSum, optWorst, near, objs := 0.0, 0.0, 0, ""
		var cpuSum time.Duration
		for seed := range seeds {
			cpu0 := cpuTime()
			sol, err := Solve(context.Background(), w.p, Options{Rounds: rounds, TimeLimit: limit, Seed: uint64(seed0 + seed), PricingSteps: pricing})
			require.NoError(t, err)
			cpuSum += cpuTime() - cpu0
			require.True(t, w.p.Feasible(sol.Selection))
			cbc := w.cbc
			if cbc == 0 {
				cbc = w.opt // no CBC figure: compare with the optimum
			}
			pct := 100 * (sol.Objective - cbc) / cbc
			sum += pct
			worst = min(worst, pct)
			worstAbs = min(worstAbs, sol.Objective-cbc)
			if sol.Objective >= cbc-tuneEqual {
				atLeast++
			}
			line += fmt.Sprintf(" %+.3f", pct)
			objs += fmt.Sprintf(" %.4f", sol.Objective)
			if w.opt > 0 {
				g := 100 * (w.opt - sol.Objective) / w.opt
				optSum, optWorst = optSum+g, max(optWorst, g)
				if g <= 0.1+1e-9 {
					near++
				}
				line += fmt.Sprintf("(%.3f)", g)
			}
		}
		t.Logf("%-22s objectives:%s", w.name, objs)
		if w.opt > 0 {
			t.Logf("%-22s gap to optimum %.4f: mean %.3f%% worst %.3f%% within 0.1%% %d/%d", w.name, w.opt,
				optSum/float64(seeds), optWorst, near, seeds)
		}
		t.Logf("%-22s mean %+.3f%% worst %+.3f%% (%+.4f) >= CBC %d/%d cpu/run %v |%s", w.name, sum/float64(seeds), worst, worstAbs,
			atLeast, seeds, (cpuSum / time.Duration(seeds)).Round(time.Millisecond), line)
	}
}
