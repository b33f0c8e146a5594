package main

import (
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/hpcsched/hpcsched/auction"
)

const auctionUsage = `usage: hpcsched auction <subcommand> [flags]

subcommands:
  solve [--time-limit 1s] [--json] [--seed N] FILE.json[.gz]   solve a window, print the result
  gen --jobs J --bids B --seed S [--ranges]                      write a generated window (JSON)
  lp FILE.json[.gz]                                              write the window as a CPLEX LP file
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
	f, err := os.Open(path)
	if err != nil {
		return nil, usagef("%v", err)
	}
	defer f.Close()
	var r io.Reader = f
	if strings.HasSuffix(path, ".gz") {
		zr, err := gzip.NewReader(f)
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

func auctionSolve(args []string, stdout, stderr io.Writer) error {
	var (
		limit  time.Duration
		asJSON bool
		seed   uint64
	)
	fs := newFlagSet("auction solve", "[flags] FILE.json")
	fs.Duration(&limit, "t,time-limit", time.Second, "stop after this long with the best solution found")
	fs.Bool(&asJSON, "json", "print JSON")
	fs.Uint64(&seed, "seed", 0, "seed of the local search")
	operands, err := fs.Parse(args, stdout)
	if err != nil {
		return err
	}
	if len(operands) != 1 {
		return usagef("usage: hpcsched auction solve [--time-limit 1s] [--json] FILE.json")
	}
	p, err := readProblem(operands[0])
	if err != nil {
		return err
	}
	sol, err := auction.Solve(context.Background(), p, auction.Options{TimeLimit: limit, Seed: seed})
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
