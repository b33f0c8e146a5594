package sim

import (
	"cmp"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"time"
)

// The charts of a run and of a comparison of runs: the figures of the
// AUCSCHED3 paper's §4 (utilization over time, the distribution of waits, the
// lowest-common-switch level histogram, the spread) and a Gantt chart for
// small runs. Every series is downsampled to a fixed number of points, so
// a file stays small (well under 300 KB) whatever the trace's length.

const (
	utilBins   = 300 // points of a utilization-over-time series
	cdfPoints  = 150 // points of a wait CDF
	ganttBars  = 400 // the most Gantt bars drawn; larger runs omit it
	smoothBins = 9   // the moving average of the utilization series
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

// MaxChartLevels bounds the switch levels a chart draws: a record of a
// higher level (no real tree has one) is an error, not a chart of that
// many bars.
const MaxChartLevels = 64

// drawable says why runs cannot be drawn: a nil one, one without its
// records (made without Options.Record), or a record no run makes (a
// Result is the caller's, and may have been changed or decoded from a
// file): a negative spread, or a level below -1 or of MaxChartLevels or
// more. A run of no job is drawn empty.
func drawable(fn string, runs []*Result) error {
	for i, r := range runs {
		if r == nil {
			return fmt.Errorf("sim: %s: run %d is nil", fn, i)
		}
		if len(r.Records) < r.Jobs {
			return fmt.Errorf("sim: %s: %s has no job records to draw (make it with Options.Record)", fn, RunTitle(r))
		}
		for k := range r.Records {
			if rec := &r.Records[k]; rec.Spread < 0 || rec.Level < -1 || rec.Level >= MaxChartLevels {
				return fmt.Errorf("sim: %s: %s: record %d (%s) has spread %d and level %d (want a spread of 0 or more, a level of -1 to %d)",
					fn, RunTitle(r), k, rec.Name, rec.Spread, rec.Level, MaxChartLevels-1)
			}
		}
	}
	return nil
}

// RunTitle names a run: workload, cluster, policy and backfill.
func RunTitle(res *Result) string {
	if res == nil {
		return "no run"
	}
	return fmt.Sprintf("%s on %s — %s", res.Workload, res.Cluster, PolicyLabel(res))
}

// PolicyLabel is "FCFS", "FCFS + EASY backfill" and so on.
func PolicyLabel(res *Result) string {
	if res == nil {
		return ""
	}
	switch res.Backfill {
	case Conservative:
		return res.Policy + " + conservative backfill"
	case EASY:
		return res.Policy + " + EASY backfill"
	}
	return res.Policy
}

// WriteSVG draws the charts of a recorded run (Options.Record) as one SVG:
// utilization over time (a moving average), jobs waiting over time, the
// wait and bounded-slowdown CDFs, the lowest-common-switch level histogram
// (when the cluster has a switch tree), the spread histogram, and a Gantt
// chart (nodes by time) when the run is small enough to draw it legibly.
// A record no run makes (see MaxChartLevels) is an error.
func WriteSVG(w io.Writer, res *Result) error { return WriteSVGLike(w, res, nil) }

// WriteSVGLike is WriteSVG on the axes of the runs in like as well (the
// other policies of the same workload), so that their charts, drawn the
// same size, compare side by side.
func WriteSVGLike(w io.Writer, res *Result, like []*Result) error {
	if err := drawable("WriteSVG", append([]*Result{res}, like...)); err != nil {
		return err
	}
	all := append([]*Result{res}, like...)
	sc := scaleOf(all)
	panels := runPanels(all, true)
	const width, pw, ph = 1100.0, 440.0, 200.0
	rows := (len(panels) + 1) / 2
	top := 60 + float64(rows)*(ph+90)
	gantt := true // drawn only when every run of like can have one
	for _, r := range all {
		gantt = gantt && ganttBarCount(r) > 0 && ganttBarCount(r) <= ganttBars
	}
	height := top + 40
	if gantt {
		height += 380
	}
	s := beginSVG(w, width, height, RunTitle(res))
	s.text(width/2, 40, "middle", ` fill="#333"`, headline(res))
	runs := []*Result{res}
	for i, draw := range panels {
		draw(s, runs, sc, 80+float64(i%2)*(pw+110), 70+float64(i/2)*(ph+90), pw, ph)
	}
	switch bars := ganttBarCount(res); {
	case gantt:
		drawGantt(s, res, 80, top, width-140, 380)
	case bars > 0:
		s.text(80, top, "start", "", fmt.Sprintf("Gantt chart omitted: %d bars (more than %d, in this run or a run compared with it)", bars, ganttBars))
	}
	return s.end()
}

// panelFunc draws one chart of runs on the shared scale.
type panelFunc func(s *svgWriter, runs []*Result, sc scale, x, y, w, h float64)

// runPanels are the charts of runs: the level histogram only when some
// run has levels (a switch tree); one run's spread histogram when single,
// else the spread per policy.
func runPanels(runs []*Result, single bool) []panelFunc {
	out := []panelFunc{drawUtil, drawQueue, drawCDF, drawSlowdown}
	for _, r := range runs {
		if r.Metrics.LevelKnown {
			out = append(out, drawLevels)
			break
		}
	}
	if single {
		return append(out, drawSpreadHistogram)
	}
	return append(out, drawSpreadPerPolicy)
}

// headline is a run's figures in one line: the comparison's first words.
func headline(r *Result) string {
	m := r.Metrics
	return fmt.Sprintf("mean wait %s s, utilization %.1f%%, bounded slowdown %.2f, %d jobs",
		groupDigits(m.WaitMean.Seconds()), 100*m.Utilization, m.BoundedSlowdown, r.Jobs)
}

// groupDigits prints a count of seconds with thousands separators.
func groupDigits(v float64) string {
	digits := fmt.Sprintf("%.0f", v)
	var b strings.Builder
	for i, c := range digits {
		if i > 0 && (len(digits)-i)%3 == 0 && digits[i-1] != '-' {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}

// WriteComparisonSVG draws runs of the same workloads side by side: one
// row per workload, led by each policy's headline figures, then
// utilization, jobs waiting, the wait and slowdown CDFs, the level
// histogram (with a switch tree) and the spread per policy.
func WriteComparisonSVG(w io.Writer, runs []*Result) error {
	var order []string
	rows := map[string][]*Result{}
	if err := drawable("WriteComparisonSVG", runs); err != nil {
		return err
	}
	for _, r := range runs {
		if rows[r.Workload] == nil {
			order = append(order, r.Workload)
		}
		rows[r.Workload] = append(rows[r.Workload], r)
	}
	const pw, ph = 260.0, 190.0
	cols := 0
	for _, wl := range order {
		cols = max(cols, len(runPanels(rows[wl], false)))
	}
	width := float64(cols)*(pw+80) + 40
	title := "Policies compared"
	if len(runs) > 0 {
		title += " on " + runs[0].Cluster
	}
	rowH := ph + 110 + 16*float64(maxRuns(rows))
	s := beginSVG(w, width, 40+rowH*float64(len(order)), title)
	for k, wl := range order {
		rs := rows[wl]
		y := 50 + rowH*float64(k)
		s.text(20, y, "start", ` font-weight="bold" font-size="13"`, wl)
		for i, r := range rs {
			yy := y + 18 + 16*float64(i)
			s.printf(`<rect x="20" y="%.1f" width="12" height="10" fill="%s"/>`+"\n", yy-9, colour(i))
			s.text(38, yy, "start", "", PolicyLabel(r)+": "+headline(r))
		}
		sc := scaleOf(rs)
		top := y + 40 + 16*float64(len(rs))
		for i, draw := range runPanels(rs, false) {
			draw(s, rs, sc, 70+float64(i)*(pw+80), top, pw, ph)
		}
	}
	return s.end()
}

func maxRuns(rows map[string][]*Result) int {
	n := 0
	for _, rs := range rows {
		n = max(n, len(rs))
	}
	return n
}

// scale is the axes' ranges shared by the charts of several runs.
type scale struct {
	span, wait, slow, queue, spread float64
}

func scaleOf(runs []*Result) scale {
	sc := scale{wait: 10, slow: 10, queue: 1, spread: 1}
	for _, r := range runs {
		t0, t1 := runSpan(r)
		sc.span = math.Max(sc.span, t1.Sub(t0).Seconds())
		for _, rec := range r.Records {
			if rec.Start.IsZero() {
				continue
			}
			wait, run := rec.Start.Sub(rec.Submit), rec.End.Sub(rec.Start)
			sc.wait = math.Max(sc.wait, wait.Seconds())
			sc.slow = math.Max(sc.slow, BoundedSlowdown(wait, run))
			sc.spread = math.Max(sc.spread, float64(rec.Spread))
		}
		_, q := queueSeries(r, utilBins)
		for _, v := range q {
			sc.queue = math.Max(sc.queue, v)
		}
	}
	return sc
}

func labels(runs []*Result) []string {
	out := make([]string, len(runs))
	for i, r := range runs {
		out[i] = PolicyLabel(r)
	}
	return out
}

func drawUtil(s *svgWriter, runs []*Result, sc scale, x, y, w, h float64) {
	div, unit := timeUnit(sc.span)
	p := s.newPanel(x, y, w, h, fmt.Sprintf("Utilization (moving average of %d bins)", smoothBins), 0, math.Max(sc.span/div, 1e-9), 0, 100,
		"time since the first submission ("+unit+")", "cores busy (%)")
	for i, r := range runs {
		xs, ys := utilSeries(r, utilBins)
		for k := range xs {
			xs[k] /= div
		}
		s.line(p, xs, movingAverage(ys, smoothBins), colour(i))
	}
}

// movingAverage is the centred mean of k points (fewer at the ends).
func movingAverage(ys []float64, k int) []float64 {
	out := make([]float64, len(ys))
	for i := range ys {
		lo, hi := max(0, i-k/2), min(len(ys), i+k/2+1)
		var sum float64
		for _, v := range ys[lo:hi] {
			sum += v
		}
		out[i] = sum / float64(hi-lo)
	}
	return out
}

// queueSeries is the number of jobs waiting (submitted, not started),
// the most in each of bins equal bins from the first submission to the
// last end.
func queueSeries(res *Result, bins int) (xs, ys []float64) {
	t0, t1 := runSpan(res)
	span := t1.Sub(t0).Seconds()
	if span <= 0 {
		return nil, nil
	}
	type change struct {
		at float64
		d  int
	}
	var ch []change
	for _, r := range res.Records {
		if r.Start.IsZero() {
			continue
		}
		ch = append(ch, change{r.Submit.Sub(t0).Seconds(), 1}, change{r.Start.Sub(t0).Seconds(), -1})
	}
	slices.SortFunc(ch, func(a, b change) int {
		if a.at != b.at {
			return cmp.Compare(a.at, b.at)
		}
		return a.d - b.d // starts before submissions at one time: no phantom peak
	})
	width := span / float64(bins)
	ys = make([]float64, bins)
	n, k := 0, 0
	for i := 0; i < bins; i++ {
		most := n
		for ; k < len(ch) && ch[k].at < float64(i+1)*width; k++ {
			n += ch[k].d
			most = max(most, n)
		}
		ys[i] = float64(most)
		xs = append(xs, (float64(i)+0.5)*width)
	}
	return xs, ys
}

func drawQueue(s *svgWriter, runs []*Result, sc scale, x, y, w, h float64) {
	div, unit := timeUnit(sc.span)
	p := s.newPanel(x, y, w, h, "Jobs waiting (the most in each bin)", 0, math.Max(sc.span/div, 1e-9), 0, sc.queue,
		"time since the first submission ("+unit+")", "jobs waiting")
	for i, r := range runs {
		xs, ys := queueSeries(r, utilBins)
		for k := range xs {
			xs[k] /= div
		}
		s.line(p, xs, ys, colour(i))
	}
}

// drawSlowdown plots the CDF of the bounded slowdowns on a log axis
// (1, 10, 100, ...).
func drawSlowdown(s *svgWriter, runs []*Result, sc scale, x, y, w, h float64) {
	var xt []float64
	var names []string
	top := math.Ceil(math.Log10(sc.slow)) // the axis ends at a power of ten
	for v := 1.0; math.Log10(v) <= top+1e-9; v *= 10 {
		xt, names = append(xt, math.Log10(v)), append(names, tickLabel(v))
	}
	p := s.frame(x, y, w, h, "Bounded slowdown (CDF, 10 s bound)", axis{0, top, x, x + w, "bounded slowdown (log scale)"},
		xt, names, 0, 100, "jobs with at most x (%)")
	for i, r := range runs {
		var vals []float64
		for _, rec := range r.Records {
			if !rec.Start.IsZero() {
				vals = append(vals, BoundedSlowdown(rec.Start.Sub(rec.Submit), rec.End.Sub(rec.Start)))
			}
		}
		if len(vals) == 0 {
			continue
		}
		slices.Sort(vals)
		xs, ys := []float64{0}, []float64{0}
		for k := 1; k <= cdfPoints; k++ {
			j := min(len(vals)-1, (k*len(vals)+cdfPoints-1)/cdfPoints-1)
			xs, ys = append(xs, math.Log10(vals[j])), append(ys, 100*float64(j+1)/float64(len(vals)))
		}
		s.line(p, xs, ys, colour(i))
	}
}

// waitTicks are the round waits a log-scaled wait axis is marked at.
var waitTicks = [...]struct {
	sec   float64
	label string
}{{10, "10 s"}, {60, "1 min"}, {600, "10 min"}, {3600, "1 h"},
	{86400, "1 d"}, {864000, "10 d"}, {8640000, "100 d"}}

// drawCDF plots the wait CDFs against log10(1 + wait in seconds), so that
// runs whose waits differ by orders of magnitude stay readable side by side.
func drawCDF(s *svgWriter, runs []*Result, sc scale, x, y, w, h float64) {
	most := sc.wait
	series := make([][2][]float64, len(runs))
	for i, r := range runs {
		xs, ys := waitCDF(r, cdfPoints)
		series[i] = [2][]float64{xs, ys}
	}
	logw := func(sec float64) float64 { return math.Log10(1 + sec) }
	var xt []float64
	var labels []string
	for _, t := range waitTicks {
		if t.sec <= most { // no tick past the axis' end
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
// and of job durations (the AUCSCHED3 paper Fig. 4 a and b), else the share of jobs
// per run.
func drawLevels(s *svgWriter, runs []*Result, _ scale, x, y, w, h float64) {
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

func drawSpreadHistogram(s *svgWriter, runs []*Result, sc scale, x, y, w, h float64) {
	res := runs[0]
	sp := spreads(res)
	most := sc.spread
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
// one standard deviation (the AUCSCHED3 paper Fig. 3 b).
func drawSpreadPerPolicy(s *svgWriter, runs []*Result, _ scale, x, y, w, h float64) {
	top := 1.0
	for _, r := range runs {
		top = math.Max(top, r.Metrics.SpreadMean+r.Metrics.SpreadStd)
	}
	cats := labels(runs) // as the legend spells them
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
