package sim

import (
	"fmt"
	"io"
	"math"
	"slices"
	"time"
)

// The charts of a run and of a comparison of runs: the figures of seed
// 001 §4 (utilization over time, the distribution of waits, the
// lowest-common-switch level histogram, the spread) and a Gantt chart for
// small runs. Every series is downsampled to a fixed number of points, so
// a file stays small (well under 300 KB) whatever the trace's length.

const (
	utilBins   = 300  // points of a utilization-over-time series
	cdfPoints  = 150  // points of a wait CDF
	ganttBars  = 2500 // the most Gantt bars drawn; larger runs omit it
	spreadBins = 20
)

// timeUnit picks hours, minutes or days for a span of seconds.
func timeUnit(span float64) (div float64, name string) {
	switch {
	case span > 60*86400:
		return 86400, "days"
	case span > 3*3600:
		return 3600, "h"
	}
	return 60, "min"
}

// runSpan is the first submission and the last end of the started jobs.
func runSpan(res *Result) (t0, t1 time.Time) {
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
	return t0, t1
}

// utilSeries is the busy fraction of cores (%), time-averaged over bins
// equal bins from the first submission to the last end (seconds).
func utilSeries(res *Result, bins int) (xs, ys []float64) {
	t0, t1 := runSpan(res)
	span := t1.Sub(t0).Seconds()
	if span <= 0 || res.Cores == 0 {
		return nil, nil
	}
	width := span / float64(bins)
	area := make([]float64, bins) // core-seconds per bin
	pts := BusyCores(res)
	for k, p := range pts {
		end := t1
		if k+1 < len(pts) {
			end = pts[k+1].At
		}
		a, b := p.At.Sub(t0).Seconds(), end.Sub(t0).Seconds()
		for i := max(0, int(a/width)); i < bins && float64(i)*width < b; i++ {
			lo, hi := math.Max(a, float64(i)*width), math.Min(b, float64(i+1)*width)
			if hi > lo {
				area[i] += (hi - lo) * float64(p.Cores)
			}
		}
	}
	for i := range area {
		xs = append(xs, (float64(i)+0.5)*width)
		ys = append(ys, 100*area[i]/width/float64(res.Cores))
	}
	return xs, ys
}

// waitCDF is the share of started jobs (%) that waited at most x seconds,
// at up to n quantiles.
func waitCDF(res *Result, n int) (xs, ys []float64) {
	var waits []float64
	for _, r := range res.Records {
		if !r.Start.IsZero() {
			waits = append(waits, r.Start.Sub(r.Submit).Seconds())
		}
	}
	if len(waits) == 0 {
		return nil, nil
	}
	slices.Sort(waits)
	xs, ys = []float64{0}, []float64{0}
	for k := 1; k <= n; k++ {
		i := min(len(waits)-1, (k*len(waits)+n-1)/n-1)
		xs = append(xs, waits[i])
		ys = append(ys, 100*float64(i+1)/float64(len(waits)))
	}
	return xs, ys
}

// levelShares are, per lowest-common-switch level, the shares (%) of the
// jobs and of the total job duration.
func levelShares(res *Result) (jobs, durations []float64) {
	var total, dur float64
	for _, r := range res.Records {
		if r.Start.IsZero() || r.Level < 0 {
			continue
		}
		for len(jobs) <= r.Level {
			jobs, durations = append(jobs, 0), append(durations, 0)
		}
		d := r.End.Sub(r.Start).Seconds()
		jobs[r.Level]++
		durations[r.Level] += d
		total++
		dur += d
	}
	for i := range jobs {
		jobs[i] = 100 * jobs[i] / math.Max(total, 1)
		durations[i] = 100 * durations[i] / math.Max(dur, 1e-9)
	}
	return jobs, durations
}

func spreads(res *Result) []float64 {
	var out []float64
	for _, r := range res.Records {
		if !r.Start.IsZero() {
			out = append(out, float64(r.Spread))
		}
	}
	return out
}

