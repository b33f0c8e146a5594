package sim

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hpcsched/hpcsched/internal/shareddata"
	"github.com/hpcsched/hpcsched/queue"
	"github.com/hpcsched/hpcsched/selectnodes"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// repeatedTrace is an SWF trace made of the job lines of base repeated
// times times, each copy's job numbers and submit times shifted past the
// previous copy's (the header once): a long trace built as it is read,
// never held whole.
type repeatedTrace struct {
	header []byte
	jobs   []repeatedLine
	span   int64 // last submit of base, plus one
	times  int
	copy   int
	line   int
	buf    bytes.Buffer
}

// repeatedLine is a job line as the job number, the submit time and the
// 16 other fields.
type repeatedLine struct {
	id, submit int64
	rest       string
}

func newRepeatedTrace(t testing.TB, base []byte, times int) *repeatedTrace {
	r := &repeatedTrace{times: times}
	for _, line := range strings.Split(string(base), "\n") {
		line = strings.TrimSpace(line)
		switch {
		case line == "":
		case line[0] == ';':
			r.header = append(append(r.header, line...), '\n')
		default:
			f := strings.Fields(line)
			require.Len(t, f, 18)
			id, err1 := strconv.ParseInt(f[0], 10, 64)
			submit, err2 := strconv.ParseInt(f[1], 10, 64)
			require.NoError(t, errors.Join(err1, err2))
			r.span = max(r.span, submit+1)
			r.jobs = append(r.jobs, repeatedLine{id, submit, strings.Join(f[2:], " ")})
		}
	}
	r.buf.Write(r.header)
	return r
}

func (r *repeatedTrace) Read(p []byte) (int, error) {
	var num [24]byte
	for r.buf.Len() < len(p) && r.copy < r.times {
		l := r.jobs[r.line]
		r.buf.Write(strconv.AppendInt(num[:0], int64(r.copy*len(r.jobs))+l.id, 10))
		r.buf.WriteByte(' ')
		r.buf.Write(strconv.AppendInt(num[:0], int64(r.copy)*r.span+l.submit, 10))
		r.buf.WriteByte(' ')
		r.buf.WriteString(l.rest)
		r.buf.WriteByte('\n')
		if r.line++; r.line == len(r.jobs) {
			r.line, r.copy = 0, r.copy+1
		}
	}
	return r.buf.Read(p)
}

// syntheticTrace is n jobs on 64 one-CPU nodes: one every two minutes,
// 1-16 processors, running 200-1000 s (about two thirds of the machine
// busy: a queue that comes and goes).
func syntheticTrace(n int) []byte { return syntheticTraceEvery(n, 120) }

// syntheticTraceEvery is syntheticTrace with a job every gap seconds.
func syntheticTraceEvery(n, gap int) []byte {
	var b bytes.Buffer
	b.WriteString("; MaxNodes: 64\n; MaxProcs: 64\n")
	for i := 0; i < n; i++ {
		procs, run := 1+(i*7)%16, 200+(i*37)%800
		fmt.Fprintf(&b, "%d %d -1 %d %d -1 -1 %d %d -1 1 %d 1 -1 -1 1 -1 -1\n", i+1, gap*i, run, procs, procs, run+300, i%10)
	}
	return b.Bytes()
}

// replayStream replays a trace read one job at a time.
func replayStream(t testing.TB, r io.Reader, o Options, limit int) (*Result, *TraceSource) {
	return replayStreamWith(t, r, o, SWFOptions{}, limit)
}

// replayStreamWith is replayStream reading under so.
func replayStreamWith(t testing.TB, r io.Reader, o Options, so SWFOptions, limit int) (*Result, *TraceSource) {
	sr, err := NewSWFReader(r, so)
	require.NoError(t, err)
	c, err := sr.Header().ClusterFor(nil, nil)
	require.NoError(t, err)
	src := NewTraceSource(sr, c, Conventions{}, limit)
	res, err := RunSource(c, "stream", src, o)
	require.NoError(t, err)
	return res, src
}

