package topology

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/bits-and-blooms/bitset"
	"github.com/hpcsched/hpcsched/position"
	"github.com/hpcsched/hpcsched/slurmconf"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func nodeNames(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("n%d", i)
	}
	return out
}

func names(lo, hi int) []string {
	var out []string
	for i := lo; i <= hi; i++ {
		out = append(out, fmt.Sprintf("n%d", i))
	}
	return out
}

func set(n int, idx ...int) *bitset.BitSet {
	b := bitset.New(uint(n))
	for _, i := range idx {
		b.Set(uint(i))
	}
	return b
}

func rangeSet(n, lo, hi int) *bitset.BitSet {
	b := bitset.New(uint(n))
	for i := lo; i <= hi; i++ {
		b.Set(uint(i))
	}
	return b
}

// small: 16 nodes; leaves s0..s3 of 4 nodes; m0 = s0,s1; m1 = s2,s3; top.
func small(t testing.TB, opts ...Option) *Tree {
	tr, err := New(nodeNames(16), []SwitchSpec{
		{Name: "s0", Nodes: names(0, 3)}, {Name: "s1", Nodes: names(4, 7)},
		{Name: "s2", Nodes: names(8, 11)}, {Name: "s3", Nodes: names(12, 15)},
		{Name: "m0", Switches: []string{"s0", "s1"}}, {Name: "m1", Switches: []string{"s2", "s3"}},
		{Name: "top", Switches: []string{"m0", "m1"}},
	}, opts...)
	require.NoError(t, err)
	return tr
}

func TestStructure(t *testing.T) {
	tr := small(t)
	top, _ := tr.Switch("top")
	m1, _ := tr.Switch("m1")
	s2, _ := tr.Switch("s2")
	assert.Equal(t, []int{top}, tr.Roots)
	assert.Equal(t, 2, tr.MaxLevel)
	assert.Equal(t, 2, tr.Switches[top].Level)
	assert.Equal(t, 1, tr.Switches[m1].Level)
	assert.Equal(t, 0, tr.Switches[s2].Level)
	assert.Equal(t, m1, tr.Switches[s2].Parent)
	assert.Equal(t, -1, tr.Switches[top].Parent)
	assert.Len(t, tr.Switches[m1].Children, 2)
	leaf, ok := tr.Leaf(9)
	require.True(t, ok)
	assert.Equal(t, s2, leaf)
	assert.Equal(t, rangeSet(16, 8, 15).String(), tr.Nodes(m1).String())
	assert.Equal(t, uint(16), tr.Covered().Count())
}

func TestValidation(t *testing.T) {
	nodes := nodeNames(4)
	tests := []struct {
		name  string
		specs []SwitchSpec
		msg   string
	}{
		{"unknown node", []SwitchSpec{{Name: "s0", Nodes: []string{"n0", "zz"}}}, "switch s0: unknown node zz"},
		{"unknown switch", []SwitchSpec{{Name: "top", Switches: []string{"s9"}}}, "switch top: unknown switch s9"},
		{"both", []SwitchSpec{{Name: "s0", Nodes: []string{"n0"}, Switches: []string{"s0"}}}, "switch s0 lists both Nodes and Switches"},
		{"cycle", []SwitchSpec{{Name: "a", Switches: []string{"b"}}, {Name: "b", Switches: []string{"a"}}}, "cycle"},
		{"self", []SwitchSpec{{Name: "a", Switches: []string{"a"}}}, "lists itself"},
		{"two leaves", []SwitchSpec{{Name: "s0", Nodes: []string{"n0"}}, {Name: "s1", Nodes: []string{"n0"}}}, "node n0 is under two leaf switches, s0 and s1"},
		{"two parents", []SwitchSpec{{Name: "s0", Nodes: []string{"n0"}}, {Name: "a", Switches: []string{"s0"}}, {Name: "b", Switches: []string{"s0"}}}, "switch s0 has two parents, a and b"},
		{"duplicate", []SwitchSpec{{Name: "s0"}, {Name: "s0"}}, "defined twice"},
		{"no name", []SwitchSpec{{Nodes: []string{"n0"}}}, "no name"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := New(nodes, tt.specs)
			var te *Error
			require.True(t, errors.As(err, &te), "want *Error, got %v", err)
			assert.Contains(t, err.Error(), tt.msg)
		})
	}
	tr, err := New(nodes, []SwitchSpec{{Name: "s0", Nodes: []string{"n0", "zz"}}}, Lenient())
	require.NoError(t, err)
	assert.Equal(t, []string{"switch s0: unknown node zz ignored"}, tr.Warnings)
}

