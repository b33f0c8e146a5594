package auction

import (
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A missing priority or cost was read as 0 and a key given twice either
// overrode the first (cost, alpha) or added to it (nodes, jobs), so a
// typo or a merge of two files changed the objective without a word. Each
// is an error naming its place; keys the format does not know are still
// skipped, however often they come.
func TestReadJSONRefusesMissingAndRepeatedKeys(t *testing.T) {
	const node = `"nodes":[{"cpus":4,"gpus":0}]`
	for _, tt := range []struct{ in, want string }{
		{`{"alpha":1,` + node + `,"jobs":[{"id":1,"priority":5,"bids":[{"uses":[[0,1,0]],"cots":3}]}]}`, "jobs[0].bids[0].cost: missing"},
		{`{"alpha":1,` + node + `,"jobs":[{"id":1,"bids":[{"uses":[[0,1,0]],"cost":3}]}]}`, "jobs[0].priority: missing"},
		{`{"alpha":1,` + node + `,"jobs":[{"priority":9,"bids":[]}]}`, "jobs[0].id: missing"},
		{`{"alpha":1,` + node + `,"jobs":[{"id":1,"priority":5,"bids":[{"cost":3}]}]}`, "jobs[0].bids[0].uses: missing"},
		{`{"alpha":1,` + node + `,` + node + `,"jobs":[]}`, "nodes: given twice"},
		{`{"alpha":1,"alpha":0,` + node + `,"jobs":[]}`, "alpha: given twice"},
		{`{"alpha":1,` + node + `,"jobs":[],"jobs":[]}`, "jobs: given twice"},
		{`{"alpha":1,` + node + `,"jobs":[{"id":1,"priority":5,"priority":6}]}`, "jobs[0].priority: given twice"},
		{`{"alpha":1,` + node + `,"jobs":[{"id":1,"priority":5,"bids":[{"uses":[[0,1,0]],"cost":3,"cost":300}]}]}`, "jobs[0].bids[0].cost: given twice"},
	} {
		_, err := ReadJSON(strings.NewReader(tt.in))
		require.Error(t, err, tt.in)
		assert.True(t, errors.Is(err, ErrInvalid), tt.in)
		assert.Contains(t, err.Error(), tt.want, tt.in)
		assert.Contains(t, err.Error(), "near byte", tt.in)
	}
	p, err := ReadJSON(strings.NewReader(`{"alpha":1,"x":1,"x":2,` + node +
		`,"jobs":[{"id":1,"priority":5,"note":"a","note":"b","bids":[{"uses":[[0,1,0]],"cost":3,"by":"me"}]}]}`))
	require.NoError(t, err)
	assert.Equal(t, 2.0, p.Value(0, 0))
}
