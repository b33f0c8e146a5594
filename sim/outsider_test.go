package sim

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/hpcsched/hpcsched/queue"
	"github.com/hpcsched/hpcsched/selectnodes"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A requested time over a century (some logs write a huge sentinel for
// "unlimited"; the reader takes up to MaxSWFSeconds) made the queue refuse
// the job's spec, and the whole replay stopped on an error that named no
// line. The limit is held to queue.MaxTimeLimit, in both replay paths.
func TestTimeLimitOverACenturyIsHeldToIt(t *testing.T) {
	const trace = "; MaxNodes: 2\n; MaxProcs: 2\n" +
		"1 0 0 4294967296 1 -1 -1 1 4294967296 -1 1 1 1 -1 -1 1 -1 -1\n" +
		"2 5 0 100 1 -1 -1 1 60 -1 1 1 1 -1 -1 1 -1 -1\n"
	for _, conv := range []Conventions{{}, {Estimate: ExactRunTime}} {
		tr, err := ReadSWF(strings.NewReader(trace), SWFOptions{})
		require.NoError(t, err)
		c, err := tr.ClusterFor(nil, nil)
		require.NoError(t, err)
		var recs []Record
		res, err := Run(c, tr.WorkloadWith("huge", c, conv), Options{OnRecord: func(r Record) { recs = append(recs, r) }})
		require.NoError(t, err)
		assert.Equal(t, 2, res.Started)
		assert.LessOrEqual(t, recs[len(recs)-1].TimeLimit, queue.MaxTimeLimit)

		sr, err := NewSWFReader(strings.NewReader(trace), SWFOptions{})
		require.NoError(t, err)
		c2, err := tr.ClusterFor(nil, nil)
		require.NoError(t, err)
		res2, err := RunSource(c2, "huge", NewTraceSource(sr, c2, conv, 0), Options{})
		require.NoError(t, err)
		assert.Equal(t, res.Metrics, res2.Metrics)
	}
}

// A Source used up by one run gave a second run no jobs and no error: a
// result of zero jobs that looked like a replay.
func TestSpentSourceIsAnError(t *testing.T) {
	tr, err := ReadSWF(strings.NewReader(tinySWF), SWFOptions{})
	require.NoError(t, err)
	c := tinyCluster(t)
	w := tr.Workload("tiny", c)
	src := w.Source()
	_, err = RunSource(c, "a", src, Options{})
	require.NoError(t, err)
	_, err = RunSource(tinyCluster(t), "b", src, Options{})
	assert.ErrorContains(t, err, "earlier run")

	sr, err := NewSWFReader(strings.NewReader(tinySWF), SWFOptions{})
	require.NoError(t, err)
	ts := NewTraceSource(sr, c, Conventions{}, 0)
	_, err = RunSource(tinyCluster(t), "c", ts, Options{})
	require.NoError(t, err)
	_, err = RunSource(tinyCluster(t), "d", ts, Options{})
	assert.ErrorContains(t, err, "earlier run")

	// an empty workload is no error, and Run makes a new source each time
	res, err := RunSource(tinyCluster(t), "e", (&Workload{}).Source(), Options{})
	require.NoError(t, err)
	assert.Zero(t, res.Jobs)
	for range 2 {
		res, err = Run(tinyCluster(t), w, Options{})
		require.NoError(t, err)
		assert.Equal(t, len(w.Jobs), res.Jobs)
	}
}

// Calls an outsider makes by mistake or with a real file's quirks: each
// panicked or gave a misleading error.
func TestReaderAndChartMisuse(t *testing.T) {
	_, err := NewSWFReader(nil, SWFOptions{})
	assert.ErrorContains(t, err, "needs a reader")
	_, err = ReadSWF(nil, SWFOptions{})
	assert.Error(t, err)
	var zero SWFReader
	_, err = zero.Next()
	assert.ErrorContains(t, err, "NewSWFReader")
	assert.NotNil(t, zero.Header())

	// a byte order mark before the header (a file saved on Windows)
	tr, err := ReadSWF(strings.NewReader("\ufeff"+tinySWF), SWFOptions{})
	require.NoError(t, err)
	plain, err := ReadSWF(strings.NewReader(tinySWF), SWFOptions{})
	require.NoError(t, err)
	assert.Equal(t, plain, tr)

	assert.ErrorContains(t, WriteSVG(io.Discard, nil), "nil")
	recorded, err := Run(tinyCluster(t), &Workload{Name: "none"}, Options{Record: true})
	require.NoError(t, err)
	assert.NoError(t, WriteSVG(io.Discard, recorded), "a recorded run of no job is drawn empty, not blamed on Options.Record")
	assert.NoError(t, WriteComparisonSVG(io.Discard, []*Result{recorded, recorded}))
	full, err := Run(tinyCluster(t), plain.Workload("tiny", tinyCluster(t)), Options{Record: true})
	require.NoError(t, err)
	bare, err := Run(tinyCluster(t), plain.Workload("tiny", tinyCluster(t)), Options{})
	require.NoError(t, err)
	assert.ErrorContains(t, WriteSVG(io.Discard, bare), "Options.Record")
	assert.ErrorContains(t, WriteSVGLike(io.Discard, full, []*Result{nil}), "run 1 is nil")
	assert.ErrorContains(t, WriteComparisonSVG(io.Discard, []*Result{full, nil}), "run 1 is nil")
	require.NoError(t, WriteComparisonSVG(io.Discard, []*Result{full}))
}

// ReadMachines of a nil reader is an error, as NewSWFReader's is; it
// panicked.
func TestReadMachinesNilReader(t *testing.T) {
	ms, err := ReadMachines(nil)
	assert.Nil(t, ms)
	assert.EqualError(t, err, "sim: ReadMachines needs a reader")
}

func TestMachinesDuplicateGroupAndBadMemory(t *testing.T) {
	_, err := ReadMachines(strings.NewReader("0 a 4 8 1 1024\n1 b 2 8 1 1024\n2 a 4 8 1 1024\n"))
	assert.ErrorContains(t, err, "line 3")
	assert.ErrorContains(t, err, "line 1")
	_, err = ReadMachines(strings.NewReader("0 a 4 8 1 lots\n"))
	assert.ErrorContains(t, err, "line 1")
	m, err := ReadMachines(strings.NewReader("0 a 4 8 1 -1\n1 b 4 8 1 2048\n"))
	require.NoError(t, err)
	assert.Equal(t, []Machine{{Name: "a", Nodes: 4, CPUs: 8}, {Name: "b", Nodes: 4, CPUs: 8, MemoryKB: 2048}}, m)
}

// The MetaCentrum trace's PBS specs hold "mem=3gb", a resource, not a node
// property: filed as one, it made the job's whole feature expression
// unparsable, so its other properties were dropped without a word (and
// every node got a "mem=3gb" feature). And the trace names hosts without
// the zero padding of the machines file's node names ("zewura2" for
// zewura02), so a job's host, and the hosts it avoided, were ignored.
func TestPBSMemoryResourceAndUnpaddedHosts(t *testing.T) {
	const line = "%d 1356996147 0 100 1 1 1024 1 86400 1 1 62 1 1 -1 1 1 1 {1} q_1d %s\n"
	trace := fmt.Sprintf(line, 1, "1:ppn=1:mem=3gb:x86_64") + fmt.Sprintf(line, 2, "1:ppn=1:zewura2.cerit-sc.cz") +
		fmt.Sprintf(line, 3, "1:ppn=1:^zewura2.cerit-sc.cz:^zegox1.cerit-sc.cz") + fmt.Sprintf(line, 4, "zegox3.cerit-sc.cz:ppn=1")
	tr, err := ReadSWF(strings.NewReader(trace), SWFOptions{})
	require.NoError(t, err)
	assert.Equal(t, []string{"x86_64"}, tr.Jobs[0].Properties)
	assert.Equal(t, []string{"mem=3gb"}, tr.Jobs[0].Resources)
	assert.Equal(t, []string{"x86_64"}, tr.SiteProperties())
	c, err := tr.ClusterFor([]Machine{{Name: "zewura", Nodes: 20, CPUs: 80}, {Name: "zegox", Nodes: 12, CPUs: 12}}, nil)
	require.NoError(t, err)
	w := tr.Workload("meta", c)
	require.Len(t, w.Jobs, 4)
	assert.NotNil(t, w.Jobs[0].Spec.Request.Features, "x86_64 is kept")
	assert.Equal(t, []string{"zewura02"}, w.Jobs[1].Spec.Request.Required)
	assert.Equal(t, []string{"zewura02", "zegox01"}, w.Jobs[2].Spec.Request.Excluded)
	assert.Equal(t, []string{"zegox03"}, w.Jobs[3].Spec.Request.Required)

	// a property no feature expression can name leaves the job out,
	// counted, rather than running it anywhere
	tr, err = ReadSWF(strings.NewReader(fmt.Sprintf(line, 1, "1:ppn=1:a@b:x86_64")), SWFOptions{})
	require.NoError(t, err)
	w = tr.Workload("meta", c)
	assert.Empty(t, w.Jobs)
	assert.Equal(t, map[string]int{"node properties a feature expression cannot name": 1}, w.Skipped)
}

// An epoch the queue cannot take failed as the first job's submission, and
// a nil scheduler option panicked in queue.New: both are Options errors,
// said before the run starts.
func TestEpochAndQueueOptionsCheckedUpFront(t *testing.T) {
	w := twoJobsFarApart()
	for _, o := range []Options{{Epoch: time.Date(3000, 1, 1, 0, 0, 0, 0, time.UTC)},
		{Epoch: time.Date(1, 1, 1, 0, 0, 0, 1, time.UTC)}, {Queue: []queue.Option{nil}}} {
		_, err := Run(tinyCluster(t), w, o)
		assert.ErrorIs(t, err, ErrOption, "%+v", o)
	}
	_, err := Run(tinyCluster(t), w, Options{Epoch: time.Date(1970, 1, 1, 0, 0, 0, 0, time.UTC)})
	assert.NoError(t, err)
	_, err = Generate("1", 0, 16, 1)
	assert.ErrorIs(t, err, ErrOption)
	assert.ErrorContains(t, err, "0 nodes of 16 cores")
}

// The doc of NewTraceSource's limit said "the first limit jobs of the
// trace (in submit order)"; they are the first lines' jobs, which on a
// trace out of order are not the earliest submitted.
func TestTraceSourceLimitTakesTheFirstLines(t *testing.T) {
	const trace = "; MaxNodes: 2\n; MaxProcs: 2\n" +
		"1 10 0 5 1 -1 -1 1 60 -1 1 1 1 -1 -1 1 -1 -1\n" +
		"2 0 0 5 1 -1 -1 1 60 -1 1 1 1 -1 -1 1 -1 -1\n" +
		"3 5 0 5 1 -1 -1 1 60 -1 1 1 1 -1 -1 1 -1 -1\n"
	sr, err := NewSWFReader(strings.NewReader(trace), SWFOptions{})
	require.NoError(t, err)
	c := tinyCluster(t)
	src := NewTraceSource(sr, c, Conventions{}, 2)
	var names []string
	for {
		j, err := src.Next()
		if err != nil {
			break
		}
		names = append(names, j.Spec.Name)
	}
	assert.Equal(t, []string{"swf2", "swf1"}, names, "lines 1-2, in submit order")
	tr, err := ReadSWF(strings.NewReader(trace), SWFOptions{})
	require.NoError(t, err)
	w := tr.Workload("w", c)
	assert.Equal(t, "swf3", w.Jobs[1].Spec.Name, "a Workload's first two by submit time")
}

// Every value the package hands out is the caller's: scribbling on a
// result, on the records OnRecord got, on a workload's jobs and on the
// trace they came from changes no later run.
func TestScribblingOnWhatTheRunGaveChangesNothing(t *testing.T) {
	const line = "%d %d 0 %d %d 1 1024 %d 600 1 1 62 1 1 -1 1 1 1 {1} q_1d %s\n"
	var b strings.Builder
	for i := range 60 {
		fmt.Fprintf(&b, line, i+1, i*7, 30+i*13%200, 1+i%5, 1+i%5, []string{"1:ppn=1:x86_64", "2:ppn=2", "zewura2.cerit-sc.cz:ppn=1", "1:ppn=3:^zewura1.cerit-sc.cz"}[i%4])
	}
	tr, err := ReadSWF(strings.NewReader(b.String()), SWFOptions{})
	require.NoError(t, err)
	ms := []Machine{{Name: "zewura", Nodes: 4, CPUs: 8}}
	var clusters []*selectnodes.Cluster // made before the trace is scribbled on
	for range 4 {
		c, err := tr.ClusterFor(ms, nil)
		require.NoError(t, err)
		clusters = append(clusters, c)
	}
	replay := func(w *Workload, scribble bool) *Result {
		c := clusters[0]
		clusters = clusters[1:]
		res, err := Run(c, w, Options{Backfill: EASY, Record: true, OnRecord: func(r Record) {
			if scribble {
				for k := range r.Nodes {
					r.Nodes[k] = -1
				}
			}
		}})
		require.NoError(t, err)
		return res
	}
	want := replay(tr.Workload("w", clusters[0]), false)
	w := tr.Workload("w", clusters[0])
	first := replay(w, true)
	assert.Equal(t, want, first, "OnRecord's records are not the result's")
	for i := range first.Records {
		first.Records[i].Nodes = append(first.Records[i].Nodes[:0], 99)
		first.Records[i].Submit = time.Time{}
	}
	first.Unrunnable["scribbled"] = 1
	for i := range tr.Jobs {
		tr.Jobs[i].Properties = append(tr.Jobs[i].Properties[:0], "gone")
		tr.Jobs[i].Avoid = nil
	}
	assert.Equal(t, want, replay(w, false), "the workload owes nothing to the trace or the first result")
}

// A job over its partition's MaxTime pends for good, as in Slurm; the run
// counted it in Stuck and said nothing of why.
func TestStuckJobsAreCountedPerReason(t *testing.T) {
	c, err := selectnodes.New([]selectnodes.Node{{Name: "n1", CPUs: 4}, {Name: "n2", CPUs: 4}},
		[]selectnodes.Partition{{Name: "p", Nodes: []string{"n1", "n2"}, Default: true, MaxTime: time.Hour}})
	require.NoError(t, err)
	spec := func(limit time.Duration) queue.Spec {
		return queue.Spec{Name: "j", User: "u", Request: selectnodes.Request{CPUs: 1}, TimeLimit: limit}
	}
	w := &Workload{Name: "w", Jobs: []Job{{Run: time.Minute, Spec: spec(time.Minute), Cores: 1},
		{Run: time.Minute, Spec: spec(2 * time.Hour), Cores: 1}}}
	res, err := Run(c, w, Options{})
	require.NoError(t, err)
	assert.Equal(t, 1, res.Stuck)
	assert.Equal(t, map[string]int{string(queue.ReasonPartitionTimeLimit): 1}, res.StuckReasons)
}

// A job larger than its partition (a slurm.conf's small default
// partition) was rejected for "node_config: the # nodes that qualify
// cannot give #..unlimited nodes (desired #), ## CPUs even if all were
// idle and up", digits and all masked.
func TestUnrunnableReasonNamesThePartition(t *testing.T) {
	c, err := selectnodes.New([]selectnodes.Node{{Name: "n1", CPUs: 4}, {Name: "n2", CPUs: 4}, {Name: "n3", CPUs: 4}},
		[]selectnodes.Partition{{Name: "small", Nodes: []string{"n1"}, Default: true}, {Name: "all", Nodes: []string{"n1", "n2", "n3"}}})
	require.NoError(t, err)
	job := func(cpus, nodes int, part string) Job {
		return Job{Run: time.Minute, Cores: cpus, Spec: queue.Spec{Name: "j", User: "u", TimeLimit: time.Minute,
			Request: selectnodes.Request{CPUs: cpus, MinNodes: nodes, Partition: part}}}
	}
	w := &Workload{Name: "w", Jobs: []Job{job(8, 0, ""), job(2, 2, ""), job(8, 0, "all"), job(16, 0, "all")}}
	res, err := Run(c, w, Options{})
	require.NoError(t, err)
	assert.Equal(t, map[string]int{"more CPUs than its partition has": 1, "more nodes than its partition has": 1,
		"more CPUs than the cluster has": 1}, res.Unrunnable)
	assert.Equal(t, 1, res.Started)
}

// Nil receivers and arguments an outsider may pass: each panicked.
func TestNilTraceClusterAndResult(t *testing.T) {
	var tr *Trace
	assert.Nil(t, tr.SiteProperties())
	assert.Empty(t, tr.Workload("none", nil).Jobs)
	c, err := tr.ClusterFor([]Machine{{Name: "m", Nodes: 2, CPUs: 4}}, nil)
	require.NoError(t, err)
	assert.Equal(t, 2, c.NodeCount())
	assert.Nil(t, BusyCores(nil))
	assert.Equal(t, "no run", RunTitle(nil))

	ext, err := ReadSWF(strings.NewReader("0 1356996147 0 10 64 1 1024 64 86400 1 1 62 1 1 -1 1 1 1 {1} q 1:ppn=12:^zewura12.cerit-sc.cz:host=zewura1.x\n"), SWFOptions{})
	require.NoError(t, err)
	w := ext.Workload("ext", nil)
	require.Len(t, w.Jobs, 1, "a nil cluster names no partition or node")
	assert.Empty(t, w.Jobs[0].Spec.Request.Excluded)
}

// Runs on separate clusters may replay one workload at once (run with
// -race): they only read it.
func TestConcurrentRunsShareAWorkload(t *testing.T) {
	w, err := Generate("6", 8, 4, 7)
	require.NoError(t, err)
	w.Jobs = w.Jobs[:30]
	tr := &Trace{}
	results := make([]*Result, 3)
	done := make(chan int)
	for i := range results {
		go func() {
			c, err := tr.ClusterFor([]Machine{{Name: "n", Nodes: 8, CPUs: 4}}, nil)
			if err == nil {
				results[i], _ = Run(c, w, Options{Backfill: BackfillMode(i), Record: true})
			}
			done <- i
		}()
	}
	for range results {
		<-done
	}
	for i, res := range results {
		require.NotNil(t, res)
		c, err := tr.ClusterFor([]Machine{{Name: "n", Nodes: 8, CPUs: 4}}, nil)
		require.NoError(t, err)
		alone, err := Run(c, w, Options{Backfill: BackfillMode(i), Record: true})
		require.NoError(t, err)
		assert.Equal(t, alone, res)
	}
}

// After an ErrOrder, Next went on with the next job, so a loop that
// logged errors and continued lost the job without a trace.
func TestTraceSourceErrorsAreSticky(t *testing.T) {
	var b strings.Builder
	b.WriteString("; MaxNodes: 2\n; MaxProcs: 2\n")
	for i := range ReorderWindow + 2 {
		fmt.Fprintf(&b, "%d %d 0 10 1 -1 -1 1 60 -1 1 1 1 -1 -1 1 -1 -1\n", i+2, 1000+i)
	}
	b.WriteString("1 5 0 10 1 -1 -1 1 60 -1 1 1 1 -1 -1 1 -1 -1\n")
	b.WriteString("99 5000 0 10 1 -1 -1 1 60 -1 1 1 1 -1 -1 1 -1 -1\n")
	sr, err := NewSWFReader(strings.NewReader(b.String()), SWFOptions{})
	require.NoError(t, err)
	src := NewTraceSource(sr, tinyCluster(t), Conventions{}, 0)
	var first error
	for range ReorderWindow + 10 {
		if _, err = src.Next(); err != nil {
			break
		}
	}
	first = err
	require.ErrorIs(t, first, ErrOrder)
	_, err = src.Next()
	assert.Equal(t, first, err)
}

// A job whose Spec.Begin lies after the last other event never became
// eligible: the run ended with it "stuck" (BeginTime), as if nothing
// else could happen. And a first job submitted before the workload's
// start was "before the job it follows".
func TestBeginTimeWakesTheRun(t *testing.T) {
	epoch := time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)
	spec := queue.Spec{Name: "later", User: "u", Request: selectnodes.Request{CPUs: 1}, TimeLimit: time.Minute,
		Begin: epoch.Add(time.Hour)}
	w := &Workload{Name: "w", Jobs: []Job{{Run: time.Minute, Spec: spec, Cores: 1}}}
	var recs []Record
	res, err := Run(tinyCluster(t), w, Options{OnRecord: func(r Record) { recs = append(recs, r) }})
	require.NoError(t, err)
	assert.Zero(t, res.Stuck, "%v", res.StuckReasons)
	require.Len(t, recs, 1)
	assert.Equal(t, epoch.Add(time.Hour), recs[0].Start)

	early := &Workload{Name: "w", Jobs: []Job{{Submit: -time.Second, Run: time.Minute, Spec: spec, Cores: 1}}}
	_, err = Run(tinyCluster(t), early, Options{})
	assert.ErrorContains(t, err, "before the workload's start")
	neg := &Workload{Name: "w", Jobs: []Job{{Run: -time.Second, Spec: spec, Cores: 1}}}
	_, err = Run(tinyCluster(t), neg, Options{})
	assert.ErrorContains(t, err, "negative run time")
}

