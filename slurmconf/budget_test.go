package slurmconf

import (
	"fmt"
	"math"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// requireBudget checks err is a budget error at line (any line when 0),
// naming limit.
func requireBudget(t *testing.T, err error, line int, limit string) *Error {
	t.Helper()
	require.ErrorIs(t, err, ErrBudget)
	var e *Error
	require.ErrorAs(t, err, &e)
	if line > 0 {
		assert.Equal(t, line, e.Pos.Line, err.Error())
	}
	assert.Contains(t, e.Msg, limit)
	return e
}

// Issue 11: 45 lines expanded to 47M nodes (1.5 GB).
func TestTotalNodeBudget45Lines(t *testing.T) {
	var b strings.Builder
	for i := range 45 {
		fmt.Fprintf(&b, "NodeName=r%dn[0-1023][0-1023] CPUs=1\n", i)
	}
	_, err := Parse(strings.NewReader(b.String()), WithLimits(Limits{Nodes: 100_000}))
	e := requireBudget(t, err, 1, "100000 nodes (Limits.Nodes)")
	assert.Equal(t, 10, e.Pos.Column, "the position is the NodeName value")

	// the budget is for the whole file, not per line
	conf := "NodeName=a[1-1000]\nPartitionName=p Nodes=a[1-1000]\nNodeName=b[1-1000]\nNodeName=c[1-1000]\n"
	_, err = Parse(strings.NewReader(conf), WithLimits(Limits{Nodes: 2500}))
	requireBudget(t, err, 4, "2500 nodes (Limits.Nodes)")
	c, err := Parse(strings.NewReader(conf), WithLimits(Limits{Nodes: 3000}))
	require.NoError(t, err)
	assert.Equal(t, 3000, c.NodeCount())
}

func TestHostNameBudgets(t *testing.T) {
	conf := "NodeName=a[1-1000]\nPartitionName=p Nodes=a[1-1000]\nPartitionName=q Nodes=a[1-1000]\n"
	_, err := Parse(strings.NewReader(conf), WithLimits(Limits{HostNames: 2500}))
	requireBudget(t, err, 3, "2500 host names per parse (Limits.HostNames)")

	long := strings.Repeat("x", 4096)
	_, err = Parse(strings.NewReader("NodeName="+long+"[1-100]\n"), WithLimits(Limits{HostBytes: 100_000}))
	requireBudget(t, err, 1, "100000 bytes of host names per parse (Limits.HostBytes)")

	// a long prefix is caught by hostlist's own byte budget at the default
	_, err = Parse(strings.NewReader("NodeName=" + strings.Repeat("p", 64<<10) + "[0-65535]\n"))
	requireBudget(t, err, 1, "hostlist.DefaultByteLimit")
}

// Issue 11: 16 files x 8 Includes, without a cycle, never ended.
func TestIncludeFanOutBudget(t *testing.T) {
	fsys := fstest.MapFS{}
	for i := range 16 {
		var incl string
		if i < 15 {
			incl = strings.Repeat(fmt.Sprintf("Include f%d.conf\n", i+1), 8)
		}
		fsys[fmt.Sprintf("etc/f%d.conf", i)] = &fstest.MapFile{Data: []byte(incl + "X=1\n")}
	}
	_, err := ParseFile(fsys, "etc/f0.conf")
	e := requireBudget(t, err, 0, "more than 256 files read (Limits.Files)")
	assert.Contains(t, e.Msg, "Include etc/f15.conf", "the error is at the Include that went over")

	_, err = ParseFile(fsys, "etc/f0.conf", WithLimits(Limits{Files: 10}))
	e = requireBudget(t, err, 1, "more than 10 files read (Limits.Files)")
	assert.Equal(t, Pos{File: "etc/f9.conf", Line: 1, Column: 9, Offset: 8}, e.Pos, "f0..f9 are read; the Include of f10 would be the 11th")

	big := fstest.MapFS{
		"etc/slurm.conf": {Data: []byte("ClusterName=c\nInclude a.conf\nInclude a.conf\n")},
		"etc/a.conf":     {Data: []byte(strings.Repeat("# padding\n", 100))},
	}
	_, err = ParseFile(big, "etc/slurm.conf", WithLimits(Limits{InputBytes: 1500}))
	// the budget runs out while the second a.conf is read, at its 46th line
	// (1500 - 44 bytes of slurm.conf - 1000 of the first a.conf leave 45 lines of 10)
	e = requireBudget(t, err, 46, "input is longer than 1500 bytes (Limits.InputBytes)")
	assert.Equal(t, "etc/a.conf", e.Pos.File)
	_, err = ParseFile(big, "etc/slurm.conf", WithLimits(Limits{InputBytes: 3000}))
	require.NoError(t, err)

	_, err = Parse(strings.NewReader(strings.Repeat("A=1\n", 100)), WithLimits(Limits{InputBytes: 399}))
	requireBudget(t, err, 100, "(Limits.InputBytes)") // the line that goes over
}

// defaultLine is a DEFAULT line of about n bytes of distinct unmodelled
// keys, plus one CPUs= so typed keys are overridden too.
func defaultLine(kind string, n, cpus int, tag string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s=DEFAULT CPUs=%d", kind, cpus)
	for i := 0; b.Len() < n; i++ {
		fmt.Fprintf(&b, " K%d=%s", i, tag)
	}
	return b.String() + "\n"
}

// Issue 11: merging two 256 KB NodeName=DEFAULT lines took 7 s (each key
// of the second searched among the first's). Merging is now linear; this
// checks what the merge means, BenchmarkDefaultMerge its cost.
func TestNodeDefaultMergeLinear(t *testing.T) {
	first := defaultLine("NodeName", 256<<10, 4, "a")
	second := defaultLine("NodeName", 256<<10, 8, "b")
	c, err := Parse(strings.NewReader(first + second + "NodeName=n1 K0=own Weight=3\nNodeName=n2\n"))
	require.NoError(t, err)
	require.Len(t, c.Nodes, 2)
	keys := strings.Count(second, "=") - 2
	n1, n2 := c.Nodes[0], c.Nodes[1]
	assert.Equal(t, 8, n1.CPUs, "the later DEFAULT wins")
	assert.Equal(t, int64(3), n1.Weight)
	require.Len(t, n1.Extra, keys+1, "one inherited pair per key, then the line's own")
	assert.Equal(t, Pair{Key: "K0", Value: "b"}, Pair{Key: n1.Extra[0].Key, Value: n1.Extra[0].Value})
	assert.Equal(t, "own", n1.Extra[keys].Value)
	assert.Len(t, n2.Extra, keys)
	n1.Extra[0].Value = "changed"
	assert.Equal(t, "b", n2.Extra[0].Value, "each line owns its inherited pairs")
}

func TestDefaultOverridesKeyByKey(t *testing.T) {
	c := parse(t, `NodeName=DEFAULT Port=1 Sockets=4 Feature=a
NodeName=DEFAULT SocketsPerBoard=2 Port=2 Zone=z
NodeName=n1 Boards=2
PartitionName=DEFAULT MaxTime=10 Foo=1 Priority=3
PartitionName=DEFAULT Foo=2 Bar=3 PriorityTier=7
PartitionName=p Nodes=n1 Priority=5
`)
	n := c.Nodes[0]
	assert.Equal(t, 2, n.SocketsPerBoard, "the later of Sockets= and SocketsPerBoard= wins")
	assert.Equal(t, 4, n.CPUs)
	assert.Equal(t, []string{"a"}, n.Features)
	assert.Equal(t, []string{"Port=2", "Zone=z"}, pairStrings(n.Extra))
	p := c.Partitions[0]
	assert.Equal(t, 5, p.Priority)
	assert.Equal(t, 7, p.PriorityTier, "PriorityTier from a DEFAULT line stays set")
	assert.Equal(t, []string{"Foo=2", "Bar=3"}, pairStrings(p.Extra))
}

func pairStrings(ps []Pair) []string {
	var out []string
	for _, p := range ps {
		out = append(out, p.Key+"="+p.Value)
	}
	return out
}

func TestInheritedBudget(t *testing.T) {
	conf := "NodeName=DEFAULT A=1 B=2 C=3\nNodeName=n1\nNodeName=n2\nPartitionName=DEFAULT X=1\nPartitionName=p\n"
	_, err := Parse(strings.NewReader(conf), WithLimits(Limits{Inherited: 5}))
	requireBudget(t, err, 3, "more than 5 pairs (Limits.Inherited)")
	_, err = Parse(strings.NewReader(conf), WithLimits(Limits{Inherited: 7}))
	require.NoError(t, err)
}

// Issue 11: a UTF-8 byte order mark turned the first node line into a
// parameter named "\uFEFFNodeName".
func TestBOMSkipped(t *testing.T) {
	c, err := Parse(strings.NewReader("\uFEFFNodeName=n1 CPUs=4\nPartitionName=p Nodes=n1\n"))
	require.NoError(t, err)
	require.Len(t, c.Nodes, 1)
	assert.Equal(t, []string{"n1"}, c.Nodes[0].Names)
	assert.Empty(t, c.Params)
	assert.Equal(t, Pos{Line: 1, Column: 4, Offset: 3}, c.Nodes[0].Pos, "columns count the mark's bytes, as go/scanner's do")

	_, err = Parse(strings.NewReader("\uFEFFNodeName=n1 CPUs=x\n"))
	assert.EqualError(t, err, `1:21: CPUs: "x" is not a whole number`)
}

// Issue 11: Boards=1073741824 SocketsPerBoard=1073741824 gave CPUs=-2^63.
func TestCPUProductOverflow(t *testing.T) {
	_, err := Parse(strings.NewReader("NodeName=n1 Boards=1073741824 SocketsPerBoard=1073741824\n"))
	require.Error(t, err)
	var e *Error
	require.ErrorAs(t, err, &e)
	assert.Equal(t, Pos{Line: 1, Column: 1}, e.Pos)
	assert.Contains(t, e.Msg, "Boards*SocketsPerBoard*CoresPerSocket*ThreadsPerCore = 1073741824*1073741824*1*1 is more than 2147483647 CPUs")

	c := parse(t, "NodeName=n1 Boards=2 SocketsPerBoard=4 CoresPerSocket=16 ThreadsPerCore=2\nNodeName=n2 Boards=65536 SocketsPerBoard=32767\n")
	assert.Equal(t, 256, c.Nodes[0].CPUs)
	assert.Equal(t, math.MaxInt32-65535, c.Nodes[1].CPUs, "just below 2^31")
}

// Issue 11: Gres=gpu:9223372036854775807,gpu:2 summed negative.
func TestGresSumOverflow(t *testing.T) {
	_, err := Parse(strings.NewReader("NodeName=n1 Gres=gpu:9223372036854775807,gpu:2\n"))
	require.Error(t, err)
	var e *Error
	require.ErrorAs(t, err, &e)
	assert.Equal(t, 42, e.Pos.Column, "the item that overflows")
	assert.Contains(t, e.Msg, "the counts of gpu add up to more than 9223372036854775807")

	_, err = Parse(strings.NewReader("NodeName=n1 Gres=gpu:a:9223372036854775000,gpu:b:1000\n"))
	assert.ErrorContains(t, err, "the counts of gpu add up")

	c := parse(t, "NodeName=n1 Gres=gpu:2,mps:100,gpu:3,gpu:v100:1,gpu:no_consume:1,gpu:v100:2\n")
	assert.Equal(t, []Gres{{Name: "gpu", Count: 5}, {Name: "mps", Count: 100}, {Name: "gpu", Type: "v100", Count: 3},
		{Name: "gpu", Count: 1, NoConsume: true}}, c.Nodes[0].Gres, "repeated items are summed")
}

func TestContinuationPositions(t *testing.T) {
	_, err := Parse(strings.NewReader("NodeName=n1 \\\n  CPUs=4 \\\n  Weight=x\n"))
	assert.EqualError(t, err, `3:10: Weight: "x" is not a whole number`)
	var e *Error
	require.ErrorAs(t, err, &e)
	assert.Equal(t, 34, e.Pos.Offset)

	_, err = Parse(strings.NewReader("A=1\r\nNodeName=a[1-\r\n"))
	assert.EqualError(t, err, `2:14: NodeName: expected a number`)
}
