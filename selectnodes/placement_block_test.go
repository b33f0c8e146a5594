package selectnodes

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// A placement made in one block has n names and n shares, no room past
// them (an append copies out), and nothing shared with another.
func TestPlacementBlocks(t *testing.T) {
	var all []*Placement
	for n := 0; n <= 40; n++ {
		p := newPlacementOf(n)
		require.Len(t, p.Names, n)
		require.Len(t, p.Alloc, n)
		require.Equal(t, n, cap(p.Names), "n=%d", n)
		require.Equal(t, n, cap(p.Alloc), "n=%d", n)
		require.NotNil(t, p.Names)
		require.NotNil(t, p.Alloc)
		for k := range n {
			require.Zero(t, p.Names[k])
			require.Zero(t, p.Alloc[k])
			p.Names[k], p.Alloc[k] = "x", NodeAlloc{Node: k, CPUs: n}
		}
		all = append(all, p)
	}
	for n, p := range all {
		grown := append(p.Names, "y")
		grown[0] = "z"
		for k := range n {
			require.Equal(t, "x", p.Names[k])
			require.Equal(t, NodeAlloc{Node: k, CPUs: n}, p.Alloc[k])
		}
	}
}
