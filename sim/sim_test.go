package sim

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hpcsched/hpcsched/internal/shareddata"
	"github.com/hpcsched/hpcsched/queue"
	"github.com/hpcsched/hpcsched/selectnodes"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const tinySWF = `; Version: 2.2
; MaxNodes: 4
; MaxProcs: 8
; Partition: 1 batch
; Partition: 2 debug
    1        0   10   100    2   -1   -1    2   200   -1  1   1   1  -1 -1  1 -1 -1
    2        5    0    50    8   -1   -1    8    -1   -1  1   2   1  -1 -1  2 -1 -1
    3       10    0    -1    2   -1   -1    2   100   -1  5   3   1  -1 -1  1 -1 -1
    4       20    0   300    4   -1   -1    4   100   -1  0   4   1  -1 -1  1 -1 -1
`

func TestReadSWF(t *testing.T) {
	tr, err := ReadSWF(strings.NewReader(tinySWF), SWFOptions{})
	require.NoError(t, err)
	assert.Equal(t, 4, tr.MaxNodes)
	assert.Equal(t, 8, tr.MaxProcs)
	assert.Equal(t, map[int]string{1: "batch", 2: "debug"}, tr.Partitions)
	require.Len(t, tr.Jobs, 4)
	assert.Equal(t, 100*time.Second, tr.Jobs[0].Run)
	assert.Equal(t, time.Duration(-1), tr.Jobs[1].ReqTime)
	assert.Equal(t, 5, tr.Jobs[2].Status)

	_, err = ReadSWF(strings.NewReader("1 2 3\n"), SWFOptions{})
	var se *SWFError
	require.ErrorAs(t, err, &se)
	assert.Equal(t, 1, se.Line)
	tr, err = ReadSWF(strings.NewReader(tinySWF+"bad line\n 5 x 0 1 1 -1 -1 1 1 -1 1 1 1 -1 -1 1 -1 -1\n"), SWFOptions{SkipMalformed: true})
	require.NoError(t, err)
	assert.Equal(t, 2, tr.Skipped)
	_, err = ReadSWF(strings.NewReader(" 5 x 0 1 1 -1 -1 1 1 -1 1 1 1 -1 -1 1 -1 -1\n"), SWFOptions{})
	assert.ErrorContains(t, err, `line 1: field 2 "x" is not a number`)
}

func TestExtendedSWF(t *testing.T) {
	line := "0 1356996147 0 56011 64 1 1024 64 86400 68719476736 1 62 1 1 -1 1 1 1 {1241,1241} q_1d 1:ppn=64:x86_64:cl_zewura#excl\n" +
		"6 1357016559 1 33765 64 1 1024 64 86400 8589934592 1 62 1 1 -1 1 1 1 {1273} q_1d 8:ppn=8:x86_64:cl_zegox\n"
	tr, err := ReadSWF(strings.NewReader(line), SWFOptions{})
	require.NoError(t, err)
	require.Len(t, tr.Jobs, 2)
	j := tr.Jobs[0]
	assert.Equal(t, time.Duration(0), j.Submit, "absolute times become relative")
	assert.Equal(t, 1, j.Nodes)
	assert.Equal(t, 64, j.PPN)
	assert.Equal(t, []string{"x86_64", "cl_zewura"}, j.Properties)
	assert.True(t, j.Exclusive)
	assert.Equal(t, "q_1d", j.QueueName)
	assert.Equal(t, 8, tr.Jobs[1].Nodes)
	_, err = ReadSWF(strings.NewReader(strings.Replace(line, "1:ppn=64", "0:ppn=64", 1)), SWFOptions{})
	assert.ErrorContains(t, err, "neither a node count nor a host")
	tr, err = ReadSWF(strings.NewReader(strings.Replace(line, "1:ppn=64", "zewura19.cerit-sc.cz:ppn=1.5", 1)), SWFOptions{})
	require.NoError(t, err)
	assert.Equal(t, "zewura19", tr.Jobs[0].Host)
	assert.Equal(t, 2, tr.Jobs[0].PPN, "a fraction of a processor is a whole one")
	tr, err = ReadSWF(strings.NewReader(strings.Replace(line, "1:ppn=64:x86_64:cl_zewura#excl", "1:ppn=1+3:ppn=2", 1)), SWFOptions{})
	require.NoError(t, err)
	assert.Equal(t, 4, tr.Jobs[0].Nodes)
	assert.Equal(t, 7, tr.Jobs[0].Procs2)
	assert.Equal(t, 1, tr.Jobs[0].PPN)
}

