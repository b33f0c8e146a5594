package sbatch

import (
	"errors"
	"testing"
	"time"

	"github.com/hpcsched/hpcsched/position"
	"github.com/hpcsched/hpcsched/queue"
	"github.com/hpcsched/hpcsched/selectnodes"
	"github.com/hpcsched/hpcsched/slurmconf"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A size in kilobytes near the int64 limit is too large, not negative:
// rounding it up to megabytes must not overflow.
func TestParseMemoryKilobytesNearTheLimit(t *testing.T) {
	for _, c := range []struct {
		in   string
		want int64
	}{{"0K", 0}, {"1K", 1}, {"1024K", 1}, {"1025K", 2}, {"9223372036854774784K", 9007199254740991}} {
		got, err := ParseMemory(c.in)
		if c.want > MaxMemoryMB {
			assert.ErrorContains(t, err, "larger than MaxMemoryMB", c.in)
			continue
		}
		require.NoError(t, err, c.in)
		assert.Equal(t, c.want, got, c.in)
	}
	for _, in := range []string{"9223372036854775807K", "9223372036854775000K"} {
		got, err := ParseMemory(in)
		assert.ErrorContains(t, err, "larger than MaxMemoryMB", in)
		assert.Zero(t, got, in)
	}
	_, err := Parse([]string{"--mem=9223372036854775807K"})
	var e *Error
	require.True(t, errors.As(err, &e))
	assert.Equal(t, 6, e.Offset)
}

// A GPU type given to --gpus or --gpus-per-node holds for the other one
// given without a type; two different types are refused, naming the later.
func TestGPUTypeAcrossGPUOptions(t *testing.T) {
	for _, args := range [][]string{
		{"-N2", "--gpus-per-node=a100:2", "--gpus=4"},
		{"-N2", "--gpus=4", "--gpus-per-node=a100:2"},
		{"-N2", "--gpus=a100:4", "--gpus-per-node=2"},
		{"-N2", "--gpus-per-node=2", "-G", "a100:4"},
	} {
		o, err := Parse(args)
		require.NoError(t, err, args)
		assert.Equal(t, "a100", o.GPUType, args)
		r, err := o.Request("")
		require.NoError(t, err, args)
		assert.Equal(t, []selectnodes.GRESRequest{{Name: "gpu", Type: "a100", Min: 2, Max: 2}}, r.GRES, args)
	}
	// the same option again replaces the first, type and all
	o, err := Parse([]string{"--gpus=a100:2", "--gpus=4"})
	require.NoError(t, err)
	assert.Empty(t, o.GPUType)
	_, err = Parse([]string{"--gpus=a100:4", "--gpus-per-node=v100:2"})
	var e *Error
	require.True(t, errors.As(err, &e), "%v", err)
	assert.Equal(t, 1, e.Arg)
	assert.Contains(t, e.Msg, "a100")
	assert.Contains(t, e.Msg, "v100")
}

// A running spec's errors say where in the spec they are, and a key given
// twice is refused instead of the second silently replacing the first.
func TestRunningSpecErrorsArePositioned(t *testing.T) {
	for _, c := range []struct {
		spec string
		off  int
		msg  string
	}{
		{"n1:cpus=1,cpus=2", 10, "cpus is given twice"},
		{"n1:end=2h,mem=1G,end=1h", 17, "end is given twice"},
		{"n1:cpus=-1", 8, `"-1" is not a count`},
		{"n[1-2]:cpus=8,mem=lots", 18, `mem: "lots" is not a size`},
		{"n1:colour=red", 3, "unknown key"},
		{"n1:cpus=1,,mem=1G", 10, `"" is not key=value`},
		{"n1:gres=gpu", 8, "gres"},
		{":", 0, "names no nodes"},
	} {
		_, err := ParseRunning(c.spec)
		var e *Error
		require.True(t, errors.As(err, &e), "%s: %v", c.spec, err)
		assert.Equal(t, c.off, e.Offset, c.spec)
		assert.Contains(t, e.Error(), c.msg, c.spec)
		assert.Contains(t, e.Error(), c.spec, "the spec is named")
		pos, ok := position.Of(err)
		require.True(t, ok)
		assert.Equal(t, c.off, pos.Offset)
	}
	r, err := ParseRunning("n1:gpus=1,gres=gpu:a100:1;nic:2")
	require.NoError(t, err, "gpus and gres are different keys")
	assert.Len(t, r.GRES, 3)
}

// A request's and a spec's node lists are their own: changing them leaves
// the options, and the next request made from them, as parsed.
func TestRequestDoesNotShareTheOptionsNodeLists(t *testing.T) {
	o, err := Parse([]string{"-w", "n[1-2]", "-x", "n3", "--gres=gpu:1"})
	require.NoError(t, err)
	r, err := o.Request("")
	require.NoError(t, err)
	r.Required[0], r.Excluded[0], r.GRES[0].Name = "changed", "changed", "changed"
	assert.Equal(t, []string{"n1", "n2"}, o.NodeList)
	assert.Equal(t, []string{"n3"}, o.Exclude)
	again, err := o.Request("")
	require.NoError(t, err)
	assert.Equal(t, []string{"n1", "n2"}, again.Required)
	assert.Equal(t, []string{"n3"}, again.Excluded)
	assert.Equal(t, "gpu", again.GRES[0].Name)
	sp, err := o.Spec(time.Time{})
	require.NoError(t, err)
	sp.Request.Required[1] = "changed"
	assert.Equal(t, []string{"n1", "n2"}, o.NodeList, "a spec's lists are its own too")
}

// --begin's forms as sbatch(1) documents them beside the ones read
// before: fika, a time of day with AM or PM, and the dates MMDDYY and
// MM/DD/YY.
func TestBeginDocumentedForms(t *testing.T) {
	now := time.Date(2026, 11, 23, 10, 30, 0, 0, time.UTC)
	for in, want := range map[string]time.Time{
		"fika":       time.Date(2026, 11, 23, 15, 0, 0, 0, time.UTC),
		"4:00PM":     time.Date(2026, 11, 23, 16, 0, 0, 0, time.UTC),
		"4:00pm":     time.Date(2026, 11, 23, 16, 0, 0, 0, time.UTC),
		"9:15:30am":  time.Date(2026, 11, 24, 9, 15, 30, 0, time.UTC), // past today: tomorrow
		"12:30AM":    time.Date(2026, 11, 24, 0, 30, 0, 0, time.UTC),
		"12:30PM":    time.Date(2026, 11, 23, 12, 30, 0, 0, time.UTC),
		"120126":     time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC),
		"12/01/26":   time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC),
		"02/29/28":   time.Date(2028, 2, 29, 0, 0, 0, 0, time.UTC),
		"16:00":      time.Date(2026, 11, 23, 16, 0, 0, 0, time.UTC),
		"2026-12-01": time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC),
	} {
		got, err := ParseBegin(in, now)
		require.NoError(t, err, in)
		assert.Equal(t, want, got, in)
	}
	for _, bad := range []string{"13:00pm", "0:30am", "16:00:00AMX", "02/30/26", "130126", "12/01/2026", "1201", "12-01-26"} {
		_, err := ParseBegin(bad, now)
		assert.Error(t, err, bad)
	}
	o, err := Parse([]string{"--begin=4:00PM"})
	require.NoError(t, err)
	at, err := o.BeginAt(now)
	require.NoError(t, err)
	assert.Equal(t, time.Date(2026, 11, 23, 16, 0, 0, 0, time.UTC), at)
}

