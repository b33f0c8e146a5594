package sim

import (
	"bytes"
	"strconv"
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

// Job names are cut from shared blocks: each is "swf<ID>", stays so when
// later names fill the block and start new ones, and a block serves
// hundreds of names (far fewer allocations than names).
func TestJobNamesFromBlocks(t *testing.T) {
	var u userNames
	ids := []int64{1, 0, -7, 9223372036854775807, -9223372036854775808}
	for i := int64(0); i < 5000; i++ {
		ids = append(ids, i*7919)
	}
	names := make([]string, len(ids))
	for k, id := range ids {
		names[k] = u.job(id)
	}
	for k, id := range ids {
		require.Equal(t, "swf"+strconv.FormatInt(id, 10), names[k])
	}
	allocs := testing.AllocsPerRun(1000, func() { _ = u.job(123456) })
	assert.Less(t, allocs, 0.05, "allocations per name")
}