func TestWorkloadAndRun(t *testing.T) {
	tr, err := ReadSWF(strings.NewReader(tinySWF), SWFOptions{})
	require.NoError(t, err)
	c, err := tr.ClusterFor(nil, nil)
	require.NoError(t, err)
	assert.Equal(t, 4, c.NodeCount())
	w := tr.Workload("tiny", c)
	assert.Equal(t, map[string]int{"unknown run time": 1}, w.Skipped)
	require.Len(t, w.Jobs, 3)
	assert.Equal(t, "debug", w.Jobs[1].Spec.Request.Partition)
	assert.Equal(t, time.Minute, w.Jobs[1].Spec.TimeLimit, "50 s rounds up to a minute")
	res, err := Run(c, w, Options{Backfill: Conservative, Record: true})
	require.NoError(t, err)
	assert.Equal(t, 3, res.Started)
	assert.Equal(t, 1, res.Timeouts, "job 4 runs 300 s with a 100 s limit")
	assert.Equal(t, 0, res.Stuck)
	assert.Greater(t, res.Metrics.Utilization, 0.0)
	require.Len(t, res.Records, 3)
	assert.Equal(t, queue.Timeout, res.Records[2].State)
}

func TestGenerate(t *testing.T) {
	for _, id := range WorkloadIDs() {
		w, err := Generate(id, 1024, 16, 1)
		require.NoError(t, err)
		want := 350
		if strings.HasPrefix(id, "2") || strings.HasPrefix(id, "4") || strings.HasPrefix(id, "6") {
			want = 2095
		}
		assert.Len(t, w.Jobs, want, id)
		for _, j := range w.Jobs {
			assert.True(t, j.Run >= 30*time.Second && j.Run <= 300*time.Second)
			r := j.Spec.Request
			assert.True(t, r.CPUs >= 1 && r.CPUs <= 16384)
			if r.MinNodes > 0 {
				assert.True(t, r.CPUs >= r.MinNodes && r.CPUs <= 16*r.MinNodes, "cores fit the nodes")
			}
		}
	}
	a, _ := Generate("5'", 1024, 16, 7)
	b, _ := Generate("5'", 1024, 16, 7)
	assert.Equal(t, a, b, "deterministic for a seed")
	ranges := 0
	for _, j := range a.Jobs {
		for _, g := range j.Spec.Request.GRES {
			if g.Min != g.Max {
				ranges++
			}
		}
	}
	assert.Positive(t, ranges)
	_, err := Generate("7", 1024, 16, 1)
	assert.Error(t, err)
}

// quickJobs is how many jobs of a generated workload a test replays: all
// normally, the first 120 under the race detector or -short (the whole
// workload takes minutes with -race on a shared machine).
func quickJobs(w *Workload) *Workload {
	if (raceEnabled || testing.Short()) && len(w.Jobs) > 120 {
		w.Jobs = w.Jobs[:120]
	}
	return w
}

func TestSeed001Workload(t *testing.T) {
	c, err := selectnodes.Seed001()
	require.NoError(t, err)
	w, err := Generate("5", 1024, 16, 1)
	require.NoError(t, err)
	w = quickJobs(w)
	res, err := Run(c, w, Options{Backfill: Conservative, Record: true})
	require.NoError(t, err)
	assert.Equal(t, len(w.Jobs), res.Jobs)
	assert.Equal(t, len(w.Jobs), res.Started+res.Rejected)
	assert.Zero(t, res.Stuck)
	assert.True(t, res.Metrics.LevelKnown)
	assert.True(t, res.Metrics.LevelMean >= 0 && res.Metrics.LevelMean <= 2)
	assert.True(t, res.Metrics.Utilization > 0.2 && res.Metrics.Utilization <= 1.0, "%v", res.Metrics.Utilization)
	// the allocated cores never exceed the machine (a chart once showed
	// spikes where a job ended and another started at the same moment)
	for _, p := range BusyCores(res) {
		require.True(t, p.Cores >= 0 && p.Cores <= res.Cores, "%d cores busy of %d at %s", p.Cores, res.Cores, p.At)
	}
	var svg strings.Builder
	require.NoError(t, WriteSVG(&svg, res))
	assert.Contains(t, svg.String(), "<polyline")
	// deterministic, and recording changes nothing
	c2, _ := selectnodes.Seed001()
	res2, err := Run(c2, w, Options{Backfill: Conservative})
	require.NoError(t, err)
	assert.Equal(t, res.Metrics, res2.Metrics)
}

