package main

import (
	"bufio"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/hpcsched/hpcsched/auction"
)

const auctionUsage = `usage: hpcsched auction <subcommand> [flags]

subcommands:
  solve [--time-limit 1s | --work N] [--json] [--seed N] FILE    solve a window, print the result
  gen --jobs J --bids B --seed S [--ranges]                      write a generated window (JSON)
  lp FILE                                                        write the window as a CPLEX LP file

FILE is a window in JSON, gunzipped when its name ends in .gz; - reads it
from standard input (gunzipped when it is gzip).

Examples, from the repository's root (../shared holds the sample windows):

  hpcsched auction solve --work 200000 ../shared/auction/aucs_J50_B10_s102.json.gz
  hpcsched auction gen --jobs 50 --bids 10 --seed 1
`

func auctionCmd(args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		return usagef("%s", strings.TrimSuffix(auctionUsage, "\n"))
	}
	switch args[0] {
	case "solve":
		return auctionSolve(args[1:], stdout, stderr)
	case "gen":
		return auctionGen(args[1:], stdout, stderr)
	case "lp":
		return auctionLP(args[1:], stdout, stderr)
	case "-h", "--help", "help":
		fmt.Fprint(stdout, auctionUsage)
		return nil
	}
	return usagef("auction: unknown subcommand %q (solve, gen, lp)", args[0])
}

// readProblem reads a window from path, gunzipping names ending in .gz.
func readProblem(path string) (*auction.Problem, error) {
	return readProblemContext(context.Background(), path)
}

// ctxReader fails its reads once ctx is done.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, fmt.Errorf("the time limit ran out while reading: %w", err)
	}
	return c.r.Read(p)
}

// stdinName is the file name that means standard input, as for
// simulate --workload.
const stdinName = "-"

// readProblemContext is readProblem, giving up when ctx is done. The path
// "-" reads standard input, gunzipped when it starts with gzip's magic
// bytes (a pipe has no name to tell by).
func readProblemContext(ctx context.Context, path string) (*auction.Problem, error) {
	var in io.Reader
	gz := strings.HasSuffix(path, ".gz")
	if path == stdinName {
		br := bufio.NewReader(os.Stdin)
		magic, _ := br.Peek(2)
		gz = len(magic) == 2 && magic[0] == 0x1f && magic[1] == 0x8b
		in, path = br, "standard input"
	} else {
		f, err := os.Open(path)
		if err != nil {
			return nil, usagef("%v", err)
		}
		defer f.Close()
		in = f
	}
	var r io.Reader = ctxReader{ctx, in}
	if gz {
		zr, err := gzip.NewReader(r)
		if err != nil {
			return nil, usagef("%s: %v", path, err)
		}
		r = zr
	}
	p, err := auction.ReadJSON(r)
	if err != nil {
		return nil, usagef("%s: %v", path, err)
	}
	return p, nil
}

// solveOutput is the --json result; the first five fields are the issue's.
type solveOutput struct {
	Objective float64        `json:"objective"`
	Bound     float64        `json:"bound"`
	Optimal   bool           `json:"optimal"`
	Gap       float64        `json:"gap"`
	Selection map[string]int `json:"selection"`
	Nodes     int64          `json:"nodes"`
	Rounds    int            `json:"rounds"`
	Stopped   string         `json:"stopped"`
}

// unsetLimit marks --time-limit as not given.
const unsetLimit = time.Duration(math.MinInt64)

func auctionSolve(args []string, stdout, stderr io.Writer) error {
	var (
		limit  time.Duration
		work   uint64
		asJSON bool
		seed   uint64
	)
	fs := newFlagSet("auction solve", "[flags] FILE.json")
	fs.Duration(&limit, "t,time-limit", unsetLimit, "stop after this long, reading the file included, with the best solution found (default 1s)")
	fs.Uint64(&work, "work", 0, "stop after this many branch-and-bound nodes instead of a time: the answer is the same on any machine, however loaded")
	fs.Bool(&asJSON, "json", "print JSON")
	fs.Uint64(&seed, "seed", 0, "seed of the local search")
	operands, err := fs.Parse(args, stdout)
	if err != nil {
		return err
	}
	const usage = "usage: hpcsched auction solve [--time-limit 1s | --work N] [--json] FILE.json|-"
	switch {
	case len(operands) != 1:
		return usagef(usage)
	case limit != unsetLimit && limit <= 0:
		return usagef("auction solve: --time-limit %v: must be positive", limit)
	case limit != unsetLimit && work > 0:
		return usagef("auction solve: --time-limit and --work exclude each other")
	case work > math.MaxInt64:
		return usagef("auction solve: --work %d: at most %d", work, int64(math.MaxInt64))
	}
	ctx := context.Background()
	opts := auction.Options{Seed: seed}
	if work > 0 {
		opts.MaxNodes = int64(work)
	} else {
		if limit == unsetLimit {
			limit = time.Second
		}
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, limit) // reading counts
		defer cancel()
	}
	p, err := readProblemContext(ctx, operands[0])
	if err != nil {
		return err
	}
	sol, err := auction.Solve(ctx, p, opts)
	if err != nil {
		return usagef("%v", err)
	}
	out := solveOutput{Objective: sol.Objective, Bound: sol.Bound, Optimal: sol.Optimal, Gap: sol.Gap,
		Selection: map[string]int{}, Nodes: sol.Nodes, Rounds: sol.Rounds, Stopped: sol.Stopped}
	for j, i := range sol.Selection {
		if i >= 0 {
			out.Selection[strconv.FormatInt(p.Jobs[j].ID, 10)] = i
		}
	}
	if asJSON {
		return json.NewEncoder(stdout).Encode(out)
	}
	fmt.Fprintf(stdout, "objective %.6f\nbound     %.6f\ngap       %.4f%%\noptimal   %v\nchosen    %d of %d jobs\nnodes     %d\nrounds    %d\nstopped   %s\n",
		sol.Objective, sol.Bound, 100*sol.Gap, sol.Optimal, len(out.Selection), len(p.Jobs), sol.Nodes, sol.Rounds, sol.Stopped)
	for j, i := range sol.Selection {
		if i >= 0 {
			fmt.Fprintf(stdout, "job %d bid %d\n", p.Jobs[j].ID, i)
		}
	}
	return nil
}

func auctionGen(args []string, stdout, stderr io.Writer) error {
	var spec auction.WindowSpec
	fs := newFlagSet("auction gen", "[flags]")
	fs.Int(&spec.Jobs, "jobs", 100, "jobs in the window")
	fs.Int(&spec.Bids, "bids", 15, "bids per job at most")
	fs.Uint64(&spec.Seed, "seed", 1, "random seed")
	fs.Bool(&spec.Ranges, "ranges", "GPU ranges for type C and D jobs (workload 5')")
	if err := fs.NoOperands(args, stdout); err != nil {
		return err
	}
	p, err := auction.GenerateWindow(spec)
	if err != nil {
		return usagef("%v", err)
	}
	return auction.WriteJSON(stdout, p)
}

func auctionLP(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("auction lp", "FILE.json")
	operands, err := fs.Parse(args, stdout)
	if err != nil {
		return err
	}
	if len(operands) != 1 {
		return usagef("usage: hpcsched auction lp FILE.json")
	}
	p, err := readProblem(operands[0])
	if err != nil {
		return err
	}
	return auction.WriteLP(stdout, p)
}