// RunTitle names a run: workload, cluster, policy and backfill.
func RunTitle(res *Result) string {
	return fmt.Sprintf("%s on %s — %s", res.Workload, res.Cluster, PolicyLabel(res))
}

// PolicyLabel is "FCFS", "FCFS + EASY backfill" and so on.
func PolicyLabel(res *Result) string {
	switch res.Backfill {
	case Conservative:
		return res.Policy + " + conservative backfill"
	case EASY:
		return res.Policy + " + EASY backfill"
	}
	return res.Policy
}

// WriteSVG draws the charts of a recorded run (Options.Record) as one SVG:
// utilization over time, the wait CDF, the lowest-common-switch level
// histogram, the spread histogram, and a Gantt chart (nodes by time) when
// the run is small enough to draw it legibly.
func WriteSVG(w io.Writer, res *Result) error {
	if len(res.Records) == 0 {
		return fmt.Errorf("sim: WriteSVG needs a run made with Options.Record")
	}
	const width, pw, ph = 1100.0, 440.0, 220.0
	height := 2*ph + 260.0
	bars := ganttBarCount(res)
	if bars > 0 && bars <= ganttBars {
		height += 420
	}
	s := beginSVG(w, width, height, RunTitle(res))
	runs := []*Result{res}
	drawUtil(s, runs, 80, 60, pw, ph)
	drawCDF(s, runs, 80+pw+110, 60, pw, ph)
	drawLevels(s, runs, 80, 60+ph+90, pw, ph)
	drawSpreadHistogram(s, res, 80+pw+110, 60+ph+90, pw, ph)
	top := 60 + 2*ph + 180
	switch {
	case bars > ganttBars:
		s.text(80, top, "start", "", fmt.Sprintf("Gantt chart omitted: %d bars, over the %d-bar budget of a readable chart", bars, ganttBars))
	case bars > 0:
		drawGantt(s, res, 80, top+10, width-140, 380)
	}
	return s.end()
}

// WriteComparisonSVG draws runs of the same workloads side by side: one
// row per workload, with utilization over time, the wait CDF, the level
// histogram and the spread (mean and standard deviation) per policy.
func WriteComparisonSVG(w io.Writer, runs []*Result) error {
	var order []string
	rows := map[string][]*Result{}
	for _, r := range runs {
		if len(r.Records) == 0 {
			return fmt.Errorf("sim: WriteComparisonSVG needs runs made with Options.Record")
		}
		if rows[r.Workload] == nil {
			order = append(order, r.Workload)
		}
		rows[r.Workload] = append(rows[r.Workload], r)
	}
	const pw, ph, rowH = 300.0, 200.0, 300.0
	width := 4*(pw+90) + 40
	title := "Policies compared"
	if len(runs) > 0 {
		title += " on " + runs[0].Cluster
	}
	s := beginSVG(w, width, 40+rowH*float64(len(order)), title)
	for k, wl := range order {
		y := 70 + rowH*float64(k)
		rs := rows[wl]
		s.text(20, y-30, "start", ` font-weight="bold" font-size="13"`, wl)
		s.legendAt(200, y-30, labels(rs), true)
		drawUtil(s, rs, 80, y, pw, ph)
		drawCDF(s, rs, 80+(pw+90), y, pw, ph)
		drawLevels(s, rs, 80+2*(pw+90), y, pw, ph)
		drawSpreadPerPolicy(s, rs, 80+3*(pw+90), y, pw, ph)
	}
	return s.end()
}

func labels(runs []*Result) []string {
	out := make([]string, len(runs))
	for i, r := range runs {
		out[i] = PolicyLabel(r)
	}
	return out
}

