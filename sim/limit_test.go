package sim

import (
	"fmt"
	"io"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// limitTrace is an SWF trace of the given jobs: submit time, run time
// (-1 unknown) and status (5 with run time 0: cancelled before running).
func limitTrace(jobs [][3]int) string {
	var b strings.Builder
	b.WriteString("; MaxNodes: 4\n; MaxProcs: 4\n")
	for i, j := range jobs {
		fmt.Fprintf(&b, "%d %d -1 %d 1 -1 -1 1 600 -1 %d 1 1 -1 1 -1 -1 -1\n", i+1, j[0], j[1], j[2])
	}
	return b.String()
}

// firstJobs is what a limited replay of trace gets, read as it goes
// (NewTraceSource) and read whole (Trace.WorkloadFirst): the jobs' names
// in replay order and the jobs left out.
func firstJobs(t *testing.T, trace string, limit int) (stream, whole []string, sSkip, wSkip map[string]int) {
	t.Helper()
	sr, err := NewSWFReader(strings.NewReader(trace), SWFOptions{})
	require.NoError(t, err)
	c, err := sr.Header().ClusterFor(nil, nil)
	require.NoError(t, err)
	src := NewTraceSource(sr, c, Conventions{}, limit)
	for {
		j, err := src.Next()
		if err == io.EOF {
			break
		}
		require.NoError(t, err)
		stream = append(stream, j.Spec.Name)
	}
	tr, err := ReadSWF(strings.NewReader(trace), SWFOptions{})
	require.NoError(t, err)
	w := tr.WorkloadFirst("x", c, Conventions{}, limit)
	for _, j := range w.Jobs {
		whole = append(whole, j.Spec.Name)
	}
	return stream, whole, src.Skipped(), w.Skipped
}

// A limit means one thing read as it goes or whole: the first N jobs
// kept, in line order, then in submit order; the jobs left out do not
// count, and only those before the last job taken are counted.
func TestLimitTakesTheFirstJobsKept(t *testing.T) {
	// line 2: unknown run time; line 4: cancelled; line 5 submitted
	// before line 3; line 7: unknown run time
	trace := limitTrace([][3]int{{0, 100, 1}, {5, -1, 1}, {20, 100, 1}, {22, 0, 5}, {10, 100, 1}, {30, 100, 1}, {40, -1, 0}, {50, 100, 1}})
	unknown, cancelled := "unknown run time", "cancelled before running"
	for _, tc := range []struct {
		limit   int
		jobs    string
		skipped map[string]int
	}{
		{0, "swf1 swf5 swf3 swf6 swf8", map[string]int{unknown: 2, cancelled: 1}},
		{1, "swf1", map[string]int{}},
		{2, "swf1 swf3", map[string]int{unknown: 1}},
		{3, "swf1 swf5 swf3", map[string]int{unknown: 1, cancelled: 1}},
		{4, "swf1 swf5 swf3 swf6", map[string]int{unknown: 1, cancelled: 1}},
		{5, "swf1 swf5 swf3 swf6 swf8", map[string]int{unknown: 2, cancelled: 1}},
		{99, "swf1 swf5 swf3 swf6 swf8", map[string]int{unknown: 2, cancelled: 1}},
	} {
		stream, whole, sSkip, wSkip := firstJobs(t, trace, tc.limit)
		assert.Equal(t, tc.jobs, strings.Join(stream, " "), "limit %d, read as it goes", tc.limit)
		assert.Equal(t, tc.jobs, strings.Join(whole, " "), "limit %d, read whole", tc.limit)
		assert.Equal(t, tc.skipped, sSkip, "limit %d, read as it goes", tc.limit)
		assert.Equal(t, tc.skipped, wSkip, "limit %d, read whole", tc.limit)
	}
}

// On random traces (jobs left out, submit times a little out of order)
// and random limits, both readings take the same jobs and count the same
// ones left out.
func TestLimitSameReadAsItGoesOrWhole(t *testing.T) {
	seed := rand.Uint64()
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 0))
	for range 50 {
		var jobs [][3]int
		for i := range 1 + rng.IntN(40) {
			run, status := 10+rng.IntN(100), 1
			switch rng.IntN(6) {
			case 0:
				run = -1
			case 1:
				run, status = 0, 5
			}
			jobs = append(jobs, [3]int{10*i + rng.IntN(25), run, status})
		}
		trace := limitTrace(jobs)
		limit := rng.IntN(len(jobs) + 2)
		stream, whole, sSkip, wSkip := firstJobs(t, trace, limit)
		require.Equal(t, stream, whole, "limit %d of\n%s", limit, trace)
		require.Equal(t, sSkip, wSkip, "limit %d of\n%s", limit, trace)
	}
}

// A header that sizes nothing is ErrNoClusterSize, for a caller to branch
// on (the command names its --machines flag then).
func TestClusterForWithoutSizeIsErrNoClusterSize(t *testing.T) {
	_, err := (&Trace{}).ClusterFor(nil, nil)
	require.Error(t, err)
	assert.ErrorIs(t, err, ErrNoClusterSize)
	_, err = (&Trace{MaxProcs: 4}).ClusterFor(nil, nil)
	assert.NoError(t, err)
}