// A trace read one job at a time replays exactly as the trace read whole.
func TestRunSourceMatchesRun(t *testing.T) {
	n := 3000
	if raceEnabled {
		n = 600
	}
	data := syntheticTrace(n)
	for _, bf := range []BackfillMode{EASY, Conservative} {
		t.Run(bf.String(), func(t *testing.T) {
			tr, err := ReadSWF(bytes.NewReader(data), SWFOptions{})
			require.NoError(t, err)
			c, err := tr.ClusterFor(nil, nil)
			require.NoError(t, err)
			whole, err := Run(c, tr.Workload("whole", c), Options{Backfill: bf, Record: true})
			require.NoError(t, err)
			streamed, _ := replayStream(t, bytes.NewReader(data), Options{Backfill: bf, Record: true}, 0)
			assert.Equal(t, whole.Metrics, streamed.Metrics)
			assert.Equal(t, whole.Records, streamed.Records)
			assert.Equal(t, n, streamed.Jobs)
		})
	}
}

// The replay holds the jobs queued and running, not the trace: ten times
// the jobs cost a few bytes more a job (the waits, 8 bytes each, for the
// median and 95th percentile; the scheduler keeps no tombstone of a trace
// job), where a tombstone cost about 60 bytes and every finished job kept
// about 3.4 KB before. A job's line kept for a writer
// (SWFOptions.KeepFields) goes with its record.
func TestReplayMemoryPerJob(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector's shadow memory")
	}
	for _, keep := range []bool{false, true} {
		t.Run(fmt.Sprint("keep fields ", keep), func(t *testing.T) { replayMemoryPerJob(t, SWFOptions{KeepFields: keep}) })
	}
}

func replayMemoryPerJob(t *testing.T, so SWFOptions) {
	base := syntheticTrace(1000)
	live := func(times int) uint64 {
		var peak uint64
		var ms runtime.MemStats
		sample := func(done, _ int, _ time.Duration) {
			if done%500 == 0 {
				runtime.GC()
				runtime.ReadMemStats(&ms)
				peak = max(peak, ms.HeapAlloc)
			}
		}
		res, _ := replayStreamWith(t, newRepeatedTrace(t, base, times), Options{Backfill: EASY, Progress: sample}, so, 0)
		require.Equal(t, 1000*times, res.Jobs)
		return peak
	}
	one, ten := live(2), live(20)
	perJob := (float64(ten) - float64(one)) / 18000
	t.Logf("live heap: %d B for 2,000 jobs, %d B for 20,000: %.0f B a job more", one, ten, perJob)
	assert.Less(t, perJob, 24.0, "bytes a job")
}

// countingReader counts the bytes read from r.
type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// endlessTrace is an SWF trace that never ends (a job a second).
type endlessTrace struct {
	i   int
	buf bytes.Buffer
}

func (e *endlessTrace) Read(p []byte) (int, error) {
	if e.i == 0 {
		e.buf.WriteString("; MaxNodes: 100\n; MaxProcs: 100\n")
	}
	for e.buf.Len() < len(p) {
		e.i++
		fmt.Fprintf(&e.buf, "%d %d -1 100 1 -1 -1 1 200 -1 1 1 1 -1 -1 1 -1 -1\n", e.i, e.i)
	}
	return e.buf.Read(p)
}

// A limit of ten reads ten jobs (and one buffer of input), however long
// the trace.
func TestLimitReadsTenJobs(t *testing.T) {
	in := &countingReader{r: &endlessTrace{}}
	res, _ := replayStream(t, in, Options{Backfill: EASY}, 10)
	assert.Equal(t, 10, res.Jobs)
	assert.Equal(t, 10, res.Started)
	assert.Less(t, in.n, int64(1<<20), "bytes read")
}

// /dev/zero (one endless line) stops at the line budget.
func TestSWFReaderEndlessLine(t *testing.T) {
	in := &countingReader{r: zeros{}}
	_, err := NewSWFReader(in, SWFOptions{})
	require.ErrorIs(t, err, ErrBudget)
	assert.ErrorContains(t, err, "line 1")
	assert.Less(t, in.n, int64(maxSWFLine+1<<20), "bytes read")
	var se *SWFError
	require.True(t, errors.As(err, &se))
}

type zeros struct{}

func (zeros) Read(p []byte) (int, error) { clear(p); return len(p), nil }

