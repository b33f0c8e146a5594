package sim

import (
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fieldsTrace has every field set, fractions where real traces write
// them (average CPU time, used memory, a submit time), a job out of line
// order, one left out (unknown run time) and one killed at its limit.
const fieldsTrace = `; MaxNodes: 8
; MaxProcs: 8
; Queue: 3 long
1 0 5 100 2 95.25 1024.5 2 200 2048 1 7 4 11 3 1 -1 -1
2 10 0 50 4 48 512 4 60 4096 0 8 5 12 3 1 1 30
4 12.5 0 -1 1 -1 -1 1 60 -1 1 9 6 13 3 1 -1 -1
3 11 1 500 8 400.125 64 8 100 128 1 7 4 11 3 1 2 5
`

// lineFields is each job line's 18 fields by job number, read with
// strconv.ParseFloat: what Job.SWF must hold.
func lineFields(t *testing.T, trace string) map[float64]SWFFields {
	out := map[float64]SWFFields{}
	for _, line := range strings.Split(trace, "\n") {
		f := strings.Fields(line)
		if len(f) == 0 || strings.HasPrefix(f[0], ";") {
			continue
		}
		require.Len(t, f, 18)
		var fs SWFFields
		for i, s := range f {
			v, err := strconv.ParseFloat(s, 64)
			require.NoError(t, err)
			fs[i] = v
		}
		out[fs[0]] = fs
	}
	return out
}

// Read under SWFOptions.KeepFields, every record carries its job's line,
// the trace read one job at a time or whole; without it none does; and
// the replay decides the same either way.
func TestKeepFieldsReachTheRecords(t *testing.T) {
	want := lineFields(t, fieldsTrace)
	run := func(keep, whole bool) *Result {
		so := SWFOptions{KeepFields: keep}
		sr, err := NewSWFReader(strings.NewReader(fieldsTrace), so)
		require.NoError(t, err)
		c, err := sr.Header().ClusterFor(nil, nil)
		require.NoError(t, err)
		var src Source = NewTraceSource(sr, c, Conventions{}, 0)
		if whole {
			tr, err := ReadSWF(strings.NewReader(fieldsTrace), so)
			require.NoError(t, err)
			src = tr.Workload("x", c).Source()
		}
		res, err := RunSource(c, "x", src, Options{Backfill: EASY, Record: true})
		require.NoError(t, err)
		return res
	}
	plain := run(false, false)
	for _, whole := range []bool{false, true} {
		kept := run(true, whole)
		require.Len(t, kept.Records, 3, "whole %v", whole)
		for i, r := range kept.Records {
			require.NotNil(t, r.SWF, "whole %v: %s", whole, r.Name)
			assert.Equal(t, "swf"+strconv.FormatFloat(r.SWF[0], 'f', -1, 64), r.Name)
			assert.Equal(t, want[r.SWF[0]], *r.SWF, "whole %v: %s", whole, r.Name)
			assert.Nil(t, plain.Records[i].SWF)
			r.SWF = nil
			assert.Equal(t, plain.Records[i], r, "the fields change no decision")
		}
		assert.Equal(t, plain.Metrics, kept.Metrics)
	}
	assert.Equal(t, 1024.5, run(true, false).Records[0].SWF[6], "a fraction kept")
}

// Each line's fields are its own, and a reader without KeepFields keeps
// none.
func TestKeptFieldsPerLine(t *testing.T) {
	tr, err := ReadSWF(strings.NewReader(fieldsTrace), SWFOptions{KeepFields: true})
	require.NoError(t, err)
	require.Len(t, tr.Jobs, 4)
	want := lineFields(t, fieldsTrace)
	for i, j := range tr.Jobs {
		require.NotNil(t, j.Fields)
		assert.Equal(t, want[float64(j.ID)], *j.Fields)
		if i > 0 {
			assert.NotSame(t, tr.Jobs[i-1].Fields, j.Fields)
		}
	}
	tr, err = ReadSWF(strings.NewReader(fieldsTrace), SWFOptions{})
	require.NoError(t, err)
	for _, j := range tr.Jobs {
		assert.Nil(t, j.Fields)
	}
}