// A header of 3 nodes and 8 processors made 3 nodes of 2 CPUs: 2 of the
// trace's processors were lost, and jobs of 7 or 8 were "more CPUs than
// the cluster has". Without MaxNodes, MaxProcs single-CPU nodes.
func TestHeaderProcessorsAreAllKept(t *testing.T) {
	for _, tc := range []struct {
		tr   Trace
		cpus []int
	}{
		{Trace{MaxNodes: 3, MaxProcs: 8}, []int{3, 3, 2}},
		{Trace{MaxNodes: 4, MaxProcs: 8}, []int{2, 2, 2, 2}},
		{Trace{MaxProcs: 3}, []int{1, 1, 1}},
		{Trace{MaxNodes: -4, MaxProcs: 2}, []int{1, 1}},
		{Trace{MaxNodes: 2}, []int{1, 1}},
	} {
		c, err := tc.tr.ClusterFor(nil, nil)
		require.NoError(t, err)
		var cpus []int
		for i := range c.NodeCount() {
			cpus = append(cpus, c.Node(i).CPUs)
			assert.Contains(t, c.Node(i).Features, fmt.Sprintf("nodecpus%d", c.Node(i).CPUs))
		}
		assert.Equal(t, tc.cpus, cpus, "%+v", tc.tr)
	}
}

