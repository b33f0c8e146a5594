package main

import (
	"errors"
	"fmt"
	"io"
	"os"
)

const usage = `usage: hpcsched <command> [flags]

commands:
  simulate   replay a workload through the scheduler and print seed-001 Table 4 metrics
  explain    say whether a request would run on a slurm.conf, where, or why not
  hostlist   expand, compress or count hostlist expressions
  check      run a table of expected placements against slurm.conf files
  alloc      allocation ledger: serve its REST API; balance, activity, failures
  auction    solve, generate or export AUCSCHED3 auction windows
  sweep      spread simulate's runs over a Slurm job array and merge them

Run 'hpcsched <command> -h' for a command's flags.
`

// errUsage marks bad input: exit code 2.
type errUsage struct{ msg string }

func (e errUsage) Error() string { return e.msg }

func usagef(format string, args ...any) error { return errUsage{fmt.Sprintf(format, args...)} }

// errNotRunnable: explain found the request cannot run; exit code 1.
var errNotRunnable = errors.New("not runnable")

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return 2
	}
	var err error
	switch args[0] {
	case "simulate":
		err = simulateOrGrid(args[1:], stdout, stderr)
	case "explain":
		err = explain(args[1:], stdout)
	case "hostlist":
		err = hostlistCmd(args[1:], stdout)
	case "check":
		err = checkCmd(args[1:], stdout)
	case "alloc":
		err = allocCmd(args[1:], stdout, stderr)
	case "auction":
		err = auctionCmd(args[1:], stdout, stderr)
	case "sweep":
		err = sweepCmd(args[1:], stdout, stderr)
	case "-h", "--help", "help":
		fmt.Fprint(stdout, usage)
		return 0
	default:
		err = usagef("unknown command %q\n%s", args[0], usage)
	}
	switch {
	case err == nil:
		return 0
	case errors.Is(err, errNotRunnable), errors.Is(err, errMismatch):
		return 1
	case errors.Is(err, errHelp):
		return 0
	}
	fmt.Fprintln(stderr, "hpcsched:", err)
	return 2
}
