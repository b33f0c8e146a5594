package main

import (
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/hpcsched/hpcsched/hostlist"
)

const hostlistUsage = `usage: hpcsched hostlist expand|compress|count EXPR|NAMES...

  expand    print every host name of the expressions, one a line
  compress  print the names as one compressed hostlist
  count     print how many names the expressions hold

The arguments are joined with commas: 'hostlist count n[1-4] m1' is 5.
A lone - reads the names or expressions from standard input, separated by
white space or commas (at most 32 MiB): 'squeue -h -o %N | hpcsched
hostlist compress -'.
`

// hostlistStdinLimit bounds what "hostlist ... -" reads: the hostlist
// package's default budget of name text.
const hostlistStdinLimit = hostlist.DefaultByteLimit

func hostlistCmd(args []string, stdout io.Writer) error {
	return hostlistFrom(args, os.Stdin, stdout)
}

// hostlistFrom runs the hostlist command, reading stdin for a lone "-".
func hostlistFrom(args []string, stdin io.Reader, stdout io.Writer) error {
	for _, a := range args {
		if a == "-h" || a == "--help" {
			fmt.Fprint(stdout, hostlistUsage)
			return nil
		}
		if strings.HasPrefix(a, "-") && a != stdinName {
			return usagef("hostlist: unknown option %s (hpcsched hostlist --help)", a)
		}
	}
	if len(args) < 2 {
		return usagef("hostlist: a subcommand and an expression, please\n%s", hostlistUsage)
	}
	expr := strings.Join(args[1:], ",")
	if len(args) == 2 && args[1] == stdinName {
		in, err := readHostlistInput(stdin)
		if err != nil {
			return err
		}
		expr = in
	} else if slices.Contains(args[1:], stdinName) {
		return usagef("hostlist: - (standard input) stands alone, not beside other expressions")
	}
	switch args[0] {
	case "expand":
		names, err := hostlist.Expand(expr)
		if err != nil {
			return usagef("%v", err)
		}
		_, err = fmt.Fprintln(stdout, strings.Join(names, "\n"))
		return err
	case "compress":
		names, err := hostlist.Expand(expr)
		if err != nil {
			return usagef("%v", err)
		}
		_, err = fmt.Fprintln(stdout, hostlist.Compress(names))
		return err
	case "count":
		n, err := hostlist.Count(expr)
		if err != nil {
			return usagef("%v", err)
		}
		_, err = fmt.Fprintln(stdout, n)
		return err
	}
	return usagef("hostlist: unknown subcommand %q (expand, compress, count)", args[0])
}

// readHostlistInput reads standard input for "hostlist ... -", refusing
// more than hostlistStdinLimit bytes before it builds any name.
func readHostlistInput(stdin io.Reader) (string, error) {
	b, err := io.ReadAll(io.LimitReader(stdin, hostlistStdinLimit+1))
	if err != nil {
		return "", fmt.Errorf("hostlist: reading standard input: %w", err)
	}
	if len(b) > hostlistStdinLimit {
		return "", usagef("hostlist: standard input holds more than %d bytes (the hostlist budget)", hostlistStdinLimit)
	}
	for i, c := range b {
		if c < ' ' && c != '\t' && c != '\n' && c != '\r' || c == 0x7f {
			return "", usagef("hostlist: standard input: byte %d is 0x%02x, which no host name holds", i, c)
		}
	}
	return strings.Join(strings.FieldsFunc(string(b), func(r rune) bool {
		return r == ',' || r == ' ' || r == '\t' || r == '\n' || r == '\r'
	}), ","), nil
}