// OpenSWF(os.DirFS("/"), "/abs/path.swf") failed with "open
// /abs/path.swf: invalid argument", which does not say what is wrong; a
// nil fs.FS panicked.
func TestOpenSWFSaysWhatAnFSNameIs(t *testing.T) {
	for _, name := range []string{"/abs/t.swf", "../t.swf"} {
		_, err := OpenSWF(os.DirFS("."), name, SWFOptions{})
		assert.ErrorContains(t, err, "os.DirFS(filepath.Dir(path))")
		assert.ErrorIs(t, err, fs.ErrInvalid)
		_, _, err = OpenSWFReader(os.DirFS("."), name, SWFOptions{})
		assert.ErrorContains(t, err, "not a name in an fs.FS")
	}
	_, err := OpenSWF(nil, "t.swf", SWFOptions{})
	assert.ErrorIs(t, err, fs.ErrInvalid)
}

// RunSource of a Workload's source, which the CLI uses, did not make Run's
// up-front check of the interval passes: it failed after a million
// passes instead.
func TestRunSourceOfAWorkloadChecksPassesUpFront(t *testing.T) {
	o := Options{Interval: MinInterval, Policy: queue.Multifactor{Age: 1, MaxAge: time.Hour}}
	_, err := RunSource(tinyCluster(t), "far", twoJobsFarApart().Source(), o)
	require.ErrorIs(t, err, ErrBudget)
	assert.ErrorContains(t, err, "over 2777h46m40s of submissions")
}

