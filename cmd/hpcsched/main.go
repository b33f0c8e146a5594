package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"strings"
)

const usage = `usage: hpcsched <command> [flags]

commands:
  simulate   replay a workload through the scheduler and print the AUCSCHED3 paper's Table 4 metrics
  explain    say whether a request would run on a slurm.conf, where, or why not
  hostlist   expand, compress or count hostlist expressions
  check      run a table of expected placements against slurm.conf files
  alloc      allocation ledger: serve its REST API; balance, activity, failures
  auction    solve, generate or export AUCSCHED3 auction windows
  sweep      spread simulate's runs over a Slurm job array and merge them

Run 'hpcsched <command> -h' for a command's flags; 'hpcsched --version'
for the version.
`

// commandNames are the subcommands the usage text lists, for "did you
// mean": read from the text, so a command added there is suggested too.
func commandNames() []string {
	_, list, _ := strings.Cut(usage, "commands:\n")
	list, _, _ = strings.Cut(list, "\n\n")
	var names []string
	for _, line := range strings.Split(list, "\n") {
		if f := strings.Fields(line); len(f) > 0 {
			names = append(names, f[0])
		}
	}
	return names
}

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
	out := &checkedWriter{w: stdout}
	code := dispatch(args, out, stderr)
	if out.err != nil && code != 2 {
		// the answer did not reach its reader (a full disk, a closed pipe)
		fmt.Fprintln(stderr, "hpcsched: writing the output:", out.err)
		return 2
	}
	return code
}

func dispatch(args []string, stdout, stderr io.Writer) int {
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
		err = checkCmd(args[1:], stdout, stderr)
	case "alloc":
		err = allocCmd(args[1:], stdout, stderr)
	case "auction":
		err = auctionCmd(args[1:], stdout, stderr)
	case "sweep":
		err = sweepCmd(args[1:], stdout, stderr)
	case "-h", "--help", "help":
		fmt.Fprint(stdout, usage)
		return 0
	case "--version", "version":
		fmt.Fprintln(stdout, version())
		return 0
	default:
		err = unknownCommand(args[0])
	}
	switch {
	case err == nil:
		return 0
	case errors.Is(err, errNotRunnable), errors.Is(err, errMismatch):
		return 1
	case errors.Is(err, errHelp):
		return 0
	case errors.As(err, new(runsFailed)):
		// the rows of the runs that ended are on stdout
		fmt.Fprintln(stderr, "hpcsched:", err)
		return 1
	}
	fmt.Fprintln(stderr, "hpcsched:", err)
	return 2
}

// checkedWriter keeps the first write error, so a command whose text
// output was lost (stdout on a full disk) does not exit 0.
type checkedWriter struct {
	w   io.Writer
	err error
}

func (c *checkedWriter) Write(p []byte) (int, error) {
	if c.err != nil {
		return 0, c.err
	}
	n, err := c.w.Write(p)
	if err != nil {
		c.err = err
	}
	return n, err
}

// version is the module version the binary was built from (go install
// ...@v1.2.3), else "(devel)" with the VCS revision when the build
// recorded one, and the Go version.
func version() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "hpcsched (unknown version)"
	}
	v := info.Main.Version
	if v == "" {
		v = "(devel)"
	}
	for _, s := range info.Settings {
		if s.Key == "vcs.revision" && len(s.Value) >= 12 {
			v += " " + s.Value[:12]
		}
	}
	return "hpcsched " + v + " " + info.GoVersion
}

// unknownCommand is a one-line usage error, suggesting the command
// closest to what was typed.
func unknownCommand(name string) error {
	best, dist := "", 3 // suggest only within two edits, or a prefix
	for _, c := range commandNames() {
		if len(name) >= 2 && strings.HasPrefix(c, name) {
			best = c
			break
		}
		if d := editDistance(name, c); d < dist {
			best, dist = c, d
		}
	}
	if best != "" {
		return usagef("unknown command %q: did you mean %q? ('hpcsched --help' lists the commands)", name, best)
	}
	return usagef("unknown command %q ('hpcsched --help' lists the commands)", name)
}

// editDistance is the Levenshtein distance between a and b (bytes).
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur := make([]int, len(b)+1)
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			sub := prev[j-1]
			if a[i-1] != b[j-1] {
				sub++
			}
			cur[j] = min(sub, prev[j]+1, cur[j-1]+1)
		}
		prev = cur
	}
	return prev[len(b)]
}