func TestFromConfigPositions(t *testing.T) {
	top, err := slurmconf.ParseTopology(strings.NewReader("SwitchName=s0 Nodes=n[0-1]\nSwitchName=s1 Nodes=n[1-2]\n"))
	require.NoError(t, err)
	_, err = FromConfig(top, nodeNames(4))
	require.Error(t, err)
	assert.Equal(t, "2:1: topology: node n1 is under two leaf switches, s0 and s1", err.Error())
	var te *Error
	require.ErrorAs(t, err, &te)
	assert.Equal(t, position.Position{Line: 2, Column: 1, Offset: 27}, te.Pos)
	pos, ok := position.Of(err)
	assert.True(t, ok)
	assert.Equal(t, te.Pos, pos)

	top, err = slurmconf.ParseTopology(strings.NewReader("BlockName=b1 Nodes=n[0-1]\nBlockName=b2 Nodes=n[1-2]\nBlockSizes=2,4\n"))
	require.NoError(t, err)
	_, err = FromConfig(top, nodeNames(4))
	assert.EqualError(t, err, "2:1: topology: node n1 is in blocks b1 and b2")
	top, err = slurmconf.ParseTopology(strings.NewReader("BlockName=b1 Nodes=n[0-1]\nBlockName=b2 Nodes=n[2-3]\nBlockSizes=2,4\n"))
	require.NoError(t, err)
	tr, err := FromConfig(top, nodeNames(4))
	require.NoError(t, err)
	assert.Len(t, tr.Blocks, 2)
	assert.Equal(t, []int{2, 4}, tr.BlockSizes)
	top, _ = slurmconf.ParseTopology(strings.NewReader("BlockSizes=4,2\n"))
	_, err = FromConfig(top, nodeNames(4))
	assert.ErrorContains(t, err, "must ascend")
}

func TestMetrics(t *testing.T) {
	tr := small(t)
	tests := []struct {
		nodes  []int
		level  int
		spread int
	}{
		{[]int{5}, 0, 0},
		{[]int{4, 7}, 0, 3},
		{[]int{0, 7}, 1, 7},
		{[]int{3, 4}, 1, 1},
		{[]int{3, 12}, 2, 9},
		{[]int{8, 9, 10, 11, 12}, 1, 4},
		{[]int{0, 15}, 2, 15},
	}
	for _, tt := range tests {
		b := set(16, tt.nodes...)
		lvl, ok := tr.LowestCommonLevel(b)
		require.True(t, ok, "%v", tt.nodes)
		assert.Equal(t, tt.level, lvl, "level of %v", tt.nodes)
		assert.Equal(t, tt.spread, Spread(b), "spread of %v", tt.nodes)
	}
	_, ok := tr.LowestCommonLevel(bitset.New(16))
	assert.False(t, ok)
	// two trees have no common switch; a node under no leaf has none either
	two, err := New(nodeNames(5), []SwitchSpec{{Name: "a", Nodes: names(0, 1)}, {Name: "b", Nodes: names(2, 3)}})
	require.NoError(t, err)
	_, ok = two.LowestCommonLevel(set(5, 0, 2))
	assert.False(t, ok)
	_, ok = two.LowestCommonLevel(set(5, 4))
	assert.False(t, ok)
	lvl, ok := two.LowestCommonLevel(set(5, 2, 3))
	assert.True(t, ok)
	assert.Equal(t, 0, lvl)
}

