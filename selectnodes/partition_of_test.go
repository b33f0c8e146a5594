package selectnodes

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// partitionOf finds the default partition by its name, or for "", and
// every other by the map, as the map alone does; "" without a default
// and an unknown name are invalid requests.
func TestPartitionOfAsTheMap(t *testing.T) {
	nodes := []Node{{Name: "n0", CPUs: 1}, {Name: "n1", CPUs: 1}}
	c, err := New(nodes, []Partition{{Name: "a", Nodes: []string{"n0"}}, {Name: "b", Nodes: []string{"n1"}, Default: true}, {Name: "c", Nodes: []string{"n0", "n1"}}})
	require.NoError(t, err)
	for _, name := range []string{"", "a", "b", "c"} {
		pi, perr := c.partitionOf(name)
		require.Nil(t, perr)
		want := name
		if name == "" {
			want = "b"
		}
		require.Equal(t, c.partIx[want], pi, name)
	}
	_, perr := c.partitionOf("d")
	require.ErrorIs(t, perr, ErrInvalidRequest)
	none, err := New(nodes, []Partition{{Name: "a", Nodes: []string{"n0"}}})
	require.NoError(t, err)
	_, perr = none.partitionOf("")
	require.ErrorIs(t, perr, ErrInvalidRequest)
	pi, perr := none.partitionOf("a")
	require.Nil(t, perr)
	require.Equal(t, 0, pi)
}