// Jobs out of submit order by more than the reorder window are refused,
// jobs within it are put in order.
func TestTraceSourceOrder(t *testing.T) {
	var b strings.Builder
	b.WriteString("; MaxNodes: 4\n; MaxProcs: 4\n")
	line := func(id, submit int) {
		fmt.Fprintf(&b, "%d %d -1 10 1 -1 -1 1 60 -1 1 1 1 -1 -1 1 -1 -1\n", id, submit)
	}
	line(1, 100)
	line(2, 50) // within the window: put first
	res, _ := replayStream(t, strings.NewReader(b.String()), Options{Record: true}, 0)
	require.Len(t, res.Records, 2)
	assert.Equal(t, "swf2", res.Records[0].Name)
	for i := 0; i < ReorderWindow+1; i++ {
		line(3+i, 200+i)
	}
	line(9999, 0)
	sr, err := NewSWFReader(strings.NewReader(b.String()), SWFOptions{})
	require.NoError(t, err)
	c, err := sr.Header().ClusterFor(nil, nil)
	require.NoError(t, err)
	_, err = RunSource(c, "x", NewTraceSource(sr, c, Conventions{}, 0), Options{})
	require.ErrorIs(t, err, ErrOrder)
	assert.ErrorContains(t, err, fmt.Sprintf("line %d", ReorderWindow+6))
}

// kthRepeated loads KTH-SP2 repeated times times (BenchmarkReplayLong).
func kthRepeated(b *testing.B, times int) func() io.Reader {
	data, err := os.ReadFile(filepath.Join(shareddata.Require(b, "traces"), "KTH-SP2-1996-2.1-cln.swf"))
	if err != nil {
		b.Fatal(err)
	}
	return func() io.Reader { return newRepeatedTrace(b, data, times) }
}

// BenchmarkReplayLong replays KTH-SP2 once and ten times over (284,760
// jobs), read one job at a time: the cost should grow linearly.
func BenchmarkReplayLong(b *testing.B) {
	for _, times := range []int{1, 10} {
		for _, bf := range []BackfillMode{EASY, Conservative} {
			b.Run(fmt.Sprintf("trace=KTH-SP2x%d/jobs=%d/nodes=100/%s", times, 28476*times, bf), func(b *testing.B) {
				open := kthRepeated(b, times)
				for b.Loop() {
					replayStream(b, open(), Options{Backfill: bf}, 0)
				}
			})
		}
	}
}

// Skipping the passes of a cluster without a free CPU changes no decision
// (Schedule alone and EASY, under static and time-dependent priorities),
// nor does knowing it full, without looking, until a job ends.
func TestSkippedPassesChangeNothing(t *testing.T) {
	n := 1500
	if raceEnabled {
		n = 400
	}
	data := syntheticTraceEvery(n, 70) // busier than the machine: often full
	for _, bf := range []BackfillMode{NoBackfill, EASY} {
		for _, pol := range []queue.Policy{queue.FCFS{}, queue.SJF{}, queue.Multifactor{Age: 1000, JobSize: 500, MaxAge: time.Hour}} {
			t.Run(fmt.Sprintf("%v/%T", bf, pol), func(t *testing.T) {
				skip, _ := replayStream(t, bytes.NewReader(data), Options{Backfill: bf, Policy: pol, Record: true}, 0)
				every, _ := replayStream(t, bytes.NewReader(data), Options{Backfill: bf, Policy: pol, Record: true, everyPass: true}, 0)
				assert.Equal(t, every.Records, skip.Records)
				assert.Positive(t, skip.skipped, "passes skipped")
				assert.Positive(t, skip.fullRec, "passes skipped on a cluster known to be full")
			})
		}
	}
}

