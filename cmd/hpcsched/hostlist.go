package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/hpcsched/hpcsched/hostlist"
)

func hostlistCmd(args []string, stdout io.Writer) error {
	if len(args) < 2 {
		return usagef("usage: hpcsched hostlist expand|compress|count EXPR|NAMES...")
	}
	switch args[0] {
	case "expand":
		names, err := hostlist.Expand(strings.Join(args[1:], ","))
		if err != nil {
			return usagef("%v", err)
		}
		fmt.Fprintln(stdout, strings.Join(names, "\n"))
	case "compress":
		names, err := hostlist.Expand(strings.Join(args[1:], ","))
		if err != nil {
			return usagef("%v", err)
		}
		fmt.Fprintln(stdout, hostlist.Compress(names))
	case "count":
		n, err := hostlist.Count(strings.Join(args[1:], ","))
		if err != nil {
			return usagef("%v", err)
		}
		fmt.Fprintln(stdout, n)
	default:
		return usagef("hostlist: unknown subcommand %q (expand, compress, count)", args[0])
	}
	return nil
}
