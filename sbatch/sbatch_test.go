package sbatch

import (
	"errors"
	"testing"
	"time"

	"github.com/hpcsched/hpcsched/selectnodes"
	"github.com/hpcsched/hpcsched/slurmconf"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Every spelling a user types means the same thing.
func TestSpellings(t *testing.T) {
	for _, tc := range []struct {
		line string
		want func(o *Options) any
		is   any
	}{
		{"-N3", func(o *Options) any { return [2]int{o.MinNodes, o.MaxNodes} }, [2]int{3, 3}},
		{"-N 3", func(o *Options) any { return o.MinNodes }, 3},
		{"--nodes=3", func(o *Options) any { return o.MinNodes }, 3},
		{"--nodes 3", func(o *Options) any { return o.MinNodes }, 3},
		{"-N3-5", func(o *Options) any { return [2]int{o.MinNodes, o.MaxNodes} }, [2]int{3, 5}},
		{"-n40", func(o *Options) any { return o.NTasks }, 40},
		{"--ntasks=40", func(o *Options) any { return o.NTasks }, 40},
		{"-C ib&big", func(o *Options) any { return o.Constraint }, "ib&big"},
		{"--constraint=[a|b]", func(o *Options) any { return o.Constraint }, "[a|b]"},
		{"-p a,b", func(o *Options) any { return o.Partitions }, []string{"a", "b"}},
		{"--partition=gpu", func(o *Options) any { return o.Partitions }, []string{"gpu"}},
		{"-w n[1-3]", func(o *Options) any { return o.NodeList }, []string{"n1", "n2", "n3"}},
		{"--nodelist=n1,n4", func(o *Options) any { return o.NodeList }, []string{"n1", "n4"}},
		{"-x n2", func(o *Options) any { return o.Exclude }, []string{"n2"}},
		{"--exclude n[2-3]", func(o *Options) any { return o.Exclude }, []string{"n2", "n3"}},
		{"-c4", func(o *Options) any { return o.CPUsPerTask }, 4},
		{"--cpus-per-task 4", func(o *Options) any { return o.CPUsPerTask }, 4},
		{"--ntasks-per-node=8", func(o *Options) any { return o.NTasksPerNode }, 8},
		{"--mem=4G", func(o *Options) any { return o.MemoryMB }, int64(4096)},
		{"--mem 512", func(o *Options) any { return o.MemoryMB }, int64(512)},
		{"--mem=1t", func(o *Options) any { return o.MemoryMB }, int64(1 << 20)},
		{"--mem=1536K", func(o *Options) any { return o.MemoryMB }, int64(2)},
		{"--mem-per-cpu=2G", func(o *Options) any { return o.MemPerCPUMB }, int64(2048)},
		{"--tmp=100G", func(o *Options) any { return o.TmpMB }, int64(102400)},
		{"--gres=gpu:a100:4", func(o *Options) any { return o.GRES }, []selectnodes.GRESRequest{{Name: "gpu", Type: "a100", Min: 4, Max: 4}}},
		{"--gpus=8", func(o *Options) any { return o.GPUs }, 8},
		{"--gpus-per-node=v100:2", func(o *Options) any { return [2]any{o.GPUsPerNode, o.GPUType} }, [2]any{2, "v100"}},
		{"--exclusive", func(o *Options) any { return [2]any{o.Exclusive, o.ExclusiveMode} }, [2]any{true, ""}},
		{"--exclusive=user", func(o *Options) any { return [2]any{o.Exclusive, o.ExclusiveMode} }, [2]any{true, "user"}},
		{"-s", func(o *Options) any { return o.Oversubscribe }, true},
		{"--oversubscribe", func(o *Options) any { return o.Oversubscribe }, true},
		{"--contiguous", func(o *Options) any { return o.Contiguous }, true},
		{"--switches=2@1:00:00", func(o *Options) any { return [2]any{o.Switches, o.SwitchesWait} }, [2]any{2, time.Hour}},
		{"-t 90", func(o *Options) any { return o.TimeLimit }, 90 * time.Minute},
		{"--time=1-12:00:00", func(o *Options) any { return o.TimeLimit }, 36 * time.Hour},
		{"-t30:00", func(o *Options) any { return o.TimeLimit }, 30 * time.Minute},
		{"--time=UNLIMITED", func(o *Options) any { return o.TimeLimit }, slurmconf.Unlimited}, // given, as none: not 0
		{"--begin=now+2hours", func(o *Options) any { return o.Begin }, "now+2hours"},
		{"-A physics", func(o *Options) any { return o.Account }, "physics"},
		{"--account=physics", func(o *Options) any { return o.Account }, "physics"},
		{"--qos=high", func(o *Options) any { return o.QOS }, "high"},
		{"-sN2", func(o *Options) any { return [2]any{o.Oversubscribe, o.MinNodes} }, [2]any{true, 2}},
		{"--nice", func(o *Options) any { return o.Nice }, int64(100)},
		{"--nice=-5", func(o *Options) any { return o.Nice }, int64(-5)},
		{`-J "my job"`, func(o *Options) any { return o.JobName }, "my job"},
		{"-d afterok:12 -H --requeue", func(o *Options) any { return [3]any{o.Dependency, o.Hold, o.Requeue} }, [3]any{"afterok:12", true, true}},
	} {
		t.Run(tc.line, func(t *testing.T) {
			args, err := Split(tc.line)
			require.NoError(t, err)
			o, err := Parse(args)
			require.NoError(t, err)
			assert.Equal(t, tc.is, tc.want(o))
		})
	}
}

func TestErrorsNameTheArgument(t *testing.T) {
	for _, tc := range []struct {
		args      []string
		arg, off  int
		substring string
	}{
		{[]string{"-N"}, 0, 2, "needs a value"},
		{[]string{"-N", "0"}, 1, 0, "not a count"},
		{[]string{"--nodes=5-3"}, 0, 8, "below the minimum"},
		{[]string{"--mem=4X"}, 0, 6, "not a size"},
		{[]string{"--mem=99999999T"}, 0, 6, "MaxMemoryMB"},
		{[]string{"--frob"}, 0, 2, "unknown option --frob"},
		{[]string{"-Z"}, 0, 1, "unknown option -Z"},
		{[]string{"--contiguous=yes"}, 0, 12, "takes no value"},
		{[]string{"-t", "1:99"}, 1, 0, "time value"},
		{[]string{"--begin=now+99999999weeks"}, 0, 8, "century"},
		{[]string{"-w", "n[3-1]"}, 1, 0, ""},
		{[]string{"job.sh"}, 0, 0, "unexpected argument"},
	} {
		_, err := Parse(tc.args)
		var e *Error
		require.ErrorAs(t, err, &e, "%v", tc.args)
		assert.Equal(t, tc.arg, e.Arg, "%v: %v", tc.args, err)
		assert.Equal(t, tc.off, e.Offset, "%v: %v", tc.args, err)
		assert.Contains(t, err.Error(), tc.substring)
	}
}

func TestRequestMapping(t *testing.T) {
	parse := func(line string) *Options {
		args, err := Split(line)
		require.NoError(t, err)
		o, err := Parse(args)
		require.NoError(t, err)
		return o
	}
	r, err := parse("-N2-4 -n 8 -c 2 --mem-per-cpu=1G --gpus=3 --exclusive -t 10 -C ib").Request("batch")
	require.NoError(t, err)
	assert.Equal(t, 2, r.MinNodes)
	assert.Equal(t, 4, r.MaxNodes)
	assert.Equal(t, 16, r.CPUs)
	assert.Equal(t, int64(2048), r.MinMemoryPerNode, "mem-per-cpu x the CPUs of a task")
	assert.Equal(t, []selectnodes.GRESRequest{{Name: "gpu", Min: 2, Max: 2}}, r.GRES, "3 GPUs over 2 nodes: 2 per node")
	assert.Equal(t, selectnodes.ShareExclusiveJob, r.Share)
	assert.Equal(t, 10*time.Minute, r.TimeLimit)
	assert.Equal(t, "ib", r.Features.String())
	r, err = parse("-N3 --ntasks-per-node=4 -c 2").Request("")
	require.NoError(t, err)
	assert.Equal(t, 24, r.CPUs)
	assert.Equal(t, 8, r.MinCPUsPerNode)
	_, err = parse("-C a&&b").Request("")
	assert.Error(t, err)
	now := time.Date(2026, 11, 23, 10, 30, 0, 0, time.UTC)
	spec, err := parse("-J x -A phys -p a,b --begin 09:00 -d afterany:3 --nice=5").Spec(now)
	require.NoError(t, err)
	assert.Equal(t, "a", spec.Request.Partition)
	assert.Equal(t, time.Date(2026, 11, 24, 9, 0, 0, 0, time.UTC), spec.Begin, "a past time of day is tomorrow")
	assert.Equal(t, int64(5), spec.Nice)
}

func TestBegin(t *testing.T) {
	now := time.Date(2026, 11, 23, 10, 30, 0, 0, time.UTC)
	for in, want := range map[string]time.Time{
		"now+60":              now.Add(time.Minute),
		"now+2hours":          now.Add(2 * time.Hour),
		"now+1d":              now.Add(24 * time.Hour),
		"16:00":               time.Date(2026, 11, 23, 16, 0, 0, 0, time.UTC),
		"2026-12-01":          time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC),
		"2026-12-01T08:15":    time.Date(2026, 12, 1, 8, 15, 0, 0, time.UTC),
		"2026-12-01T08:15:30": time.Date(2026, 12, 1, 8, 15, 30, 0, time.UTC),
		"teatime":             time.Date(2026, 11, 23, 16, 0, 0, 0, time.UTC),
		"midnight":            time.Date(2026, 11, 24, 0, 0, 0, 0, time.UTC),
	} {
		got, err := ParseBegin(in, now)
		require.NoError(t, err, in)
		assert.Equal(t, want, got, in)
	}
	for _, bad := range []string{"now+", "now+5fortnights", "25:00", "2026-13-01", "yesterdayish"} {
		_, err := ParseBegin(bad, now)
		assert.Error(t, err, bad)
	}
}

