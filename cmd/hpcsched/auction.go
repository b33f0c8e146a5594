package main

import (
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"flag"
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

func parseFlags(fs *flag.FlagSet, args []string) error {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return errHelp
		}
		return usagef("%v", err)
	}
	return nil
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
	fs := flag.NewFlagSet("auction solve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	limit := fs.Duration("time-limit", time.Second, "stop after this long with the best solution found")
	asJSON := fs.Bool("json", false, "print JSON")
	seed := fs.Uint64("seed", 0, "seed of the local search")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return usagef("usage: hpcsched auction solve [--time-limit 1s] [--json] FILE.json")
	}
	p, err := readProblem(fs.Arg(0))
	if err != nil {
		return err
	}
	sol, err := auction.Solve(context.Background(), p, auction.Options{TimeLimit: *limit, Seed: *seed})
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
	if *asJSON {
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
	fs := flag.NewFlagSet("auction gen", flag.ContinueOnError)
	fs.SetOutput(stderr)
	jobs := fs.Int("jobs", 100, "jobs in the window")
	bids := fs.Int("bids", 15, "bids per job at most")
	seed := fs.Uint64("seed", 1, "random seed")
	ranges := fs.Bool("ranges", false, "GPU ranges for type C and D jobs (workload 5')")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usagef("auction gen: unexpected argument %q", fs.Arg(0))
	}
	p, err := auction.GenerateWindow(auction.WindowSpec{Jobs: *jobs, Bids: *bids, Seed: *seed, Ranges: *ranges})
	if err != nil {
		return usagef("%v", err)
	}
	return auction.WriteJSON(stdout, p)
}

func auctionLP(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("auction lp", flag.ContinueOnError)
	fs.SetOutput(stderr)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return usagef("usage: hpcsched auction lp FILE.json")
	}
	p, err := readProblem(fs.Arg(0))
	if err != nil {
		return err
	}
	return auction.WriteLP(stdout, p)
}