// With -n, sbatch asks for no more nodes than tasks: -N2 -n1 is one node
// ("can't run 1 processes on 2 nodes"), as a real Slurm 22.05.8 placed
// --hint=nomultithread -n1 -N2 (check's layout-blind3 set, line 49). The
// options keep what was written.
func TestNodesAboveTasksAreCutToTheTasks(t *testing.T) {
	for _, c := range []struct {
		args     []string
		min, max int
	}{
		{[]string{"-N2", "-n1"}, 1, 1},
		{[]string{"-N", "2-4", "-n", "3"}, 2, 3},
		{[]string{"-N", "2-4", "-n", "1"}, 1, 1},
		{[]string{"-N3", "-n3"}, 3, 3},
		{[]string{"-N2", "-n8"}, 2, 2},
		{[]string{"-N2"}, 2, 2},
		{[]string{"-n2"}, 0, 0},
		{[]string{"-N4", "-n2", "--ntasks-per-node=1"}, 2, 2},
	} {
		o, err := Parse(c.args)
		require.NoError(t, err, c.args)
		r, err := o.Request("")
		require.NoError(t, err, c.args)
		assert.Equal(t, [2]int{c.min, c.max}, [2]int{r.MinNodes, r.MaxNodes}, c.args)
	}
	o, err := Parse([]string{"-N2", "-n1"})
	require.NoError(t, err)
	assert.Equal(t, [2]int{2, 2}, [2]int{o.MinNodes, o.MaxNodes}, "the options as written")
}