func TestRunningSpecs(t *testing.T) {
	r, err := ParseRunning("n[1-2]:cpus=8,mem=16G,gpus=2,end=2h")
	require.NoError(t, err)
	assert.Equal(t, Running{Nodes: []string{"n1", "n2"}, CPUs: 8, MemoryMB: 16384,
		GRES: []selectnodes.GRES{{Name: "gpu", Count: 2}}, End: 2 * time.Hour}, r)
	r, err = ParseRunning("n3:gres=gpu:a100:1;nic:2,end=1-00:00:00")
	require.NoError(t, err)
	assert.Equal(t, []selectnodes.GRES{{Name: "gpu", Type: "a100", Count: 1}, {Name: "nic", Count: 2}}, r.GRES)
	assert.Equal(t, 24*time.Hour, r.End)
	r, err = ParseRunning("n[5-6]")
	require.NoError(t, err)
	assert.Zero(t, r.CPUs, "whole nodes")
	for _, bad := range []string{"n1:cpus", "n1:colour=red", "n1:end=soon", "n[2-1]", "n1:gres=gpu"} {
		_, err := ParseRunning(bad)
		assert.Error(t, err, bad)
	}
}

func TestSplit(t *testing.T) {
	got, err := Split(`-N2 -C "a&b" --job-name='x y' a\ b`)
	require.NoError(t, err)
	assert.Equal(t, []string{"-N2", "-C", "a&b", "--job-name=x y", "a b"}, got)
	_, err = Split(`-C "a&b`)
	var e *Error
	require.True(t, errors.As(err, &e))
	assert.Equal(t, 3, e.Offset)
}

