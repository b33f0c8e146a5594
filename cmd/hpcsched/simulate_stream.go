package main

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"unicode/utf8"
)

// rowPrinter prints simulate's rows on stdout as they come, in order: the
// table and CSV one row at a time (a long comparison shows its first rows
// while the others still run), JSON as one document at the end (so that
// an error leaves no half-written JSON). The table's columns cannot be
// fitted to rows not yet run, so each is as wide as its heading, the
// longest workload or policy name, or a reserve for the measures that
// outgrow their heading; a wider value pushes only its own row.
type rowPrinter struct {
	w              io.Writer
	asCSV, asJSON  bool
	timing, seeded bool
	widths         []int
	started        bool
	err            error
}

// tableHead is the table's heading, one cell per column.
var tableHead = []string{"Workload", "Policy", "Avg. lowest level common switch", "Avg. spread", "Utilization (%)",
	"Busy (%)", "Wait mean/median/p95 (s)", "Bounded slowdown", "Makespan (s)", "Jobs (started/rejected/stuck)"}

// Reserved widths of the measures that can be wider than their heading:
// a generated workload's spread ("560.8 ± 310.8") and, over seeds, its
// waits ("19576 ± 1032 / 19647 / 37241").
const (
	spreadReserve     = 13
	seededWaitReserve = 28
)

func newRowPrinter(f *simFlags, cells []cell, w io.Writer) *rowPrinter {
	p := &rowPrinter{w: w, asCSV: f.asCSV, asJSON: f.asJSON, timing: f.timing, seeded: seededCells(cells)}
	head := tableHead
	if p.timing {
		head = append(head[:len(head):len(head)], "Jobs/s")
	}
	p.widths = make([]int, len(head))
	for i, h := range head {
		p.widths[i] = utf8.RuneCountInString(h)
	}
	for _, c := range cells {
		p.widths[0] = max(p.widths[0], utf8.RuneCountInString(cellName(c.workload)))
		p.widths[1] = max(p.widths[1], utf8.RuneCountInString(c.variant.label()))
	}
	if slices.ContainsFunc(cells, func(c cell) bool { return c.seeded }) {
		// generated workloads run on a switch tree of 1,024 nodes, whose
		// spreads have three digits; a trace's cluster is smaller as a rule
		p.widths[3] = max(p.widths[3], spreadReserve)
	}
	if p.seeded {
		p.widths[6] = max(p.widths[6], seededWaitReserve)
	}
	return p
}

// seededCells says whether some row is a mean over seeds (a group of
// several runs), which adds the CSV's standard-deviation columns.
func seededCells(cells []cell) bool {
	for i := 1; i < len(cells); i++ {
		if cells[i].group == cells[i-1].group {
			return true
		}
	}
	return false
}

// cellName is the name a run's row gives its workload: a generated
// workload's spec ("aucsched:5'"), a trace's file name without its
// extensions.
func cellName(workload string) string {
	if strings.HasPrefix(workload, "aucsched:") {
		return workload
	}
	return traceName(workload)
}

// label is the policy column of a variant's row.
func (v variant) label() string {
	return row{Policy: strings.ToUpper(v.policy), Backfill: v.backfill.String()}.label()
}

// add prints one row (the heading first); JSON rows wait for finish.
func (p *rowPrinter) add(r row) error {
	if p.asJSON || p.err != nil {
		return p.err
	}
	if p.asCSV {
		cw := csv.NewWriter(p.w)
		if !p.started {
			_ = cw.Write(csvHead(p.seeded, p.timing))
		}
		_ = cw.Write(csvRecord(r, p.seeded, p.timing))
		cw.Flush()
		p.err = cw.Error()
	} else {
		var b strings.Builder
		if !p.started {
			head := tableHead
			if p.timing {
				head = append(head[:len(head):len(head)], "Jobs/s")
			}
			p.line(&b, head)
		}
		p.line(&b, tableCells(r, p.timing))
		_, p.err = io.WriteString(p.w, b.String())
	}
	p.started = true
	return p.err
}

// finish prints the JSON document of every row.
func (p *rowPrinter) finish(rows []row) error {
	if p.err != nil || !p.asJSON {
		return p.err
	}
	enc := json.NewEncoder(p.w)
	enc.SetIndent("", "  ")
	return enc.Encode(rows)
}

// line writes cells padded as text/tabwriter would with padding 2 and
// the printer's widths; a cell wider than its column pushes the cells
// after it only until a later column has room to catch up.
func (p *rowPrinter) line(b *strings.Builder, cells []string) {
	at, end := 0, 0
	for i, c := range cells {
		b.WriteString(c)
		at += utf8.RuneCountInString(c)
		if i == len(cells)-1 {
			break
		}
		end += p.widths[i] + 2
		pad := max(end-at, 2)
		b.WriteString(strings.Repeat(" ", pad))
		at += pad
	}
	b.WriteByte('\n')
}

// tableCells is a row's cells in the table.
func tableCells(r row, timing bool) []string {
	level := "-"
	if r.LevelKnown {
		level = fmt.Sprintf("%.2f ± %.2f", *r.LevelMean, *r.LevelStd)
	}
	util, wait, bsld := fmt.Sprintf("%.0f", r.Utilization), fmt.Sprintf("%.0f", r.WaitMean), fmt.Sprintf("%.2f", r.BoundedSlowdown)
	if r.Std != nil { // over the seeds
		util += fmt.Sprintf(" ± %.1f", r.Std.Utilization)
		wait += fmt.Sprintf(" ± %.0f", r.Std.WaitMean)
		bsld += fmt.Sprintf(" ± %.2f", r.Std.BoundedSlowdown)
	}
	cells := []string{r.Workload, r.label(), level, fmt.Sprintf("%.1f ± %.1f", r.SpreadMean, r.SpreadStd), util,
		fmt.Sprintf("%.0f", r.Busy), fmt.Sprintf("%s / %.0f / %.0f", wait, r.WaitMedian, r.WaitP95), bsld,
		fmt.Sprintf("%.0f", r.Makespan), fmt.Sprintf("%d (%d/%d/%d)", r.Jobs, r.Started, r.Rejected, r.Stuck)}
	if timing {
		cells = append(cells, fmt.Sprintf("%.0f", r.JobsPerSecond))
	}
	return cells
}
