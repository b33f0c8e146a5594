package selectnodes

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// OversubscribesCPUs is what a scan of Partitions says, for every mode
// and count, with the sharing partition first or second.
func TestOversubscribesCPUsAgreesWithPartitions(t *testing.T) {
	nodes := []Node{{Name: "n0", CPUs: 4, RealMemory: 1000, Weight: 1}, {Name: "n1", CPUs: 4, RealMemory: 1000, Weight: 1}}
	modes := []ShareMode{ShareNo, ShareExclusive, ShareYes, ShareForce}
	cases := 0
	for _, mode := range modes {
		for _, count := range []int{0, 1, 2, 4} {
			for _, first := range []bool{true, false} {
				shared := Partition{Name: "s", Nodes: []string{"n0"}, Sharing: Sharing{Mode: mode, Count: count}}
				plain := Partition{Name: "p", Nodes: []string{"n1"}, Default: true}
				parts := []Partition{shared, plain}
				if !first {
					parts = []Partition{plain, shared}
				}
				c, err := New(nodes, parts)
				if err != nil {
					continue // a combination New refuses
				}
				want := false
				for _, p := range c.Partitions() {
					if m := p.Sharing.Mode; (m == ShareYes || m == ShareForce) && p.Sharing.Count != 1 {
						want = true
					}
				}
				assert.Equal(t, want, c.OversubscribesCPUs(), "mode %v count %d first %v", mode, count, first)
				cases++
			}
		}
	}
	require.Greater(t, cases, 16)
	c, err := New(nodes, []Partition{{Name: "p", Nodes: []string{"n0", "n1"}, Default: true, Sharing: Sharing{Mode: ShareForce, Count: 2}}})
	require.NoError(t, err)
	assert.True(t, c.OversubscribesCPUs())
	c, err = New(nodes, []Partition{{Name: "p", Nodes: []string{"n0", "n1"}, Default: true, Sharing: Sharing{Mode: ShareYes, Count: 1}}})
	require.NoError(t, err)
	assert.False(t, c.OversubscribesCPUs())
}