// A cluster that already holds allocations (a scheduler of the caller's,
// or a run that failed half way) is refused: the run cannot end those
// jobs, and its own would wait behind them for ever, counted as stuck
// "Priority". A cluster an earlier run left empty serves again.
func TestRunRefusesAClusterInUse(t *testing.T) {
	job := func(submit, run time.Duration, cpus int) Job {
		return Job{Submit: submit, Run: run, Cores: cpus,
			Spec: queue.Spec{TimeLimit: run + time.Minute, Request: selectnodes.Request{CPUs: cpus, MinNodes: 1}}}
	}
	fresh := func() *selectnodes.Cluster {
		c, err := (*Trace)(nil).ClusterFor([]Machine{{Name: "n", Nodes: 4, CPUs: 4}}, nil)
		require.NoError(t, err)
		return c
	}
	whole := &Workload{Jobs: []Job{job(1, time.Hour, 16)}}

	byCaller := fresh()
	s := queue.New(byCaller)
	at := time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)
	_, err := s.Submit(queue.Spec{TimeLimit: time.Hour, Request: selectnodes.Request{CPUs: 4, MinNodes: 1}}, at)
	require.NoError(t, err)
	require.Len(t, s.Schedule(at), 1)

	failed := fresh()
	// the third job is out of order: the run stops with the first running
	_, err = Run(failed, &Workload{Jobs: []Job{job(1, time.Hour, 16), job(2, time.Hour, 4), job(0, time.Hour, 1)}}, Options{})
	require.ErrorIs(t, err, ErrOrder)

	for name, c := range map[string]*selectnodes.Cluster{"a scheduler's job": byCaller, "a failed run's job": failed} {
		_, err := Run(c, whole, Options{})
		assert.ErrorIs(t, err, ErrClusterInUse, name)
		_, err = RunSource(c, "w", whole.Source(), Options{})
		assert.ErrorIs(t, err, ErrClusterInUse, name)
	}

	reused := fresh()
	for i := range 2 {
		res, err := Run(reused, whole, Options{})
		require.NoError(t, err, "run %d", i)
		assert.Equal(t, 1, res.Started, "run %d", i)
	}
}

