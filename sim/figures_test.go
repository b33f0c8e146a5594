package sim

import (
	"encoding/xml"
	"io"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hpcsched/hpcsched/queue"
	"github.com/hpcsched/hpcsched/selectnodes"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// svgTexts parses an SVG with encoding/xml and returns its text nodes.
func svgTexts(t *testing.T, svg string) []string {
	t.Helper()
	d := xml.NewDecoder(strings.NewReader(svg))
	var texts []string
	for {
		tok, err := d.Token()
		if err == io.EOF {
			return texts
		}
		require.NoError(t, err)
		if cd, ok := tok.(xml.CharData); ok && strings.TrimSpace(string(cd)) != "" {
			texts = append(texts, string(cd))
		}
	}
}

// Text from a trace's header goes into the charts escaped: the SVG parses
// and the text reads back intact.
func TestChartsEscapeTraceText(t *testing.T) {
	const computer = `<script>alert("x")</script> & Sons`
	tr, err := ReadSWF(strings.NewReader("; Computer: "+computer+"\n"+tinySWF), SWFOptions{})
	require.NoError(t, err)
	require.Equal(t, computer, tr.Computer)
	c, err := tr.ClusterFor(nil, nil)
	require.NoError(t, err)
	w := tr.Workload("a&b<c>", c)
	res, err := Run(c, w, Options{Backfill: EASY, Record: true, Cluster: tr.Computer})
	require.NoError(t, err)
	var one, cmp strings.Builder
	require.NoError(t, WriteSVG(&one, res))
	require.NoError(t, WriteComparisonSVG(&cmp, []*Result{res, res}))
	for _, svg := range []string{one.String(), cmp.String()} {
		assert.NotContains(t, svg, "<script>")
		joined := strings.Join(svgTexts(t, svg), "\n")
		assert.Contains(t, joined, computer)
	}
	title := svgTexts(t, one.String())[0]
	assert.Equal(t, "a&b<c> on "+computer+" — FCFS + EASY backfill", title, "the title names workload, cluster and policy")
}

// Every chart has its axes labelled with units, and a legend when it shows
// several runs; a long trace still gives a small file.
func TestChartsAxesLegendsAndSize(t *testing.T) {
	w, err := Generate("5", 1024, 16, 1)
	require.NoError(t, err)
	w = quickJobs(w)
	var runs []*Result
	for _, mode := range []BackfillMode{NoBackfill, EASY} {
		c, err := selectnodes.Seed001()
		require.NoError(t, err)
		res, err := Run(c, w, Options{Backfill: mode, Record: true})
		require.NoError(t, err)
		runs = append(runs, res)
	}
	var one, cmp strings.Builder
	require.NoError(t, WriteSVG(&one, runs[0]))
	require.NoError(t, WriteComparisonSVG(&cmp, runs))
	texts := strings.Join(svgTexts(t, one.String()), "\n")
	for _, want := range []string{"Utilization (moving average of 9 bins)", "cores busy (%)", "time since the first submission (",
		"Jobs waiting (the most in each bin)", "jobs waiting", "Bounded slowdown (CDF, 10 s bound)", "bounded slowdown (log scale)",
		"Distribution of waits (CDF)", "wait (log scale)", "1 min", "Lowest-level common switch", "switch level (0 = leaf)", "Spread (first to last node)",
		"spread (nodes)", "% of jobs", "% of job durations"} {
		assert.Contains(t, texts, want)
	}
	assert.True(t, strings.Contains(texts, "Gantt"), "a Gantt chart or the note why it is omitted")
	cmpList := svgTexts(t, cmp.String())
	cmpTexts := strings.Join(cmpList, "\n")
	assert.Contains(t, cmpList, "FCFS + EASY backfill", "the spread's tick label, spelled as the legend")
	assert.Contains(t, cmpTexts, "FCFS + EASY backfill: mean wait", "legend")
	assert.Contains(t, cmpTexts, "Spread per policy (mean ± sd)")
	assert.Less(t, strings.Index(cmpTexts, "mean wait"), strings.Index(cmpTexts, "Utilization"), "the headline figures come first")
	for _, list := range [][]string{svgTexts(t, one.String()), cmpList} {
		assert.NotContains(t, list, "0 s", "no 0 on a log axis")
		waitAxis := slices.Index(list, "10 s")
		require.Positive(t, waitAxis)
		assert.NotEqual(t, "0", list[waitAxis-1], "no 0 tick before the log axis' first")
	}

	// the charts of two policies of one workload share their axes and size
	var a, b strings.Builder
	require.NoError(t, WriteSVGLike(&a, runs[0], runs[1:]))
	require.NoError(t, WriteSVGLike(&b, runs[1], runs[:1]))
	ta, tb := svgTexts(t, a.String()), svgTexts(t, b.String())
	end := slices.Index(ta, "Bounded slowdown (CDF, 10 s bound)")
	require.Positive(t, end)
	assert.Equal(t, ta[2:end+1], tb[2:end+1], "time, queue, wait and slowdown axes")
	assert.Equal(t, strings.SplitN(a.String(), "\n", 2)[0], strings.SplitN(b.String(), "\n", 2)[0], "the same size")
	assert.Less(t, one.Len(), 300<<10)
	assert.Less(t, cmp.Len(), 300<<10)
}

func TestNiceTicks(t *testing.T) {
	ticks, lo, hi := niceTicks(0, 97, 5)
	assert.Equal(t, 0.0, lo)
	assert.Equal(t, 100.0, hi)
	assert.Equal(t, []float64{0, 20, 40, 60, 80, 100}, ticks)
	ticks, lo, hi = niceTicks(3, 3, 5)
	assert.Less(t, lo, hi, "a flat series still gets an axis")
	assert.NotEmpty(t, ticks)
}

// A trace of any length gives charts under 300 KB: the series are
// downsampled and the Gantt chart is left out past its bar budget (50,000
// jobs here, built directly).
func TestChartsOfALongRunStaySmall(t *testing.T) {
	base := time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)
	res := &Result{Workload: "long", Cluster: "100 nodes", Policy: "FCFS", Nodes: 100, Cores: 100}
	for i := range 50000 {
		start := base.Add(time.Duration(i) * time.Minute)
		res.Records = append(res.Records, Record{Job: queue.JobID(i + 1), Submit: base.Add(time.Duration(i) * 50 * time.Second),
			Start: start, End: start.Add(time.Duration(1+i%90) * time.Minute), CPUs: 1 + i%50, Cores: 1 + i%50,
			Nodes: []int{i % 100, (i + 7) % 100}, Level: -1, Spread: 7})
	}
	var one, cmp strings.Builder
	require.NoError(t, WriteSVG(&one, res))
	require.NoError(t, WriteComparisonSVG(&cmp, []*Result{res, res}))
	assert.Less(t, one.Len(), 300<<10)
	assert.Less(t, cmp.Len(), 300<<10)
	assert.Contains(t, strings.Join(svgTexts(t, one.String()), "\n"), "Gantt chart omitted")
	assert.NotContains(t, one.String()+cmp.String(), "Lowest-level common switch", "no switch tree: no level panel")
}
