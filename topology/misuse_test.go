package topology

import (
	"fmt"
	"testing"

	"github.com/bits-and-blooms/bitset"
	"github.com/stretchr/testify/require"
)

// A nil topology or a nil avail is an error that says so, not a panic.
func TestNilArgumentsAreErrors(t *testing.T) {
	_, err := FromConfig(nil, []string{"n1"})
	require.ErrorContains(t, err, "topology is nil")
	var te *Error
	require.ErrorAs(t, err, &te)
	names, tr := Seed001()
	_, err = tr.Fit(nil, Request{Nodes: 1})
	require.ErrorContains(t, err, "avail is nil")
	_, err = tr.FitWith(new(Scratch), nil, Request{Nodes: 1})
	require.Error(t, err)
	// a bitmap with bits beyond the universe is read for the universe only
	big := bitset.New(uint(len(names)) + 100)
	big.Set(uint(len(names)) + 50)
	big.Set(3)
	got, err := tr.Fit(big, Request{Nodes: 1})
	require.NoError(t, err)
	require.Equal(t, []int{3}, got)
}

// The metrics read a nil node set as the empty set, as Fit's Required
// does, instead of dereferencing it.
func TestMetricsOfANilSet(t *testing.T) {
	_, tr := Seed001()
	for _, set := range []*bitset.BitSet{nil, bitset.New(0), new(bitset.BitSet)} {
		s, ok := tr.LowestCommonSwitch(set)
		require.False(t, ok)
		require.Equal(t, -1, s)
		_, ok = tr.LowestCommonLevel(set)
		require.False(t, ok)
		require.Zero(t, Spread(set))
	}
}

// Under Lenient a switch or block listing many unknown nodes costs one
// warning, its names compressed: 65,536 unknown names per switch made
// 65,536 warnings (4 million of them, 460 MB, for a 64-switch file).
func TestLenientWarnsOncePerOwner(t *testing.T) {
	nodes := []string{"n0", "n1"}
	unknown := make([]string, 1000)
	for i := range unknown {
		unknown[i] = fmt.Sprintf("x%04d", i)
	}
	specs := []SwitchSpec{
		{Name: "s0", Nodes: append([]string{"n0"}, unknown...)},
		{Name: "s1", Nodes: []string{"n1", "zz"}},
	}
	blocks := []BlockSpec{{Name: "b0", Nodes: append([]string{"n0", "n1"}, unknown[:3]...)}}
	tr, err := New(nodes, specs, Lenient(), WithBlocks(blocks, nil))
	require.NoError(t, err)
	require.Equal(t, []string{
		"switch s0: 1000 unknown nodes ignored: x[0000-0999]",
		"switch s1: unknown node zz ignored",
		"block b0: 3 unknown nodes ignored: x[0000-0002]",
	}, tr.Warnings)
	_, err = New(nodes, specs)
	require.EqualError(t, err, "topology: switch s0: unknown node x0000")
	_, err = New(nodes, specs[1:2], WithBlocks(blocks, nil))
	require.EqualError(t, err, "topology: switch s1: unknown node zz")
	_, err = New(nodes, specs[:0], WithBlocks(blocks, nil))
	require.EqualError(t, err, "topology: block b0: unknown node x0000")
}
