package sbatch

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// The request and the spec are the caller's: sorting or changing their
// node lists leaves the options, and the next request made from them, as
// they were.
func TestRequestListsAreTheCallers(t *testing.T) {
	o, err := Parse(strings.Fields("-N2 -w n[1-2] -x n3 -p p"))
	require.NoError(t, err)
	r, err := o.Request("p")
	require.NoError(t, err)
	r.Required[0], r.Excluded[0] = "x", "y"
	sp, err := o.Spec(time.Time{})
	require.NoError(t, err)
	sp.Request.Required[1] = "z"
	require.Equal(t, []string{"n1", "n2"}, o.NodeList)
	require.Equal(t, []string{"n3"}, o.Exclude)
	again, err := o.Request("p")
	require.NoError(t, err)
	require.Equal(t, []string{"n1", "n2"}, again.Required)
	require.Equal(t, []string{"n3"}, again.Excluded)
}
