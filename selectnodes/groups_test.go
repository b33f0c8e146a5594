package selectnodes_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/hpcsched/hpcsched/hostlist"
	"github.com/hpcsched/hpcsched/selectnodes"
	"github.com/hpcsched/hpcsched/slurmconf"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A NodeName line per node makes a config record, and a node set, per
// node; Groups merges the sets of equal weight and features (features
// compared as sets) into one, in set order, with the figures summed.
func TestGroupsOfManyLines(t *testing.T) {
	var b strings.Builder
	const n = 3000
	for i := 1; i <= n; i++ {
		feats := "a,b"
		if i%2 == 0 {
			feats = "b,a"
		}
		weight := 1
		if i > n-10 {
			weight = 2 // a second group, of heavier nodes
		}
		fmt.Fprintf(&b, "NodeName=n%d CPUs=4 Weight=%d Feature=%s Gres=gpu:t%d:1\n", i, weight, feats, i)
	}
	b.WriteString("PartitionName=p Nodes=ALL Default=YES\n")
	cfg, err := slurmconf.Parse(strings.NewReader(b.String()))
	require.NoError(t, err)
	c, err := selectnodes.FromConfig(cfg)
	require.NoError(t, err)
	ex := c.Explain(&selectnodes.Request{MinNodes: 2}, selectnodes.RunNow)
	require.Len(t, ex.Sets, n)
	groups := ex.Groups()
	require.Len(t, groups, 2)
	assert.Equal(t, fmt.Sprintf("n[1-%d]", n-10), groups[0].Nodes)
	assert.Equal(t, n-10, groups[0].Total)
	assert.Equal(t, n-10, groups[0].Usable)
	assert.Equal(t, fmt.Sprintf("n[%d-%d]", n-9, n), groups[1].Nodes)
	assert.Equal(t, 10, groups[1].Candidates)
	assert.Contains(t, ex.String(), fmt.Sprintf("node set n[1-%d] (weight 1, features a,b, %d nodes)", n-10, n-10))
}

// A group whose sets' nodes are interleaved in the file is merged in set
// order, by index, into the same hostlist a hand-made explanation merges
// from the sets' hostlists; a hand-made copy (no cluster behind it), or
// one whose sets were edited, falls back to merging the hostlists.
func TestGroupsMergeScatteredSetsByIndex(t *testing.T) {
	var b strings.Builder
	const n = 2000
	for i := 1; i <= n; i++ {
		cpus := 4 << (i % 3) // three records of equal weight and features, interleaved
		fmt.Fprintf(&b, "NodeName=n%d CPUs=%d Feature=x\n", i, cpus)
	}
	b.WriteString("PartitionName=p Nodes=ALL Default=YES\n")
	cfg, err := slurmconf.Parse(strings.NewReader(b.String()))
	require.NoError(t, err)
	c, err := selectnodes.FromConfig(cfg)
	require.NoError(t, err)
	ex := c.Explain(&selectnodes.Request{MinNodes: 1}, selectnodes.RunNow)
	require.Len(t, ex.Sets, 3)
	got := ex.Groups()
	require.Len(t, got, 1)
	byHand := *ex
	byHand.Sets = append([]selectnodes.SetReport(nil), ex.Sets...)
	for i := range byHand.Sets { // a struct literal has no cluster behind it
		byHand.Sets[i] = selectnodes.SetReport{Nodes: ex.Sets[i].Nodes, Weight: ex.Sets[i].Weight,
			Features: ex.Sets[i].Features, Total: ex.Sets[i].Total}
	}
	assert.Equal(t, byHand.Groups()[0].Nodes, got[0].Nodes)
	var want []string
	for _, s := range ex.Sets {
		names, err := hostlist.Expand(s.Nodes)
		require.NoError(t, err)
		want = append(want, names...)
	}
	names, err := hostlist.Expand(got[0].Nodes)
	require.NoError(t, err)
	assert.Equal(t, want, names, "set order, each set's nodes in file order")

	edited := *ex
	edited.Sets = append([]selectnodes.SetReport(nil), ex.Sets...)
	edited.Sets[0].Nodes, edited.Sets[0].Total = "m1", 1
	names, err = hostlist.Expand(edited.Groups()[0].Nodes)
	require.NoError(t, err)
	assert.Equal(t, "m1", names[0], "an edited set is merged as written")
	assert.Len(t, names, 1+ex.Sets[1].Total+ex.Sets[2].Total)
}

// WriteTo writes what String returns, counts it, and stops at the first
// write error.
func TestExplanationWriteTo(t *testing.T) {
	cfg, err := slurmconf.Parse(strings.NewReader("NodeName=n[1-4] CPUs=4\nPartitionName=p Nodes=ALL Default=YES\n"))
	require.NoError(t, err)
	c, err := selectnodes.FromConfig(cfg)
	require.NoError(t, err)
	for _, req := range []*selectnodes.Request{{MinNodes: 2}, {MinNodes: 9}} {
		ex := c.Explain(req, selectnodes.RunNow)
		var b strings.Builder
		n, err := ex.WriteTo(&b)
		require.NoError(t, err)
		assert.Equal(t, ex.String(), b.String())
		assert.Equal(t, int64(b.Len()), n)
		fw := &failingWriter{room: 10}
		n, err = ex.WriteTo(fw)
		assert.ErrorIs(t, err, errFull)
		assert.Equal(t, int64(10), n)
	}
}

var errFull = errors.New("no room")

// failingWriter takes room bytes, then refuses.
type failingWriter struct{ room int }

func (f *failingWriter) Write(p []byte) (int, error) {
	if len(p) <= f.room {
		f.room -= len(p)
		return len(p), nil
	}
	n := f.room
	f.room = 0
	return n, errFull
}