// A Source of the caller's that fails says where the run was, and its
// error stays matchable; a trace's error is left as it is (it names its
// line).
func TestSourceErrorSaysWhereTheRunWas(t *testing.T) {
	gone := errors.New("disk gone")
	src := &failingSource{after: 3, err: gone}
	c, err := (*Trace)(nil).ClusterFor([]Machine{{Name: "n", Nodes: 2, CPUs: 2}}, nil)
	require.NoError(t, err)
	_, err = RunSource(c, "w", src, Options{})
	require.ErrorIs(t, err, gone)
	assert.EqualError(t, err, "sim: reading job 3 from the source: disk gone")

	rd, err := NewSWFReader(strings.NewReader("; MaxNodes: 2\n1 0 0 10 1 -1 -1 1 60 -1 1 1 1 -1 1 -1 -1 -1\n2 1 0 10 1 -1 -1 1 60\n"), SWFOptions{})
	require.NoError(t, err)
	c2, err := (*Trace)(nil).ClusterFor([]Machine{{Name: "n", Nodes: 2, CPUs: 2}}, nil)
	require.NoError(t, err)
	_, err = RunSource(c2, "t", NewTraceSource(rd, c2, Conventions{}, 0), Options{})
	var se *SWFError
	require.ErrorAs(t, err, &se)
	assert.Equal(t, err.Error(), se.Error(), "a trace's error is its own")
}

