package slurmconf

import (
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Lines configured alike are one NodeLine wherever they stand; the file's
// order and each name's position are kept.
func TestGroupNonAdjacentLines(t *testing.T) {
	c := parse(t, "NodeName=g1 CPUs=64 Feature=gpu Weight=10\n"+
		"NodeName=c[1-2] CPUs=128 Feature=cpu\n"+
		"  NodeName=g2 CPUs=64 Feature=gpu Weight=10\n"+
		"NodeName=c3 CPUs=128 Feature=cpu\n"+
		"NodeName=DEFAULT TmpDisk=0\n"+ // changes nothing in force
		"NodeName=g3 Weight=10 CPUs=64 Feature=gpu\n"+
		"NodeName=x1 CPUs=128 Feature=cpu Weight=2\n"+
		"NodeName=c4 CPUs=128 Feature=cpu\n"+
		"PartitionName=all Nodes=ALL\n")
	require.Len(t, c.Nodes, 3)
	g, cpu, x := &c.Nodes[0], &c.Nodes[1], &c.Nodes[2]
	assert.Equal(t, []string{"g1", "g2", "g3"}, g.Names)
	assert.Equal(t, []string{"c1", "c2", "c3", "c4"}, cpu.Names)
	assert.Equal(t, []string{"x1"}, x.Names)
	assert.Equal(t, 3, g.Lines())
	assert.Equal(t, 3, cpu.Lines())
	for j, want := range []int{0, 2, 3, 4} {
		assert.Equal(t, want, cpu.LineStart(j), "line %d", j)
	}
	assert.Equal(t, Pos{Line: 3, Column: 3, Offset: 81}, g.NamePos(1))
	assert.Equal(t, Pos{Line: 2, Column: 1, Offset: 42}, cpu.NamePos(1))
	assert.Equal(t, Pos{Line: 8, Column: 1, Offset: 267}, cpu.NamePos(3))
	want := []string{"g1", "c1", "c2", "g2", "c3", "g3", "x1", "c4"}
	assert.Equal(t, want, c.NodeNames())
	assert.Equal(t, want, c.PartitionNodes(&c.Partitions[0]))
	var got []string
	for i, k := range c.NodeOrder() {
		got = append(got, c.Nodes[i].Names[k])
	}
	assert.Equal(t, want, got)
	for i, k := range c.NodeOrder() { // stopping early is allowed
		assert.Equal(t, "g1", c.Nodes[i].Names[k])
		break
	}
	require.NoError(t, c.Validate())
}

// A name defined twice in one configuration's lines, with another between
// them, is reported where it is written the second time, naming the first.
func TestGroupDuplicateNamesPosition(t *testing.T) {
	c := parse(t, "NodeName=n1 CPUs=2\nNodeName=m1 CPUs=4\n   NodeName=n[3,1] CPUs=2\nNodeName=m[2,1] CPUs=4\n"+
		"PartitionName=p Nodes=n[1,3],zz\n")
	require.Len(t, c.Nodes, 2)
	err := c.Validate()
	require.Error(t, err)
	assert.Equal(t, "3:4: node n1 is already defined at 1:1 (and 2 more errors)", err.Error())
	var e *Error
	require.True(t, errors.As(err, &e))
	assert.Equal(t, Pos{Line: 3, Column: 4, Offset: 41}, e.Pos)
	all := err.(interface{ Unwrap() []error }).Unwrap()
	assert.Contains(t, all[1].Error(), "4:1: node m1 is already defined at 2:1")
	assert.Contains(t, all[2].Error(), "5:1: partition p: node zz is not defined")
}

// A Config made or changed by hand has no recorded order, or one that no
// longer fits its names: NodeOrder is then Nodes then Names order, and
// nothing panics.
func TestNodeOrderByHand(t *testing.T) {
	hand := &Config{Nodes: []NodeLine{{Names: []string{"b1", "b2"}}, {}, {Names: []string{"a1"}}}}
	assert.Equal(t, []string{"b1", "b2", "a1"}, hand.NodeNames())
	assert.Empty(t, (&Config{}).NodeNames())

	text := "NodeName=a1 CPUs=2\nNodeName=b1 CPUs=4\nNodeName=a2 CPUs=2\n"
	for name, change := range map[string]func(c *Config){
		"name appended":   func(c *Config) { c.Nodes[0].Names = append(c.Nodes[0].Names, "a3") },
		"name removed":    func(c *Config) { c.Nodes[0].Names = c.Nodes[0].Names[:1] },
		"names emptied":   func(c *Config) { c.Nodes[0].Names = nil },
		"lines swapped":   func(c *Config) { c.Nodes[0], c.Nodes[1] = c.Nodes[1], c.Nodes[0] },
		"line copied":     func(c *Config) { c.Nodes = append(c.Nodes, c.Nodes[1]) },
		"line added":      func(c *Config) { c.Nodes = append(c.Nodes, NodeLine{Names: []string{"z"}}) },
		"lines truncated": func(c *Config) { c.Nodes = c.Nodes[:1] },
	} {
		c := parse(t, text)
		require.Equal(t, []string{"a1", "b1", "a2"}, c.NodeNames())
		change(c)
		var plain []string
		for i := range c.Nodes {
			plain = append(plain, c.Nodes[i].Names...)
		}
		got := c.NodeNames()
		assert.ElementsMatch(t, plain, got, name)
		if name == "lines swapped" {
			assert.Equal(t, []string{"a1", "b1", "a2"}, got, "the recorded order still fits")
		}
		_ = c.Validate()
	}
}

// Grouping keeps a long file of two interleaved kinds of node to two
// NodeLines, in the order written.
func TestGroupInterleavedKinds(t *testing.T) {
	var b strings.Builder
	var want []string
	for i := range 1000 {
		name := "n" + itoa(int64(i))
		want = append(want, name)
		if i%10 == 0 {
			b.WriteString("NodeName=" + name + " CPUs=64 Feature=gpu Weight=10\n")
		} else {
			b.WriteString("NodeName=" + name + " CPUs=128 Feature=cpu\n")
		}
	}
	c := parse(t, b.String())
	require.Len(t, c.Nodes, 2)
	assert.Equal(t, 100, c.Nodes[0].Lines())
	assert.Equal(t, 900, c.Nodes[1].Lines())
	assert.Equal(t, want, c.NodeNames())
	require.NoError(t, c.Validate())
}

// A line whose position does not fit a folded line's table (NodeName past
// column 127) is a NodeLine of its own, still in the file's order.
func TestGroupFarColumnStaysApart(t *testing.T) {
	c := parse(t, "NodeName=a1 CPUs=2\nNodeName=b1 CPUs=4\n"+strings.Repeat(" ", 130)+"NodeName=a2 CPUs=2\nNodeName=a3 CPUs=2\n")
	require.Len(t, c.Nodes, 3)
	assert.Equal(t, []string{"a1"}, c.Nodes[0].Names)
	assert.Equal(t, []string{"a2", "a3"}, c.Nodes[2].Names, "the next line joins the line before it")
	assert.Equal(t, Pos{Line: 3, Column: 131, Offset: 168}, c.Nodes[2].Pos)
	assert.Equal(t, []string{"a1", "b1", "a2", "a3"}, c.NodeNames())
}