// A caller's Flag without a Set function is an error where the flag is
// used, not a nil-function panic.
func TestFlagWithoutSetIsAnError(t *testing.T) {
	_, err := ParseFlags([]string{"a", "-x", "1"}, Flag{Short: 'x', Value: true})
	var e *Error
	require.True(t, errors.As(err, &e), "%v", err)
	assert.Equal(t, 2, e.Arg)
	assert.Contains(t, e.Msg, "no Set")
	_, err = Parse([]string{"-N1", "--mine"}, Flag{Long: "mine"})
	require.True(t, errors.As(err, &e), "%v", err)
	assert.Equal(t, 1, e.Arg)
}

// -t INFINITE, UNLIMITED, -1 and 0 ask for no time limit, which is a
// limit given (above every finite MaxTime, as Slurm holds such a job), not
// one left out (which takes the partition's default); a Spec submits it
// as the queue's longest.
func TestTimeGivenAsNone(t *testing.T) {
	for _, v := range []string{"INFINITE", "UNLIMITED", "infinite", "-1", "0"} {
		o, err := Parse([]string{"-t", v})
		require.NoError(t, err, v)
		assert.Equal(t, slurmconf.Unlimited, o.TimeLimit, v)
		r, err := o.Request("")
		require.NoError(t, err, v)
		assert.Equal(t, slurmconf.Unlimited, r.TimeLimit, v)
		spec, err := o.Spec(time.Time{})
		require.NoError(t, err, v)
		assert.Equal(t, queue.MaxTimeLimit, spec.TimeLimit, v)
		assert.Zero(t, spec.Request.TimeLimit, "one limit, in the Spec")
	}
	o, err := Parse([]string{"-N1"})
	require.NoError(t, err)
	assert.Zero(t, o.TimeLimit, "not given")
}

// --exclusive and -s/--oversubscribe set one thing, how the job shares its
// nodes: the later holds, as in sbatch, whichever order they come in.
func TestExclusiveAndOversubscribeTheLaterHolds(t *testing.T) {
	for _, c := range []struct {
		args  []string
		share selectnodes.ShareRequest
	}{
		{[]string{"--exclusive", "-s"}, selectnodes.ShareOversubscribe},
		{[]string{"-s", "--exclusive"}, selectnodes.ShareExclusiveJob},
		{[]string{"--exclusive=user", "--oversubscribe"}, selectnodes.ShareOversubscribe},
		{[]string{"--share", "--exclusive=user"}, selectnodes.ShareExclusiveJob},
	} {
		o, err := Parse(c.args)
		require.NoError(t, err, c.args)
		assert.False(t, o.Exclusive && o.Oversubscribe, c.args)
		r, err := o.Request("")
		require.NoError(t, err, c.args)
		assert.Equal(t, c.share, r.Share, c.args)
	}
}
