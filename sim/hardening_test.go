package sim

import (
	"bytes"
	"compress/gzip"
	"math"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/hpcsched/hpcsched/queue"
	"github.com/hpcsched/hpcsched/selectnodes"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Issue 11: KTH-SP2 without backfill printed mean wait -293,869 s because
// waits were summed as a time.Duration. 30,000 waits of 10^7 s sum to
// 3*10^20 ns, far past MaxInt64.
func TestWaitSumDoesNotOverflowDuration(t *testing.T) {
	base := time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)
	recs := make([]Record, 30000)
	for i := range recs {
		start := base.Add(1e7 * time.Second)
		recs[i] = Record{Job: queue.JobID(i + 1), Submit: base, Start: start, End: start.Add(time.Hour), CPUs: 1, Cores: 1}
	}
	var acc accumulator
	for i := range recs {
		acc.add(&recs[i])
	}
	m := acc.metrics(100)
	assert.Equal(t, 1e7*time.Second, m.WaitMean)
	assert.InDelta(t, (1e7+3600)/3600.0, m.BoundedSlowdown, 1e-6)
	assert.Positive(t, m.Utilization)
}

// Issue 11: "; MaxNodes: 2000000000" made ClusterFor loop until out of memory.
func TestSWFHeaderMaxNodesBudget(t *testing.T) {
	tr, err := ReadSWF(strings.NewReader("; Version: 2.2\n; MaxNodes: 2000000000\n; MaxProcs: 2000000000\n"+
		"1 0 0 10 1 -1 -1 1 60 -1 1 1 1 -1 -1 1 -1 -1\n"), SWFOptions{})
	require.NoError(t, err)
	_, err = tr.ClusterFor(nil, nil)
	require.ErrorIs(t, err, ErrBudget)
	assert.ErrorContains(t, err, "line 2")
	assert.ErrorContains(t, err, "MaxClusterNodes")
}

// Issue 11: a machines line of 10^9 nodes did the same.
func TestMachinesLineOfBillionNodesBudget(t *testing.T) {
	_, err := ReadMachines(strings.NewReader("0 small 4 8 1 1024\n1 huge 1000000000 8 1 1024\n"))
	require.ErrorIs(t, err, ErrBudget)
	assert.ErrorContains(t, err, "line 2")
	_, err = ReadMachines(strings.NewReader("0 a 600000 8\n1 b 600000 8\n"))
	assert.ErrorIs(t, err, ErrBudget, "the total counts, not each line")
	tr := &Trace{}
	_, err = tr.ClusterFor([]Machine{{Name: "x", Nodes: MaxClusterNodes, CPUs: 1}, {Name: "y", Nodes: 1, CPUs: 1}}, nil)
	assert.ErrorIs(t, err, ErrBudget, "machines built in code are checked too")
}

func twoJobsFarApart() *Workload {
	spec := queue.Spec{Name: "j", User: "u", Request: selectnodes.Request{CPUs: 1}, TimeLimit: time.Minute}
	return &Workload{Name: "far", Jobs: []Job{{Submit: 0, Run: 30 * time.Second, Spec: spec, Cores: 1},
		{Submit: 1e7 * time.Second, Run: 30 * time.Second, Spec: spec, Cores: 1}}}
}

func tinyCluster(t *testing.T) *selectnodes.Cluster {
	tr, err := ReadSWF(strings.NewReader(tinySWF), SWFOptions{})
	require.NoError(t, err)
	c, err := tr.ClusterFor(nil, nil)
	require.NoError(t, err)
	return c
}

// Issue 11: --interval 1ns never ended; negative --interval/--depth were
// accepted.
func TestIntervalOneNanosecondAndNegativeOptions(t *testing.T) {
	for _, o := range []Options{{Interval: time.Nanosecond}, {Interval: -time.Second}, {BackfillDepth: -2},
		{Window: -1}, {Backfill: BackfillMode(7)}} {
		_, err := Run(tinyCluster(t), twoJobsFarApart(), o)
		assert.ErrorIs(t, err, ErrOption, "%+v", o)
	}
	// a static policy skips the passes that cannot change anything
	plain, err := Run(tinyCluster(t), twoJobsFarApart(), Options{})
	require.NoError(t, err)
	ticking, err := Run(tinyCluster(t), twoJobsFarApart(), Options{Interval: MinInterval})
	require.NoError(t, err)
	assert.Equal(t, plain.Metrics, ticking.Metrics)
	// a dynamic one would need 10^7 passes: refused before starting
	_, err = Run(tinyCluster(t), twoJobsFarApart(), Options{Interval: MinInterval, Policy: queue.Multifactor{Age: 1, MaxAge: time.Hour}})
	assert.ErrorIs(t, err, ErrBudget)
	_, err = Run(tinyCluster(t), twoJobsFarApart(), Options{Interval: time.Hour, Policy: queue.Multifactor{Age: 1, MaxAge: time.Hour}})
	assert.NoError(t, err, "2,778 passes are within the budget")
}