type failingSource struct {
	after, n int
	err      error
}

func (s *failingSource) Next() (Job, error) {
	if s.n >= s.after {
		return Job{}, s.err
	}
	s.n++
	return Job{Submit: time.Duration(s.n) * time.Second, Run: time.Second, Cores: 1,
		Spec: queue.Spec{TimeLimit: time.Minute, Request: selectnodes.Request{CPUs: 1, MinNodes: 1}}}, nil
}

// A machine group whose nodes cannot be named (a hostlist separator in
// its name) is said once, and groups whose node names collide are said
// in a few lines, not in one line per node.
func TestClusterForSaysBadGroupNamesOnce(t *testing.T) {
	for _, tc := range []struct {
		name     string
		machines []Machine
		want     string
		lines    int
	}{
		{"brackets", []Machine{{Name: "a[x]", Nodes: 50000, CPUs: 1}}, `machine group "a[x]"`, 1},
		{"comma", []Machine{{Name: "a,b", Nodes: 3, CPUs: 1}}, `machine group "a,b"`, 1},
		{"blank", []Machine{{Name: "a b", Nodes: 3, CPUs: 1}}, `machine group "a b"`, 1},
		{"colliding names", []Machine{{Name: "a1", Nodes: 2000, CPUs: 1}, {Name: "a", Nodes: 12000, CPUs: 1}}, "and 1997 more", 4},
	} {
		_, err := (*Trace)(nil).ClusterFor(tc.machines, nil)
		require.Error(t, err, tc.name)
		assert.Contains(t, err.Error(), tc.want, tc.name)
		assert.Len(t, strings.Split(err.Error(), "\n"), tc.lines, tc.name)
	}
}