func TestFit(t *testing.T) {
	tr := small(t)
	all := rangeSet(16, 0, 15)
	got, err := tr.Fit(all, Request{Nodes: 3})
	require.NoError(t, err)
	assert.Equal(t, []int{0, 1, 2}, got, "one leaf suffices")

	// best fit: s1 has exactly 3 free, s0 4, s2 2, s3 4
	avail := all.Clone()
	avail.Clear(4)
	avail.Clear(8).Clear(9)
	got, err = tr.Fit(avail, Request{Nodes: 3})
	require.NoError(t, err)
	assert.Equal(t, []int{5, 6, 7}, got)

	// 6 nodes: lowest switch is m1 (s2 2 + s3 4 = 6, exact) over m0 (7)
	got, err = tr.Fit(avail, Request{Nodes: 6})
	require.NoError(t, err)
	assert.Equal(t, []int{10, 11, 12, 13, 14, 15}, got)
	lvl, _ := tr.LowestCommonLevel(set(16, got...))
	assert.Equal(t, 1, lvl)

	// 7 nodes: m0 exactly; the fuller leaf first then the best fit
	got, err = tr.Fit(avail, Request{Nodes: 7})
	require.NoError(t, err)
	assert.Equal(t, []int{0, 1, 2, 3, 5, 6, 7}, got)

	// required node forces its switch
	got, err = tr.Fit(all, Request{Nodes: 2, Required: set(16, 9)})
	require.NoError(t, err)
	assert.Equal(t, []int{8, 9}, got)
	got, err = tr.Fit(all, Request{Nodes: 2, Required: set(16, 3, 4)})
	require.NoError(t, err)
	assert.Equal(t, []int{3, 4}, got)
	_, err = tr.Fit(avail, Request{Nodes: 1, Required: set(16, 4)})
	assert.ErrorIs(t, err, ErrNoFit)

	// CPUs: nodes of s3 have 8 CPUs, the rest 1
	cpus := func(i int) int {
		if i >= 12 {
			return 8
		}
		return 1
	}
	got, err = tr.Fit(all, Request{Nodes: 1, CPUs: 16, CPUsOf: cpus})
	require.NoError(t, err)
	assert.Equal(t, []int{12, 13}, got)

	// weights break ties between equally good leaves
	w := func(i int) int64 {
		if i < 4 {
			return 9
		}
		return 1
	}
	got, err = tr.Fit(all, Request{Nodes: 4, Weight: w})
	require.NoError(t, err)
	assert.Equal(t, []int{4, 5, 6, 7}, got)

	_, err = tr.Fit(all, Request{Nodes: 17})
	assert.ErrorIs(t, err, ErrNoFit)
}

func TestFitSeveralTrees(t *testing.T) {
	specs := []SwitchSpec{{Name: "a", Nodes: names(0, 3)}, {Name: "b", Nodes: names(4, 7)}}
	tr, err := New(nodeNames(8), specs)
	require.NoError(t, err)
	_, err = tr.Fit(rangeSet(8, 0, 7), Request{Nodes: 6})
	assert.ErrorIs(t, err, ErrNoSingleTree)
	span, err := New(nodeNames(8), specs, AllowSpanningTrees())
	require.NoError(t, err)
	got, err := span.Fit(rangeSet(8, 0, 7), Request{Nodes: 6})
	require.NoError(t, err)
	assert.Len(t, got, 6)
}

func TestSeed001(t *testing.T) {
	names, tr := Seed001()
	assert.Len(t, names, 1024)
	assert.Len(t, tr.Switches, 32+4+1)
	assert.Equal(t, 2, tr.MaxLevel)
	root := tr.Roots[0]
	assert.Equal(t, "root", tr.Switches[root].Name)
	assert.Len(t, tr.Switches[root].Leaves, 32)
	got, err := tr.Fit(rangeSet(1024, 0, 1023), Request{Nodes: 40})
	require.NoError(t, err)
	lvl, _ := tr.LowestCommonLevel(set(1024, got...))
	assert.Equal(t, 1, lvl, "40 nodes need two leaves under one middle switch")
	assert.Equal(t, 39, Spread(set(1024, got...)))
}
