package main

import (
	"errors"
	"fmt"
	"io"

	"github.com/hpcsched/hpcsched/sim"
)

// collector turns the runs' outcomes, arriving in any order, into rows
// in cell order: a row is made and printed as soon as its runs and every
// run before them are in. A run that fails does not stop the others: its
// row (with --seeds, the row of its workload and policy) is left out, the
// rows of the runs that ended are printed and written as without it, and
// finish names every failed run. What is printed depends only on the
// outcomes, not on the order they came in: -j N prints what -j 1 does.
type collector struct {
	f       *simFlags
	cells   []cell
	outs    []cellOut
	have    []bool
	next    int // the first cell not yet made into a row
	rows    []row
	results []*sim.Result // each group's first run, for the charts
	failed  []error       // the failed runs, in cell order, each naming its run
	printer *rowPrinter
	err     error // stdout could not be written
}

func newCollector(f *simFlags, cells []cell, stdout io.Writer) *collector {
	return &collector{f: f, cells: cells, outs: make([]cellOut, len(cells)), have: make([]bool, len(cells)),
		printer: newRowPrinter(f, cells, stdout)}
}

// put takes cell i's outcome and prints the rows it completes; it
// returns false once the runs left are not worth starting (stdout cannot
// be written).
func (c *collector) put(i int, o cellOut) bool {
	c.outs[i], c.have[i] = o, true
	for c.err == nil && c.next < len(c.cells) {
		k, end := c.next, c.next
		for ; end < len(c.cells) && c.cells[end].group == c.cells[k].group; end++ {
			if !c.have[end] {
				return true
			}
		}
		c.next = end
		group, failed := make([]row, 0, end-k), false
		for j, o := range c.outs[k:end] {
			if o.err != nil {
				c.failed, failed = append(c.failed, c.named(k+j, o.err)), true
			}
			group = append(group, o.row)
		}
		first := c.outs[k].res
		clear(c.outs[k:end]) // the results of a group's other runs are not kept
		if failed {
			continue // a mean over the seeds that ran would pass for one over all
		}
		r := aggregate(group)
		c.rows, c.results = append(c.rows, r), append(c.results, first)
		if err := c.printer.add(r); err != nil {
			c.err = err
		}
	}
	return c.err == nil
}

// runFailure is one failed run, named as its progress line names it.
type runFailure struct {
	cell int
	name string
	err  error
}

func (e *runFailure) Error() string { return e.name + ": " + e.err.Error() }
func (e *runFailure) Unwrap() error { return e.err }

// named wraps cell i's error with the run's name; a single run's error
// is its own (the command line names the run).
func (c *collector) named(i int, err error) error {
	cl := c.cells[i]
	name := cl.workload + " " + cl.variant.String()
	if cl.seeded && len(c.f.seeds) > 1 {
		name += fmt.Sprintf(" seed %d", cl.seed)
	}
	return &runFailure{cell: i, name: name, err: err}
}

// runsFailed is the error of a comparison some of whose runs failed
// while the others' rows were printed: exit code 1, not 2 (bad input,
// nothing on stdout).
type runsFailed struct{ msg string }

func (e runsFailed) Error() string { return e.msg }

// finish writes --svg and --out and the JSON document of the rows made,
// explains the jobs that never ran (after the table; on stderr for JSON
// and CSV), then names the failed runs. A single run's failure is its
// error as it was; when every run failed nothing is printed or written
// (exit code 2); when some did, the error is a runsFailed (exit code 1).
func (c *collector) finish(stderr io.Writer) error {
	if c.err != nil {
		return c.err
	}
	if c.next < len(c.cells) {
		return fmt.Errorf("simulate: %d of %d runs did not run", len(c.cells)-c.next, len(c.cells))
	}
	if len(c.failed) > 0 && len(c.cells) == 1 {
		return errors.Unwrap(c.failed[0])
	}
	if len(c.rows) > 0 {
		if err := c.f.writeFiles(c.results, c.rows); err != nil {
			return err
		}
		if err := c.printer.finish(c.rows); err != nil {
			return err
		}
		notes := c.printer.w
		if c.f.asJSON || c.f.asCSV {
			notes = stderr
		}
		writeNotes(notes, c.rows)
		writeLedgerNotes(notes, c.rows)
	}
	if len(c.failed) == 0 {
		return nil
	}
	for _, e := range c.failed {
		fmt.Fprintln(stderr, "simulate: failed:", e)
	}
	if len(c.rows) == 0 {
		return fmt.Errorf("simulate: every one of the %d runs failed (named above)", len(c.cells))
	}
	return runsFailed{fmt.Sprintf("simulate: %d of %d runs failed (named above); the rows of the others are printed",
		len(c.failed), len(c.cells))}
}