func drawUtil(s *svgWriter, runs []*Result, x, y, w, h float64) {
	span := 0.0
	for _, r := range runs {
		t0, t1 := runSpan(r)
		span = math.Max(span, t1.Sub(t0).Seconds())
	}
	div, unit := timeUnit(span)
	p := s.newPanel(x, y, w, h, "Utilization over time", 0, math.Max(span/div, 1e-9), 0, 100,
		"time since the first submission ("+unit+")", "cores busy (%)")
	for i, r := range runs {
		xs, ys := utilSeries(r, utilBins)
		for k := range xs {
			xs[k] /= div
		}
		s.line(p, xs, ys, colour(i))
	}
	if len(runs) > 1 && runs[0].Workload != runs[1].Workload {
		s.legend(p, labels(runs))
	}
}

// waitTicks are the round waits a log-scaled wait axis is marked at.
var waitTicks = [...]struct {
	sec   float64
	label string
}{{0, "0"}, {10, "10 s"}, {60, "1 min"}, {600, "10 min"}, {3600, "1 h"},
	{86400, "1 d"}, {864000, "10 d"}, {8640000, "100 d"}}

// drawCDF plots the wait CDFs against log10(1 + wait in seconds), so that
// runs whose waits differ by orders of magnitude stay readable side by side.
func drawCDF(s *svgWriter, runs []*Result, x, y, w, h float64) {
	most := 10.0
	series := make([][2][]float64, len(runs))
	for i, r := range runs {
		xs, ys := waitCDF(r, cdfPoints)
		series[i] = [2][]float64{xs, ys}
		if len(xs) > 0 {
			most = math.Max(most, xs[len(xs)-1])
		}
	}
	logw := func(sec float64) float64 { return math.Log10(1 + sec) }
	var xt []float64
	var labels []string
	for _, t := range waitTicks {
		if t.sec <= most*1.5 {
			xt, labels = append(xt, logw(t.sec)), append(labels, t.label)
		}
	}
	p := s.frame(x, y, w, h, "Distribution of waits (CDF)", axis{0, logw(most), x, x + w, "wait (log scale)"},
		xt, labels, 0, 100, "jobs that waited at most x (%)")
	for i, xy := range series {
		xs := slices.Clone(xy[0])
		for k := range xs {
			xs[k] = logw(xs[k])
		}
		s.line(p, xs, xy[1], colour(i))
	}
}

// drawLevels: one bar group per level; with one run, the shares of jobs
// and of job durations (seed 001 Fig. 4 a and b), else the share of jobs
// per run.
func drawLevels(s *svgWriter, runs []*Result, x, y, w, h float64) {
	var series [][]float64
	var names []string
	if len(runs) == 1 {
		jobs, durs := levelShares(runs[0])
		series, names = [][]float64{jobs, durs}, []string{"% of jobs", "% of job durations"}
	} else {
		for _, r := range runs {
			jobs, _ := levelShares(r)
			series = append(series, jobs)
		}
		names = labels(runs)
	}
	levels := 0
	for _, v := range series {
		levels = max(levels, len(v))
	}
	if levels == 0 {
		s.newPanel(x, y, w, h, "Lowest-level common switch", 0, 1, 0, 100, "level", "jobs (%)")
		s.text(x+w/2, y+h/2, "middle", ` fill="#666"`, "no switch tree: levels unknown")
		return
	}
	cats := make([]string, levels)
	for i := range cats {
		cats[i] = fmt.Sprint(i)
	}
	p := s.newCategoryPanel(x, y, w, h, "Lowest-level common switch", cats, 0, 100, "switch level (0 = leaf)", "share (%)")
	bw := 0.8 / float64(len(series))
	for i, v := range series {
		for l, share := range v {
			x0 := float64(l) - 0.4 + float64(i)*bw
			s.bar(p, x0, x0+bw, share, colour(i))
		}
	}
	if len(runs) == 1 {
		s.legend(p, names) // a comparison has one legend per row
	}
}

