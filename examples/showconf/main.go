package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"github.com/hpcsched/hpcsched/hostlist"
	"github.com/hpcsched/hpcsched/slurmconf"
)

func main() {
	path := filepath.Join("examples", "showconf", "slurm.conf")
	if len(os.Args) > 1 {
		path = os.Args[1]
	}
	if err := run(os.Stdout, path); err != nil {
		fmt.Fprintln(os.Stderr, "showconf:", err)
		os.Exit(1)
	}
}

func run(out *os.File, path string) error {
	abs, err := filepath.Abs(path)
	if err != nil {
		return err
	}
	// Reading through the file's folder lets Include lines resolve beside it.
	cfg, err := slurmconf.ParseFile(os.DirFS(filepath.Dir(abs)), filepath.Base(abs))
	if err != nil {
		return err
	}
	if err := cfg.Validate(); err != nil {
		return err
	}
	lines := 0 // lines configured alike are folded into one NodeLine: count the file's
	for i := range cfg.Nodes {
		lines += cfg.Nodes[i].Lines()
	}
	fmt.Fprintf(out, "cluster %q: %d nodes in %d node lines, %d partitions; %s, %s\n\n",
		cfg.ClusterName, cfg.NodeCount(), lines, len(cfg.Partitions), orNone(cfg.SelectType), orNone(cfg.SchedulerType))

	w := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(w, "NODES\tCOUNT\tCPUS\tMEMORY(MB)\tWEIGHT\tFEATURES\tGRES")
	for _, n := range cfg.Nodes {
		var gres []string
		for _, g := range n.Gres {
			gres = append(gres, g.String())
		}
		fmt.Fprintf(w, "%s\t%d\t%d\t%d\t%d\t%s\t%s\n", hostlist.Compress(n.Names), len(n.Names), n.CPUs,
			n.RealMemory, n.Weight, orNone(strings.Join(n.Features, ",")), orNone(strings.Join(gres, ",")))
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "PARTITION\tNODES\tCOUNT\tDEFAULT\tMAXTIME\tMAXNODES\tSHARING\tSTATE")
	for i := range cfg.Partitions {
		p := &cfg.Partitions[i]
		nodes := cfg.PartitionNodes(p)
		maxNodes := "UNLIMITED"
		if p.MaxNodes != slurmconf.UnlimitedNodes {
			maxNodes = fmt.Sprint(p.MaxNodes)
		}
		maxTime := "UNLIMITED"
		if p.MaxTime != 0 {
			maxTime = slurmconf.FormatDuration(p.MaxTime)
		}
		fmt.Fprintf(w, "%s\t%s\t%d\t%v\t%s\t%s\t%s:%d\t%s\n", p.Name, hostlist.CompressSorted(nodes), len(nodes),
			p.Default, maxTime, maxNodes, p.Sharing.Mode, p.Sharing.Count, p.State)
	}
	return w.Flush()
}

func orNone(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
