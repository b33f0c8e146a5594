package sim

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// An ended job's run record is reused for a later submission: a replay
// whose jobs run one at a time keeps one spare record, not one per job,
// and the records it hands out (OnRecord's and the result's) are whole
// and unshared all the same.
func TestEndedRecordsAreReused(t *testing.T) {
	data := syntheticTraceEvery(40, 5000) // each job ends before the next
	sr, err := NewSWFReader(bytes.NewReader(data), SWFOptions{})
	require.NoError(t, err)
	c, err := sr.Header().ClusterFor(nil, nil)
	require.NoError(t, err)
	var given []Record
	o := Options{Backfill: EASY, Record: true, OnRecord: func(r Record) { given = append(given, r) }}
	r := newRunner(c, "serial", NewTraceSource(sr, c, Conventions{}, 0), 0, o)
	require.NoError(t, r.peek())
	require.NoError(t, r.loop())
	r.finish()
	assert.Len(t, r.spare, 1, "one record serves every job")

	want, _ := replayStream(t, bytes.NewReader(data), Options{Backfill: EASY, Record: true}, 0)
	require.Len(t, want.Records, 40)
	assert.Equal(t, want.Records, r.res.Records)
	assert.Equal(t, want.Records, given)
	for i, rec := range r.res.Records {
		assert.Equal(t, i, rec.Seq)
		require.NotEmpty(t, rec.Nodes)
		rec.Nodes[0] = -1 // the result's own: OnRecord's copy is untouched
		assert.GreaterOrEqual(t, given[i].Nodes[0], 0)
	}
}