// Every trace in the shared data reads and replays.
func TestRealTraces(t *testing.T) {
	dir := shareddata.Require(t, "traces")
	tests := []struct {
		file, machines string
		jobs           int
		extra          []string
	}{
		{"KTH-SP2-1996-2.1-cln.swf", "", 28476, nil},
		{"NASA-iPSC-1993-3.1-cln.swf", "", 18239, nil},
		{"DOST-ASTI_COARE-Saliksik-2020-cln.swf", "", 19760, nil},
		{"Alea-hpc2n-subset.swf", "Alea-hpc2n-subset.swf.machines", 3170, nil},
		{"Alea-metacentrum-wagap-2013.swf.gz", "Alea-metacentrum-wagap-2013.swf.machines", 17900, nil}, // properties from the trace
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			tr, err := OpenSWF(os.DirFS(dir), tt.file, SWFOptions{})
			require.NoError(t, err)
			assert.Len(t, tr.Jobs, tt.jobs)
			var machines []Machine
			if tt.machines != "" {
				f, err := os.Open(filepath.Join(dir, tt.machines))
				require.NoError(t, err)
				machines, err = ReadMachines(f)
				f.Close()
				require.NoError(t, err)
			}
			c, err := tr.ClusterFor(machines, tt.extra)
			require.NoError(t, err)
			w := tr.Workload(tt.file, c)
			keep := 1500 // the full replays are benchmarks
			if raceEnabled || testing.Short() {
				keep = 600
			}
			if len(w.Jobs) > keep {
				w.Jobs = w.Jobs[:keep]
			}
			res, err := Run(c, w, Options{Backfill: Conservative})
			require.NoError(t, err)
			assert.Equal(t, len(w.Jobs), res.Started+res.Rejected+res.Stuck)
			assert.Equal(t, res.Rejected, sumCounts(res.Unrunnable), "every rejected job has a reason")
			assert.Zero(t, res.Stuck)
			if tt.machines != "" {
				assert.Zero(t, res.Rejected, "replays as shipped: %v", res.Unrunnable)
			}
			assert.Greater(t, res.Metrics.Utilization, 0.0)
		})
	}
}

// firstFit is a planner that starts the window's jobs wherever the
// pipeline puts them, in order, as long as they fit.
type firstFit struct{ calls int }

func (f *firstFit) Plan(_ context.Context, _ *selectnodes.Snapshot, window []queue.Job, now time.Time) ([]queue.Decision, error) {
	f.calls++
	var out []queue.Decision
	for _, j := range window {
		out = append(out, queue.Decision{Job: j.ID})
	}
	return out, nil
}

func TestRunWithPlannerAndInterval(t *testing.T) {
	tr, err := ReadSWF(strings.NewReader(tinySWF), SWFOptions{})
	require.NoError(t, err)
	c, err := tr.ClusterFor(nil, nil)
	require.NoError(t, err)
	p := &firstFit{}
	res, err := Run(c, tr.Workload("tiny", c), Options{Planner: p, Interval: 30 * time.Second})
	require.NoError(t, err)
	assert.Equal(t, 3, res.Started)
	assert.Positive(t, p.calls)

	c2, _ := tr.ClusterFor(nil, nil)
	plain, err := Run(c2, tr.Workload("tiny", c2), Options{})
	require.NoError(t, err)
	c3, _ := tr.ClusterFor(nil, nil)
	ticking, err := Run(c3, tr.Workload("tiny", c3), Options{Interval: time.Second})
	require.NoError(t, err)
	assert.Equal(t, plain.Metrics, ticking.Metrics, "extra passes change nothing when no event is due")
	_, err = Run(nil, nil, Options{})
	assert.Error(t, err)
}

func sumCounts(m map[string]int) int {
	n := 0
	for _, v := range m {
		n += v
	}
	return n
}

// Jobs come out in submit order, equal submit times in trace order, also
// from a trace whose lines are not in that order.
func TestWorkloadInSubmitOrder(t *testing.T) {
	line := func(id, submit int) string {
		return fmt.Sprintf("%d %d 0 10 1 -1 -1 1 60 -1 1 1 1 -1 -1 1 -1 -1\n", id, submit)
	}
	for _, tc := range []struct {
		name  string
		trace string
		want  []string
	}{
		{"sorted", line(1, 0) + line(2, 5) + line(3, 5), []string{"swf1", "swf2", "swf3"}},
		{"unsorted", line(1, 9) + line(2, 5) + line(3, 0) + line(4, 5), []string{"swf3", "swf2", "swf4", "swf1"}},
	} {
		tr, err := ReadSWF(strings.NewReader("; MaxNodes: 2\n; MaxProcs: 2\n"+tc.trace), SWFOptions{})
		require.NoError(t, err)
		c, err := tr.ClusterFor(nil, nil)
		require.NoError(t, err)
		var got []string
		for _, j := range tr.Workload("w", c).Jobs {
			got = append(got, j.Spec.Name)
		}
		assert.Equal(t, tc.want, got, tc.name)
	}
}
