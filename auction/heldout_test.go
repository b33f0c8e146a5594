package auction

import (
	"bufio"
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// The solver's goals measured on windows it was not tuned on: generated
// windows of fresh seeds, drawn here and logged, against a reference
// optimum. Set AUCTION_HELDOUT=1 (and a cache directory in
// AUCTION_HELDOUT_DIR, where each window's LP file and reference answer
// are kept, so that a second run does not solve them again).
// AUCTION_HELDOUT_SEEDS=a,b,... replays given seeds instead of drawing
// ("cached": those of the cache directory);
// AUCTION_HELDOUT_N the windows per size (default 6); AUCTION_HELDOUT_SIZES
// the sizes (default "50x10,100x15,planted30"; "400x20" too for the
// 400 x 20 goal). The reference is AUCTION_REF (a command given the LP
// file that prints "<status> <objective>" first, status "Optimal" for a
// proven optimum; the HiGHS of BENCHMARKS.md) or else CBC with
// AUCTION_REF_SECS seconds (default 300; 120 for 400 x 20).
//
// For each window Solve runs on a work budget (AUCTION_WORK nodes and
// AUCTION_ROUNDS local-search rounds: the same answer on any machine;
// default Solve's, 5,000,000 nodes and 300 rounds a job) and, unless
// AUCTION_LIMIT is "0", under AUCTION_LIMIT of wall time (default 1s),
// and the CPU time of each run is measured (getrusage), so that a loaded
// machine shows as less CPU than wall time. AUCTION_SOLVER_SEEDS=a,b,...
// runs the work budget once for each local-search seed (Options.Seed;
// default 0 alone), each run counting in the mean and the worst.
func TestHeldOutReport(t *testing.T) {
	if os.Getenv("AUCTION_HELDOUT") == "" {
		t.Skip("set AUCTION_HELDOUT=1 (long: reference solves of fresh windows)")
	}
	dir := os.Getenv("AUCTION_HELDOUT_DIR")
	if dir == "" {
		dir = t.TempDir()
	}
	require.NoError(t, os.MkdirAll(dir, 0o755))
	n := envInt(t, "AUCTION_HELDOUT_N", 6)
	sizes := strings.Split(envOr("AUCTION_HELDOUT_SIZES", "50x10,100x15,planted30"), ",")
	work := int64(envInt(t, "AUCTION_WORK", 0))
	rounds := envInt(t, "AUCTION_ROUNDS", 0)
	limit, err := time.ParseDuration(envOr("AUCTION_LIMIT", "1s"))
	require.NoError(t, err)
	solverSeeds := seedList(t, envOr("AUCTION_SOLVER_SEEDS", "0"))
	for _, size := range sizes {
		var gaps []float64
		for k, seed := range heldOutSeeds(t, dir, size, n) {
			p := heldOutWindow(t, size, seed)
			ref, proven := heldOutReference(t, dir, size, seed, p)
			t.Logf("%s seed %d (%d of %d): reference %.6f (proven %v)", size, seed, k+1, n, ref, proven)
			type runKind struct {
				name string
				opts Options
			}
			var runs []runKind
			for _, sd := range solverSeeds {
				runs = append(runs, runKind{"work", Options{MaxNodes: work, Rounds: rounds, Seed: sd}})
			}
			for _, run := range append(runs, runKind{"time", Options{TimeLimit: limit}}) {
				if run.name == "time" && limit == 0 {
					continue
				}
				cpu0, wall0 := cpuTime(), time.Now()
				sol, err := Solve(context.Background(), p, run.opts)
				require.NoError(t, err)
				cpu, wall := cpuTime()-cpu0, time.Since(wall0)
				require.True(t, p.Feasible(sol.Selection))
				gap := 100 * (ref - sol.Objective) / ref
				if run.name == "work" {
					gaps = append(gaps, gap)
				}
				t.Logf("  %-4s seed %d objective %.6f bound %.6f optimal %v: %.3f%% below the reference; %v CPU, %v wall, %d nodes",
					run.name, run.opts.Seed, sol.Objective, sol.Bound, sol.Optimal, gap, cpu.Round(time.Millisecond), wall.Round(time.Millisecond), sol.Nodes)
				if proven {
					require.GreaterOrEqual(t, sol.Bound, ref-1e-4, "bound below the proven optimum")
				}
				if sol.Optimal && proven {
					require.InDelta(t, ref, sol.Objective, 1e-4, "proven, so the reference's optimum")
				}
			}
		}
		mean, worst := 0.0, math.Inf(-1)
		for _, g := range gaps {
			mean += g / float64(len(gaps))
			worst = max(worst, g)
		}
		t.Logf("%s, work budget %d nodes, %d rounds: mean %.3f%%, worst %.3f%% below the reference", size, work, rounds, mean, worst)
	}
}

func envOr(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}

func envInt(t *testing.T, name string, def int) int {
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	require.NoError(t, err, name)
	return n
}

// heldOutSeeds are AUCTION_HELDOUT_SEEDS, or with "cached" the seeds of
// size whose reference dir holds, or n fresh random seeds.
func heldOutSeeds(t *testing.T, dir, size string, n int) []uint64 {
	if os.Getenv("AUCTION_HELDOUT_SEEDS") == "cached" {
		refs, err := filepath.Glob(filepath.Join(dir, size+"_s*.ref"))
		require.NoError(t, err)
		var out []uint64
		for _, r := range refs {
			s, err := strconv.ParseUint(strings.TrimSuffix(strings.TrimPrefix(filepath.Base(r), size+"_s"), ".ref"), 10, 64)
			require.NoError(t, err, r)
			out = append(out, s)
		}
		slices.Sort(out)
		return out
	}
	if v := os.Getenv("AUCTION_HELDOUT_SEEDS"); v != "" {
		return seedList(t, v)
	}
	out := make([]uint64, n)
	for k := range out {
		out[k] = rand.Uint64() >> 32 // short enough to type back in
	}
	t.Logf("seeds drawn: %v", out)
	return out
}

// seedList parses comma-separated seeds.
func seedList(t *testing.T, v string) []uint64 {
	var out []uint64
	for _, f := range strings.Split(v, ",") {
		s, err := strconv.ParseUint(f, 10, 64)
		require.NoError(t, err, f)
		out = append(out, s)
	}
	return out
}

// heldOutWindow builds the window of a size ("50x10", "planted30", ...).
func heldOutWindow(t *testing.T, size string, seed uint64) *Problem {
	if size == "planted30" {
		return plantedWindow(seed, 30, 8, 2)
	}
	var jobs, bids int
	_, err := fmt.Sscanf(size, "%dx%d", &jobs, &bids)
	require.NoError(t, err, size)
	p, err := GenerateWindow(WindowSpec{Jobs: jobs, Bids: bids, Seed: seed})
	require.NoError(t, err)
	return p
}

// heldOutReference is the reference's objective for the window and
// whether it proved it optimal, from the cache in dir when there.
func heldOutReference(t *testing.T, dir, size string, seed uint64, p *Problem) (float64, bool) {
	base := filepath.Join(dir, fmt.Sprintf("%s_s%d", size, seed))
	if obj, proven, ok := readReference(base + ".ref"); ok {
		return obj, proven
	}
	f, err := os.Create(base + ".lp")
	require.NoError(t, err)
	require.NoError(t, WriteLP(f, p))
	require.NoError(t, f.Close())
	var status string
	var obj float64
	if cmd := os.Getenv("AUCTION_REF"); cmd != "" {
		out, err := exec.Command(cmd, base+".lp").Output()
		require.NoError(t, err)
		_, err = fmt.Sscan(string(out), &status, &obj)
		require.NoError(t, err, string(out))
	} else {
		secs := 300
		if size == "400x20" {
			secs = 120
		}
		var proven bool
		obj, proven = runCBC(t, p, envInt(t, "AUCTION_REF_SECS", secs))
		status = "Stopped"
		if proven {
			status = "Optimal"
		}
	}
	require.NoError(t, os.WriteFile(base+".ref", []byte(fmt.Sprintf("%s %.10f\n", status, obj)), 0o644))
	return obj, status == "Optimal"
}

func readReference(path string) (float64, bool, bool) {
	f, err := os.Open(path)
	if err != nil {
		return 0, false, false
	}
	defer f.Close()
	var status string
	var obj float64
	if _, err := fmt.Fscan(bufio.NewReader(f), &status, &obj); err != nil {
		return 0, false, false
	}
	return obj, status == "Optimal", true
}