// What the API hands out is the caller's: a record given to OnRecord
// (mutated) leaves the result's records alone, and a header from Header
// leaves the reader's; zero and nil values answer with an error.
func TestStreamOwnershipAndZeroValues(t *testing.T) {
	data := syntheticTrace(200)
	res, _ := replayStream(t, bytes.NewReader(data), Options{Backfill: EASY, Record: true, OnRecord: func(r Record) {
		for i := range r.Nodes {
			r.Nodes[i] = -1
		}
	}}, 0)
	for _, r := range res.Records {
		for _, n := range r.Nodes {
			require.GreaterOrEqual(t, n, 0, "job %s", r.Name)
		}
	}
	sr, err := NewSWFReader(bytes.NewReader(data), SWFOptions{})
	require.NoError(t, err)
	h := sr.Header()
	h.MaxNodes, h.Partitions[9] = -1, "x"
	assert.Equal(t, 64, sr.Header().MaxNodes)
	assert.NotContains(t, sr.Header().Partitions, 9)

	var zero TraceSource
	_, err = zero.Next()
	assert.ErrorContains(t, err, "NewTraceSource")
	var nilWorkload *Workload
	c, err := sr.Header().ClusterFor(nil, nil)
	require.NoError(t, err)
	empty, err := RunSource(c, "none", nilWorkload.Source(), Options{})
	require.NoError(t, err)
	assert.Zero(t, empty.Jobs)
}

// A Workload whose jobs name none in a dependency replays without
// tombstones; one with a dependency keeps them, and the dependency holds.
func TestReplayTombstonesOnlyForDependencies(t *testing.T) {
	assert.True(t, namesNoJob(&TraceSource{}))
	plain := &sliceSource{jobs: []Job{{}, {}}}
	assert.True(t, namesNoJob(plain))
	withDep := &sliceSource{jobs: []Job{{}, {Spec: queue.Spec{Dependency: "afterok:1"}}}}
	assert.False(t, namesNoJob(withDep))
	withDep.i = 2 // the job with the dependency is read already
	assert.True(t, namesNoJob(withDep))
	var other Source = (*Workload)(nil).Source()
	assert.True(t, namesNoJob(other))
	assert.False(t, namesNoJob(struct{ Source }{plain}), "an unknown Source may name jobs")
}

// A dependency on a job that ended long before still holds in a replay:
// the Workload names a job, so the scheduler keeps tombstones.
func TestReplayDependencyOnEndedJob(t *testing.T) {
	sr, err := NewSWFReader(bytes.NewReader(syntheticTrace(1)), SWFOptions{})
	require.NoError(t, err)
	c, err := sr.Header().ClusterFor(nil, nil)
	require.NoError(t, err)
	spec := func(dep string) queue.Spec {
		return queue.Spec{Request: selectnodes.Request{CPUs: 1}, TimeLimit: time.Hour, Dependency: dep}
	}
	w := &Workload{Name: "deps", Jobs: []Job{
		{Submit: 0, Run: time.Minute, Spec: spec(""), Cores: 1},
		{Submit: time.Hour, Run: time.Minute, Spec: spec(""), Cores: 1},
		{Submit: 2 * time.Hour, Run: time.Minute, Spec: spec("afterok:1"), Cores: 1},
	}}
	res, err := Run(c, w, Options{Backfill: EASY, Record: true})
	require.NoError(t, err)
	require.Len(t, res.Records, 3)
	assert.Equal(t, 3, res.Started)
}

// A run measures the same with and without records kept or handed out
// (the node lists are made only for them), and each record's spread is
// its nodes'.
func TestMetricsWithoutRecords(t *testing.T) {
	data, modes := syntheticTraceEvery(200, 40), []BackfillMode{NoBackfill, EASY, Conservative}
	if testing.Short() {
		data, modes = syntheticTraceEvery(80, 40), modes[:2]
	}
	for _, bf := range modes {
		bare, _ := replayStream(t, bytes.NewReader(data), Options{Backfill: bf}, 0)
		kept, _ := replayStream(t, bytes.NewReader(data), Options{Backfill: bf, Record: true}, 0)
		var given []Record
		handed, _ := replayStream(t, bytes.NewReader(data), Options{Backfill: bf, OnRecord: func(r Record) { given = append(given, r) }}, 0)
		require.Equal(t, kept.Metrics, bare.Metrics, "%v", bf)
		require.Equal(t, kept.Metrics, handed.Metrics, "%v", bf)
		require.Positive(t, kept.Metrics.SpreadMean, "%v: some job spans nodes", bf)
		require.Len(t, given, len(kept.Records))
		for _, r := range kept.Records {
			if len(r.Nodes) > 0 {
				require.Equal(t, slices.Max(r.Nodes)-slices.Min(r.Nodes), r.Spread, "%s", r.Name)
			}
		}
	}
}