func TestParseFlags(t *testing.T) {
	var conf string
	var js bool
	ops, err := ParseFlags([]string{"t.tsv", "--conf", "x", "--json", "--", "-N2"},
		Flag{Long: "conf", Value: true, Set: func(v string) error { conf = v; return nil }},
		Flag{Long: "json", Set: func(string) error { js = true; return nil }})
	require.NoError(t, err)
	assert.Equal(t, []string{"t.tsv", "-N2"}, ops)
	assert.Equal(t, "x", conf)
	assert.True(t, js)
}

func TestParseFlagsOptionalValue(t *testing.T) {
	var got []string
	set := func(v string) error { got = append(got, v); return nil }
	cases := []struct {
		args []string
		want []string
		ops  []string
	}{
		{[]string{"--backfill"}, []string{""}, nil},
		{[]string{"--backfill=easy"}, []string{"easy"}, nil},
		// an optional value is never the next word: "easy" is an operand
		{[]string{"--backfill", "easy"}, []string{""}, []string{"easy"}},
		{[]string{"-b"}, []string{""}, nil},
		{[]string{"-beasy"}, []string{"easy"}, nil},
	}
	for _, c := range cases {
		got = nil
		ops, err := ParseFlags(c.args, Flag{Short: 'b', Long: "backfill", Optional: true, Set: set})
		require.NoError(t, err, c.args)
		assert.Equal(t, c.want, got, c.args)
		assert.Equal(t, c.ops, ops, c.args)
	}
}