// A job whose end lies past the years the queue takes is named in the
// error, not only the time.
func TestJobEndingPastMaxYearIsNamed(t *testing.T) {
	c, err := (*Trace)(nil).ClusterFor([]Machine{{Name: "n", Nodes: 1, CPUs: 1}}, nil)
	require.NoError(t, err)
	long := time.Duration(1 << 62)
	w := &Workload{Jobs: []Job{
		{Submit: 0, Run: time.Second, Cores: 1, Spec: queue.Spec{Name: "short", Request: selectnodes.Request{CPUs: 1, MinNodes: 1}}},
		{Submit: long, Run: long, Cores: 1, Spec: queue.Spec{Name: "endless", Request: selectnodes.Request{CPUs: 1, MinNodes: 1}}},
	}}
	_, err = Run(c, w, Options{})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "sim: ending job 1 (endless), submitted at "+long.String())
	assert.Contains(t, err.Error(), "outside the years")
}

// A Result is the caller's: one changed, or decoded from a file, with a
// record no run makes is refused by the charts, where a negative spread
// panicked (index out of range) and a huge level would have drawn that
// many bars.
func TestChartsRefuseRecordsNoRunMakes(t *testing.T) {
	c, err := (*Trace)(nil).ClusterFor([]Machine{{Name: "n", Nodes: 4, CPUs: 4}}, nil)
	require.NoError(t, err)
	w := &Workload{Jobs: []Job{{Submit: 1, Run: time.Second, Cores: 1, Spec: queue.Spec{Name: "a", Request: selectnodes.Request{CPUs: 1, MinNodes: 1}}},
		{Submit: 2, Run: time.Hour, Cores: 4, Spec: queue.Spec{Name: "b", Request: selectnodes.Request{CPUs: 4, MinNodes: 1}}}}}
	for _, tc := range []struct {
		name   string
		change func(r *Record)
		ok     bool
	}{
		{"as run", func(r *Record) {}, true},
		{"negative spread", func(r *Record) { r.Spread = -7 }, false},
		{"level below -1", func(r *Record) { r.Level = -2 }, false},
		{"huge level", func(r *Record) { r.Level = 1 << 40 }, false},
		{"highest level drawn", func(r *Record) { r.Level = MaxChartLevels - 1 }, true},
	} {
		res, err := Run(c, w, Options{Record: true})
		require.NoError(t, err)
		tc.change(&res.Records[1])
		for name, draw := range map[string]func() error{
			"WriteSVG":           func() error { return WriteSVG(io.Discard, res) },
			"WriteComparisonSVG": func() error { return WriteComparisonSVG(io.Discard, []*Result{res, res}) },
		} {
			err := draw()
			if tc.ok {
				assert.NoError(t, err, "%s: %s", tc.name, name)
			} else {
				assert.ErrorContains(t, err, "record 1 (b)", "%s: %s", tc.name, name)
			}
		}
	}
}