func drawSpreadHistogram(s *svgWriter, res *Result, x, y, w, h float64) {
	sp := spreads(res)
	most := 0.0
	for _, v := range sp {
		most = math.Max(most, v)
	}
	width := math.Max(1, math.Ceil((most+1)/spreadBins))
	counts := make([]float64, spreadBins)
	for _, v := range sp {
		counts[min(spreadBins-1, int(v/width))]++
	}
	top := 0.0
	for i := range counts {
		counts[i] = 100 * counts[i] / math.Max(1, float64(len(sp)))
		top = math.Max(top, counts[i])
	}
	p := s.newPanel(x, y, w, h, "Spread (first to last node)", 0, width*spreadBins, 0, math.Max(top, 1),
		"spread (nodes)", "jobs (%)")
	for i, c := range counts {
		s.bar(p, float64(i)*width, float64(i+1)*width*0.98+0.02*float64(i)*width, c, colour(0))
	}
}

// drawSpreadPerPolicy: a bar per run at the mean spread, with a whisker of
// one standard deviation (seed 001 Fig. 3 b).
func drawSpreadPerPolicy(s *svgWriter, runs []*Result, x, y, w, h float64) {
	top := 1.0
	for _, r := range runs {
		top = math.Max(top, r.Metrics.SpreadMean+r.Metrics.SpreadStd)
	}
	cats := make([]string, len(runs))
	for i, r := range runs {
		cats[i] = r.Policy
		if r.Backfill != NoBackfill {
			cats[i] += "+" + r.Backfill.String()
		}
	}
	p := s.newCategoryPanel(x, y, w, h, "Spread per policy (mean ± sd)", cats, 0, top, "policy", "spread (nodes)")
	for i, r := range runs {
		m := r.Metrics
		s.bar(p, float64(i)-0.3, float64(i)+0.3, m.SpreadMean, colour(i))
		cx := p.xa.at(float64(i))
		s.printf(`<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#000"/>`+"\n",
			cx, p.ya.at(math.Max(0, m.SpreadMean-m.SpreadStd)), cx, p.ya.at(m.SpreadMean+m.SpreadStd))
	}
}

// ganttBarCount is how many bars a Gantt chart of res needs (one per run
// of consecutive nodes of a job).
func ganttBarCount(res *Result) int {
	n := 0
	for _, r := range res.Records {
		runs(r.Nodes, func(int, int) { n++ })
	}
	return n
}

// runs calls f for each run [a, b] of consecutive values of the sorted
// nodes.
func runs(nodes []int, f func(a, b int)) {
	for i := 0; i < len(nodes); {
		j := i
		for j+1 < len(nodes) && nodes[j+1] == nodes[j]+1 {
			j++
		}
		f(nodes[i], nodes[j])
		i = j + 1
	}
}

func drawGantt(s *svgWriter, res *Result, x, y, w, h float64) {
	t0, t1 := runSpan(res)
	div, unit := timeUnit(t1.Sub(t0).Seconds())
	p := s.newPanel(x, y+20, w, h-60, "Gantt chart: nodes by time, one colour per job", 0, math.Max(t1.Sub(t0).Seconds()/div, 1e-9),
		0, float64(res.Nodes), "time since the first submission ("+unit+")", "node index")
	for k, r := range res.Records {
		if r.Start.IsZero() {
			continue
		}
		a, b := r.Start.Sub(t0).Seconds()/div, r.End.Sub(t0).Seconds()/div
		col := fmt.Sprintf("hsl(%d,65%%,55%%)", (k*47)%360)
		runs(r.Nodes, func(lo, hi int) {
			y0, y1 := p.ya.at(float64(lo)), p.ya.at(float64(hi+1))
			s.printf(`<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="%s"/>`+"\n",
				p.xa.at(a), math.Min(y0, y1), math.Max(0.5, p.xa.at(b)-p.xa.at(a)), math.Max(0.5, math.Abs(y1-y0)), col)
		})
	}
}
