package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/hpcsched/hpcsched/hostlist"
)

const hostlistUsage = `usage: hpcsched hostlist expand|compress|count EXPR|NAMES...

  expand    print every host name of the expressions, one a line
  compress  print the names as one compressed hostlist
  count     print how many names the expressions hold

The arguments are joined with commas: 'hostlist count n[1-4] m1' is 5.
`

func hostlistCmd(args []string, stdout io.Writer) error {
	for _, a := range args {
		if a == "-h" || a == "--help" {
			fmt.Fprint(stdout, hostlistUsage)
			return nil
		}
		if strings.HasPrefix(a, "-") {
			return usagef("hostlist: unknown option %s (hpcsched hostlist --help)", a)
		}
	}
	if len(args) < 2 {
		return usagef("hostlist: a subcommand and an expression, please\n%s", hostlistUsage)
	}
	expr := strings.Join(args[1:], ",")
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
