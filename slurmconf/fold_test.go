package slurmconf

import (
	"errors"
	"hash/maphash"
	"reflect"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Lines differing only in their names fold into one NodeLine that still
// says where each name was written.
func TestFoldIdenticalLines(t *testing.T) {
	c := parse(t, "NodeName=n1 CPUs=4 Feature=a,b Gres=gpu:2\n"+
		"# a comment\n"+
		"  NodeName=n[2-3] CPUs=4 Feature=a,b Gres=gpu:2\n"+
		"NodeName=DEFAULT TmpDisk=0\n"+ // changes nothing in force
		"NodeName=n4 Gres=gpu:2 CPUs=4 Feature=a,b\n")
	require.Len(t, c.Nodes, 1)
	n := &c.Nodes[0]
	assert.Equal(t, []string{"n1", "n2", "n3", "n4"}, n.Names)
	assert.Equal(t, 3, n.Lines())
	assert.Equal(t, 4, c.NodeCount())
	want := []Pos{{Line: 1, Column: 1}, {Line: 3, Column: 3, Offset: 56}, {Line: 3, Column: 3, Offset: 56},
		{Line: 5, Column: 1, Offset: 129}}
	for k := range n.Names {
		assert.Equal(t, want[k], n.NamePos(k), "name %d", k)
	}
	for j, want := range []int{0, 1, 3, 4} {
		assert.Equal(t, want, n.LineStart(j), "line %d", j)
	}
	assert.Panics(t, func() { n.LineStart(4) })
	assert.Panics(t, func() { n.LineStart(-1) })
	assert.Equal(t, 0, (&NodeLine{}).LineStart(0))
	assert.Equal(t, 0, (&NodeLine{}).LineStart(1), "a NodeLine of no name is one line of none")
	assert.Equal(t, n.Pos, n.NamePos(-1))
	assert.Equal(t, n.Pos, n.NamePos(4))
	c2 := parse(t, "NodeName=DEFAULT X=1\nNodeName=n1\nNodeName=n2\n")
	require.Len(t, c2.Nodes, 1, "pairs inherited from one DEFAULT line fold")
	assert.Equal(t, []Pair{{Key: "X", Value: "1", Pos: Pos{Line: 1, Column: 18, Offset: 17},
		ValuePos: Pos{Line: 1, Column: 20, Offset: 19}}}, c2.Nodes[0].Extra)
	line, ok := c.Node("n3")
	require.True(t, ok)
	assert.Equal(t, n, line)
}

// A line differing in anything but its names, however little, is a
// configuration record of its own.
func TestFoldKeepsDifferentLines(t *testing.T) {
	base := "NodeName=n1 CPUs=4 RealMemory=100 Feature=a Gres=gpu:2 Weight=5 X=1\n"
	for _, second := range []string{
		"NodeName=n2 CPUs=4 RealMemory=100 Feature=a Gres=gpu:2 Weight=6 X=1",
		"NodeName=n2 CPUs=8 RealMemory=100 Feature=a Gres=gpu:2 Weight=5 X=1",
		"NodeName=n2 CPUs=4 RealMemory=101 Feature=a Gres=gpu:2 Weight=5 X=1",
		"NodeName=n2 CPUs=4 RealMemory=100 Feature=b Gres=gpu:2 Weight=5 X=1",
		"NodeName=n2 CPUs=4 RealMemory=100 Feature=a,a Gres=gpu:2 Weight=5 X=1",
		"NodeName=n2 CPUs=4 RealMemory=100 Feature=a Gres=gpu:3 Weight=5 X=1",
		"NodeName=n2 CPUs=4 RealMemory=100 Feature=a Gres=gpu:2 Weight=5 X=2",
		"NodeName=n2 CPUs=4 RealMemory=100 Feature=a Gres=gpu:2 Weight=5 X=1 State=DOWN",
		"NodeName=n2 CPUs=4 RealMemory=100 Feature=a Gres=gpu:2 Weight=5 X=1 TmpDisk=1",
		"NodeName=n2 CPUs=4 RealMemory=100 Feature=a Gres=gpu:2 Weight=5 X=1 Procs=4",
		"NodeName=n2 CPUs=4 RealMemory=100 Feature=a Gres=gpu:2 Weight=5 X=1 ThreadsPerCore=2",
		"NodeName=n2 CPUs=4 RealMemory=100 Feature=a Gres=gpu:2 Weight=5 X=1 NodeAddr=h2",
		// the same unmodelled pair, written again: its position differs
		"NodeName=n2 CPUs=4 RealMemory=100 Feature=a Gres=gpu:2 Weight=5  X=1",
	} {
		c := parse(t, base+second+"\n")
		require.Len(t, c.Nodes, 2, second)
		assert.Equal(t, []string{"n2"}, c.Nodes[1].Names, second)
		assert.Equal(t, 1, c.Nodes[0].Lines(), second)
	}
	plain := "NodeName=n1 CPUs=4 Weight=5\n"
	c := parse(t, plain+"PartitionName=p Nodes=n1\n"+strings.Replace(plain, "n1", "n2", 1))
	assert.Len(t, c.Nodes, 1, "lines of other kinds between node lines do not stop folding")
}

// sameConfig must compare every field of NodeLine but the names, the
// addresses and the positions: a field added later without it would fold
// lines that differ in it. Grouping must then keep such lines apart even
// when another configuration stands between them, and put lines differing
// only in names, addresses and positions together: their hashes agree.
func TestFoldComparesEveryField(t *testing.T) {
	a := NodeLine{Names: []string{"a"}, CPUs: 1, Boards: 1, Features: []string{"f"}, Gres: []Gres{{Name: "gpu", Count: 1}},
		State: "UNKNOWN", Extra: []Pair{{Key: "X", Value: "1"}}}
	other := NodeLine{Names: []string{"o"}, CPUs: 7}
	skip := map[string]bool{"Names": true, "Addrs": true, "Pos": true, "ord": true, "lead": true, "folded": true, "firsts": true}
	typ := reflect.TypeOf(a)
	for i := range typ.NumField() {
		f := typ.Field(i)
		if skip[f.Name] {
			continue
		}
		b := a
		b.Names = []string{"b"}
		v := reflect.ValueOf(&b).Elem().Field(i)
		switch v.Kind() {
		case reflect.Int, reflect.Int64:
			v.SetInt(v.Int() + 1)
		case reflect.String:
			v.SetString(v.String() + "x")
		case reflect.Slice:
			v.Set(reflect.MakeSlice(v.Type(), v.Len()+1, v.Len()+1))
		default:
			t.Fatalf("field %s of kind %s: teach this test to change it", f.Name, v.Kind())
		}
		assert.False(t, sameConfig(&a, &b), "lines differing in %s would fold", f.Name)
		cfg := groupLines(a, other, b)
		assert.Len(t, cfg.Nodes, 3, "lines differing in %s would be grouped", f.Name)
	}
	b := a
	b.Names, b.Pos, b.ord = []string{"b"}, Pos{Line: 9, Column: 3, Offset: 70}, 5
	assert.True(t, sameConfig(&a, &b))
	seed := maphash.MakeSeed()
	assert.Equal(t, configHash(seed, &a), configHash(seed, &b), "lines that fold must hash alike")
	cfg := groupLines(a, other, b)
	require.Len(t, cfg.Nodes, 2, "lines differing only in names are grouped across another line")
	assert.Equal(t, []string{"a", "b"}, cfg.Nodes[0].Names)
	assert.Equal(t, []string{"a", "o", "b"}, cfg.NodeNames())
	b.Addrs = []string{"h"}
	assert.False(t, sameConfig(&a, &b), "one line with NodeAddr, one without")
	assert.Len(t, groupLines(a, other, b).Nodes, 3)
	b = a
	b.Names, b.Pos.File = []string{"b"}, "other.conf"
	assert.Len(t, groupLines(a, other, b).Nodes, 3, "lines of two files are not grouped")
}

// groupLines adds copies of lines to a Config as the parser does.
func groupLines(lines ...NodeLine) *Config {
	cfg := &Config{}
	var names nameArena
	g := newNodeGroups()
	for _, n := range lines {
		n.Names = slices.Clone(n.Names)
		g.add(cfg, &names, &n)
	}
	return cfg
}

// Addresses fold with their names, and a name defined twice is reported at
// the line and column where it is written again, not where its NodeLine
// starts.
func TestFoldAddrsAndErrors(t *testing.T) {
	c := parse(t, "NodeName=n1 NodeAddr=h1 CPUs=2\nNodeName=n2 NodeAddr=h2 CPUs=2\n")
	require.Len(t, c.Nodes, 1)
	assert.Equal(t, []string{"h1", "h2"}, c.Nodes[0].Addrs)

	c = parse(t, "NodeName=n1 CPUs=2\nNodeName=n2 CPUs=2\n   NodeName=n[3,1] CPUs=2\nNodeName=n2 CPUs=2\n")
	require.Len(t, c.Nodes, 1)
	err := c.Validate()
	require.Error(t, err)
	assert.Equal(t, "3:4: node n1 is already defined at 1:1 (and 1 more error)", err.Error())
	var e *Error
	require.True(t, errors.As(err, &e))
	assert.Equal(t, Pos{Line: 3, Column: 4, Offset: 41}, e.Pos)
	assert.Contains(t, err.(interface{ Unwrap() []error }).Unwrap()[1].Error(), "4:1: node n2 is already defined at 2:1")
}

// Lines of two files are never folded: a NodeLine's names all come from
// the file its Pos names. Lines of one file are, across an Include, and
// the order of the files is kept.
func TestFoldStaysInOneFile(t *testing.T) {
	fsys := fstest.MapFS{
		"slurm.conf": {Data: []byte("NodeName=n1 CPUs=2\nInclude more.conf\nNodeName=n3 CPUs=2\n")},
		"more.conf":  {Data: []byte("NodeName=n2 CPUs=2\n")},
	}
	c, err := ParseFile(fsys, "slurm.conf")
	require.NoError(t, err)
	require.Len(t, c.Nodes, 2)
	for k, want := range []string{"slurm.conf", "more.conf"} {
		assert.Equal(t, want, c.Nodes[k].Pos.File)
	}
	assert.Equal(t, []string{"n1", "n3"}, c.Nodes[0].Names)
	assert.Equal(t, Pos{File: "slurm.conf", Line: 3, Column: 1, Offset: 37}, c.Nodes[0].NamePos(1))
	assert.Equal(t, []string{"n1", "n2", "n3"}, c.NodeNames())
}

// Folding does not share anything between two parses of one text, and
// a caller writing into a NodeLine's names changes no other line.
func TestFoldedNamesAreTheCallers(t *testing.T) {
	text := "NodeName=n1 CPUs=2\nNodeName=n2 CPUs=2\nNodeName=m1 CPUs=3\nNodeName=m2 CPUs=3\n"
	c1, c2 := parse(t, text), parse(t, text)
	c1.Nodes[0].Names[1] = "zz"
	c1.Nodes[0].Names = append(c1.Nodes[0].Names, "yy")
	assert.Equal(t, []string{"n1", "n2"}, c2.Nodes[0].Names)
	assert.Equal(t, []string{"m1", "m2"}, c1.Nodes[1].Names)
}
