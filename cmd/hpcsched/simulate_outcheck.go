package main

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/hpcsched/hpcsched/sim"
)

// checkOutputs refuses an --out that is not a directory, an --svg or
// --jobs file in a missing directory, two runs with one --jobs file (the
// second overwrote the first, or stopped the comparison half done) and,
// without --force, files of --svg, --out and --jobs that exist.
func (f *simFlags) checkOutputs(cells []cell) error {
	if f.out != "" {
		if st, err := os.Stat(f.out); err == nil && !st.IsDir() {
			return usagef("simulate: --out %s is not a directory", f.out)
		}
	}
	// a file in a missing directory would fail only when written: --svg's
	// after the run
	for _, o := range [][2]string{{"--svg", f.svg}, {"--jobs", f.jobs}} {
		if o[1] == "" {
			continue
		}
		if st, err := os.Stat(filepath.Dir(o[1])); err != nil || !st.IsDir() {
			return usagef("simulate: %s %s: %s is not a directory", o[0], o[1], filepath.Dir(o[1]))
		}
	}
	var paths []string
	if f.out != "" {
		// two runs with one chart name (one trace name in two folders,
		// a --compare item twice) would be found only after every run
		seen := map[string]bool{}
		for _, c := range cells {
			if !c.first {
				continue
			}
			p := filepath.Join(f.out, fileName(&sim.Result{Workload: cellName(c.workload), Policy: strings.ToUpper(c.variant.policy), Backfill: c.variant.backfill}))
			if seen[p] {
				return usagef("simulate: two runs would write %s (the same workload and policy twice?)", p)
			}
			seen[p] = true
		}
	}
	if f.jobs != "" {
		if ext := strings.ToLower(filepath.Ext(f.jobs)); ext != ".csv" && ext != ".swf" {
			// each run would refuse it as it starts: refused once, here
			return usagef("simulate: --jobs %s: want a .csv or .swf file", f.jobs)
		}
		seen := map[string]bool{}
		for _, c := range cells {
			p := f.jobsFile(c)
			if seen[p] {
				return usagef("simulate: two runs would write --jobs %s (the same workload, policy and seed twice?)", p)
			}
			seen[p] = true
			paths = append(paths, p)
		}
	}
	if f.svg != "" {
		paths = append(paths, f.svg)
	}
	if f.out != "" {
		for _, c := range cells {
			if c.first {
				res := &sim.Result{Workload: cellName(c.workload), Policy: strings.ToUpper(c.variant.policy), Backfill: c.variant.backfill}
				paths = append(paths, filepath.Join(f.out, fileName(res)))
			}
		}
		if cells[len(cells)-1].group > 0 {
			paths = append(paths, filepath.Join(f.out, "comparison.svg"))
		}
		paths = append(paths, filepath.Join(f.out, "results.json"), filepath.Join(f.out, "results.csv"))
	}
	if err := outputsApart(paths); err != nil {
		return err
	}
	if err := f.checkNotInputs(cells, paths); err != nil {
		return err
	}
	if f.force {
		return nil
	}
	for _, p := range paths {
		if _, err := os.Stat(p); err == nil {
			return usagef("simulate: %s exists; remove it or pass --force", p)
		}
	}
	return nil
}

// outputsApart refuses two outputs of one name (--jobs and --svg, or
// --jobs and --out's results.csv): the second written would replace the
// first after the run, or, without --force, stop the run's writes half
// done.
func outputsApart(paths []string) error {
	seen := map[string]string{}
	for _, p := range paths {
		key, err := filepath.Abs(p)
		if err != nil {
			key = filepath.Clean(p)
		}
		if first, ok := seen[key]; ok && first == p {
			return usagef("simulate: %s would be written twice (--jobs, --svg and --out each name it); give the outputs other names", p)
		} else if ok {
			return usagef("simulate: %s and %s are one file, written twice; give the outputs other names", first, p)
		}
		seen[key] = p
	}
	return nil
}

// checkNotInputs refuses an output file that is one of the run's inputs
// (a trace, --machines, --conf, --topology, --ledger), even with --force:
// a --jobs file written over the trace it replays truncates the trace
// under the reader, and the input is lost.
func (f *simFlags) checkNotInputs(cells []cell, outputs []string) error {
	inputs := []string{f.machines, f.conf, f.topo, f.ledgerPath}
	for _, c := range cells {
		if !c.seeded {
			inputs = append(inputs, c.workload)
		}
	}
	for _, out := range outputs {
		st, err := os.Stat(out)
		if err != nil {
			continue // not there yet: no input
		}
		for _, in := range inputs {
			if ist, err := os.Stat(in); in != "" && err == nil && os.SameFile(st, ist) {
				return usagef("simulate: %s would overwrite %s, an input of the run; write the output elsewhere", out, in)
			}
		}
	}
	return nil
}