// Issue 11: a 2 MB gzip of 2 GB of newlines took 95 s: the decompressed
// input has a budget (here 512 KB of a 2 MB stream).
func TestGzipOfNewlinesBudget(t *testing.T) {
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	_, err := zw.Write(bytes.Repeat([]byte{'\n'}, 2<<20))
	require.NoError(t, err)
	require.NoError(t, zw.Close())
	fsys := fstest.MapFS{"bomb.swf.gz": {Data: gz.Bytes()}}
	_, err = OpenSWF(fsys, "bomb.swf.gz", SWFOptions{MaxBytes: 512 << 10})
	require.ErrorIs(t, err, ErrBudget)
	assert.ErrorContains(t, err, "MaxBytes")
	_, err = OpenSWF(fsys, "bomb.swf.gz", SWFOptions{MaxBytes: 4 << 20})
	assert.NoError(t, err, "within the budget it reads")
}

// Issue 11: NaN, Inf and 1e300 fields became MinInt64 durations.
func TestNonFiniteAndHugeSWFFields(t *testing.T) {
	line := func(run string) string { return "1 0 0 " + run + " 1 -1 -1 1 60 -1 1 1 1 -1 -1 1 -1 -1\n" }
	for _, v := range []string{"NaN", "Inf", "-Inf", "1e300", "4294967297"} {
		_, err := ReadSWF(strings.NewReader(line(v)), SWFOptions{})
		var se *SWFError
		require.ErrorAs(t, err, &se, v)
		assert.Equal(t, 1, se.Line)
		assert.Contains(t, se.Msg, "field 4", v)
	}
	tr, err := ReadSWF(strings.NewReader(line("4294967296")), SWFOptions{})
	require.NoError(t, err, "MaxSWFSeconds itself is fine")
	assert.Equal(t, time.Duration(MaxSWFSeconds)*time.Second, tr.Jobs[0].Run)
	_, err = ReadSWF(strings.NewReader("1 0 0 1 1 -1 -1 1e12 60 -1 1 1 1 -1 -1 1 -1 -1\n"), SWFOptions{})
	assert.ErrorIs(t, err, ErrBudget, "a processor count beyond int32")
}

// Issue 11: the PBS field 9223372036854775807+9223372036854775807 gave
// Nodes=-2.
func TestPBSNodeCountOverflow(t *testing.T) {
	pbs := func(spec string) string {
		return "0 1356996147 0 10 64 1 1024 64 86400 1 1 62 1 1 -1 1 1 1 {1} q_1d " + spec + "\n"
	}
	for _, spec := range []string{"9223372036854775807+9223372036854775807", "1048577", "1000000+1000000",
		"1000000:ppn=1048576+1000:ppn=1048576"} {
		_, err := ReadSWF(strings.NewReader(pbs(spec)), SWFOptions{})
		assert.ErrorIs(t, err, ErrBudget, spec)
	}
	tr, err := ReadSWF(strings.NewReader(pbs("2:ppn=4+3:ppn=2")), SWFOptions{})
	require.NoError(t, err)
	assert.Equal(t, 5, tr.Jobs[0].Nodes)
	assert.Equal(t, 14, tr.Jobs[0].Procs2)
}

// Issue 11: simulate --conf with huge socket counts panicked with
// "invalid argument to IntN" in Generate.
func TestGenerateHugeSocketCounts(t *testing.T) {
	for _, cores := range []int{math.MaxInt / 1024, math.MaxInt, 1 << 31} {
		assert.NotPanics(t, func() {
			_, err := Generate("6", 1024, cores, 1)
			assert.ErrorIs(t, err, ErrBudget)
		})
	}
	_, err := Generate("6", MaxClusterNodes+1, 1, 1)
	assert.ErrorIs(t, err, ErrBudget)
}

// A budget that cuts a line short reports the budget at that line, not
// the cut line as malformed; a line over maxSWFLine is refused by itself.
func TestSWFBudgetCutsALine(t *testing.T) {
	line := "1 0 0 1 1 -1 -1 1 60 -1 1 1 1 -1 -1 1 -1 -1\n"
	_, err := ReadSWF(strings.NewReader(line+line), SWFOptions{MaxBytes: int64(len(line)) + 10})
	var se *SWFError
	require.ErrorAs(t, err, &se)
	assert.ErrorIs(t, err, ErrBudget)
	assert.Equal(t, 2, se.Line)
	tr, err := ReadSWF(strings.NewReader(line+line), SWFOptions{MaxBytes: int64(2 * len(line))})
	require.NoError(t, err, "exactly the budget")
	assert.Len(t, tr.Jobs, 2)

	_, err = ReadSWF(strings.NewReader(line+strings.Repeat("7", maxSWFLine+1)+"\n"), SWFOptions{})
	require.ErrorAs(t, err, &se)
	assert.ErrorIs(t, err, ErrBudget)
	assert.Equal(t, 2, se.Line)
}
