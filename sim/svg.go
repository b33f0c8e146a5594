package sim

import (
	"bufio"
	"fmt"
	"io"
	"slices"
	"time"
)

// WriteSVG draws two charts of a recorded run (Options.Record) as one SVG:
// utilization (allocated cores over all cores) over time, and a
// node-by-time Gantt chart with one colour per job.
func WriteSVG(w io.Writer, res *Result) error {
	if len(res.Records) == 0 {
		return fmt.Errorf("sim: WriteSVG needs a run made with Options.Record")
	}
	var t0, t1 time.Time
	for _, r := range res.Records {
		if r.Start.IsZero() {
			continue
		}
		if t0.IsZero() || r.Submit.Before(t0) {
			t0 = r.Submit
		}
		if r.End.After(t1) {
			t1 = r.End
		}
	}
	span := t1.Sub(t0).Seconds()
	if span <= 0 {
		span = 1
	}
	const width, plotH, ganttH, margin = 1000.0, 200.0, 400.0, 50.0
	x := func(t time.Time) float64 { return margin + (t.Sub(t0).Seconds()/span)*(width-2*margin) }
	b := bufio.NewWriter(w)
	fmt.Fprintf(b, `<svg xmlns="http://www.w3.org/2000/svg" width="%.0f" height="%.0f" font-family="sans-serif" font-size="12">`+"\n",
		width, plotH+ganttH+3*margin)
	fmt.Fprintf(b, `<text x="%.0f" y="20">%s — utilization over time (%s, backfill %v)</text>`+"\n", margin, res.Workload, res.Policy, res.Backfill)
	top := margin
	fmt.Fprintf(b, `<rect x="%.0f" y="%.0f" width="%.0f" height="%.0f" fill="none" stroke="#888"/>`+"\n", margin, top, width-2*margin, plotH)
	fmt.Fprintf(b, `<polyline fill="none" stroke="#1f77b4" stroke-width="1" points="`)
	y := func(u int) float64 { return top + plotH - float64(u)/float64(max(res.Cores, 1))*plotH }
	fmt.Fprintf(b, "%.1f,%.1f ", x(t0), y(0))
	prev := 0
	for _, p := range BusyCores(res) {
		fmt.Fprintf(b, "%.1f,%.1f %.1f,%.1f ", x(p.At), y(prev), x(p.At), y(p.Cores))
		prev = p.Cores
	}
	fmt.Fprint(b, `"/>`+"\n")
	// Gantt: nodes down, time across; runs of consecutive nodes as one bar
	gtop := top + plotH + margin
	fmt.Fprintf(b, `<text x="%.0f" y="%.0f">nodes (0 at the top) by time</text>`+"\n", margin, gtop-8)
	fmt.Fprintf(b, `<rect x="%.0f" y="%.0f" width="%.0f" height="%.0f" fill="none" stroke="#888"/>`+"\n", margin, gtop, width-2*margin, ganttH)
	rowH := ganttH / float64(max(res.Nodes, 1))
	for k, r := range res.Records {
		if r.Start.IsZero() || len(r.Nodes) == 0 {
			continue
		}
		colour := fmt.Sprintf("hsl(%d,65%%,55%%)", (k*47)%360)
		nodes := slices.Clone(r.Nodes)
		slices.Sort(nodes)
		for i := 0; i < len(nodes); {
			j := i
			for j+1 < len(nodes) && nodes[j+1] == nodes[j]+1 {
				j++
			}
			fmt.Fprintf(b, `<rect x="%.1f" y="%.2f" width="%.1f" height="%.2f" fill="%s"/>`+"\n",
				x(r.Start), gtop+float64(nodes[i])*rowH, max(0.5, x(r.End)-x(r.Start)), float64(j-i+1)*rowH, colour)
			i = j + 1
		}
	}
	fmt.Fprintln(b, "</svg>")
	return b.Flush()
}

// BusyPoint is the number of allocated cores from At on.
type BusyPoint struct {
	At    time.Time
	Cores int
}

// BusyCores is the step function of allocated cores of a recorded run,
// one point per moment something changed.
func BusyCores(res *Result) []BusyPoint {
	type step struct {
		at    time.Time
		delta int
	}
	var steps []step
	for _, r := range res.Records {
		if !r.Start.IsZero() {
			steps = append(steps, step{r.Start, r.CPUs}, step{r.End, -r.CPUs})
		}
	}
	slices.SortStableFunc(steps, func(a, c step) int { return a.at.Compare(c.at) })
	var out []BusyPoint
	used := 0
	for k := 0; k < len(steps); {
		at := steps[k].at
		for ; k < len(steps) && steps[k].at.Equal(at); k++ {
			used += steps[k].delta // every change at one moment together
		}
		out = append(out, BusyPoint{at, used})
	}
	return out
}
