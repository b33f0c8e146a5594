package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/hpcsched/hpcsched/sim"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: replay TRACE.swf[.gz] [max-jobs]")
		os.Exit(2)
	}
	if err := replay(os.Args[1], os.Args[2:]); err != nil {
		fmt.Fprintln(os.Stderr, "replay:", err)
		os.Exit(1)
	}
}

func replay(path string, rest []string) error {
	trace, err := sim.OpenSWF(os.DirFS(filepath.Dir(path)), filepath.Base(path), sim.SWFOptions{SkipMalformed: true})
	if err != nil {
		return err
	}
	cluster, err := trace.ClusterFor(nil, nil)
	if err != nil {
		return err
	}
	w := trace.Workload(filepath.Base(path), cluster)
	if len(rest) > 0 {
		var n int
		if _, err := fmt.Sscan(rest[0], &n); err == nil && n < len(w.Jobs) {
			w.Jobs = w.Jobs[:n]
		}
	}
	res, err := sim.Run(cluster, w, sim.Options{Backfill: sim.EASY})
	if err != nil {
		return err
	}
	m := res.Metrics
	fmt.Printf("%s: %d jobs on %d nodes, %d started, %d rejected\n", res.Workload, res.Jobs, res.Nodes, res.Started, res.Rejected)
	fmt.Printf("utilization %.1f%%, mean wait %v, bounded slowdown %.2f, makespan %v\n",
		100*m.Utilization, m.WaitMean, m.BoundedSlowdown, m.Makespan)
	return nil
}
