package selectnodes_test

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/hpcsched/hpcsched/features"
	"github.com/hpcsched/hpcsched/internal/testseed"
	"github.com/hpcsched/hpcsched/selectnodes"
	"github.com/hpcsched/hpcsched/slurmconf"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// New shares one configuration between consecutive nodes configured
// alike; the caller's slices stay the caller's all the same.
func TestNewSharesConfigurationsNotTheCallersSlices(t *testing.T) {
	feats, gres := []string{"a"}, []selectnodes.GRES{{Name: "gpu", Count: 2}}
	nodes := []selectnodes.Node{
		{Name: "n1", CPUs: 4, Features: feats, GRES: gres},
		{Name: "n2", CPUs: 4, Features: feats, GRES: gres},
		{Name: "n3", CPUs: 4, Features: []string{"a"}, GRES: []selectnodes.GRES{{Name: "gpu", Count: 2}}},
		{Name: "n4", CPUs: 8, Features: feats, GRES: gres},
	}
	c, err := selectnodes.New(nodes, []selectnodes.Partition{{Name: "p", Nodes: []string{"n1", "n2", "n3", "n4"}, Default: true}})
	require.NoError(t, err)
	feats[0], gres[0].Count, nodes[3].CPUs = "b", 9, 1
	for i := range 4 {
		n := c.Node(i)
		assert.Equal(t, fmt.Sprintf("n%d", i+1), n.Name)
		assert.Equal(t, []string{"a"}, n.Features, n.Name)
		assert.Equal(t, int64(2), n.GRES[0].Count, n.Name)
		assert.Equal(t, 4+4*(i/3), n.CPUs, n.Name)
	}
	a, _ := features.Parse("a")
	p, err := c.SelectNodes(&selectnodes.Request{MinNodes: 4, Features: a}, selectnodes.RunNow)
	require.NoError(t, err)
	assert.Equal(t, "n[1-4]", p.Hostlist())
}

// A configuration shared by several nodes is checked once but refused for
// each of its nodes, by name.
func TestNewRefusesEachNodeOfABadSharedConfiguration(t *testing.T) {
	_, err := selectnodes.New([]selectnodes.Node{{Name: "n1", CPUs: -1}, {Name: "n2", CPUs: -1}, {Name: "n3", CPUs: 1}}, nil)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "node n1 has a negative")
	assert.Contains(t, err.Error(), "node n2 has a negative")
	assert.NotContains(t, err.Error(), "n3")
	_, err = selectnodes.New([]selectnodes.Node{{Name: "n1", CPUs: 1}, {Name: "n1", CPUs: 1}}, nil)
	assert.ErrorContains(t, err, "node n1 is defined twice")
}

// NodeIndex finds every node and no other name, whatever the names (the
// index is a hash table of its own).
func TestNodeIndexProperty(t *testing.T) {
	seed := testseed.Draw(t)
	r := rand.New(rand.NewPCG(seed, 1))
	for round := range 20 {
		n := 1 + r.IntN(3000)
		seen := map[string]bool{}
		var nodes []selectnodes.Node
		for len(nodes) < n {
			name := fmt.Sprintf("%s%d", []string{"n", "gpu", "x-", ""}[r.IntN(4)], r.IntN(4*n))
			if !seen[name] {
				seen[name] = true
				nodes = append(nodes, selectnodes.Node{Name: name, CPUs: 1 + r.IntN(2)})
			}
		}
		c, err := selectnodes.New(nodes, nil)
		require.NoError(t, err, "round %d", round)
		for i, nd := range nodes {
			got, ok := c.NodeIndex(nd.Name)
			require.True(t, ok, "round %d: %s", round, nd.Name)
			require.Equal(t, i, got)
		}
		for range 200 {
			name := fmt.Sprintf("n%d", r.IntN(8*n))
			_, ok := c.NodeIndex(name)
			require.Equal(t, seen[name], ok, name)
		}
		_, ok := c.NodeIndex("")
		assert.False(t, ok)
	}
}

// Partitions listing the same nodes share one list inside the cluster:
// changing one partition leaves the other as it was.
func TestPartitionsOfEqualListsStayApart(t *testing.T) {
	cfg, err := slurmconf.Parse(strings.NewReader("NodeName=n[1-4] CPUs=4\n" +
		"PartitionName=all Nodes=ALL Default=YES\nPartitionName=named Nodes=n[1-4]\nPartitionName=also Nodes=ALL\n"))
	require.NoError(t, err)
	c, err := selectnodes.FromConfig(cfg)
	require.NoError(t, err)
	cfg.Partitions[1].Nodes[0] = "zz" // the configuration stays the caller's
	for _, name := range []string{"all", "named", "also"} {
		p, ok := c.Partition(name)
		require.True(t, ok)
		assert.Equal(t, []string{"n1", "n2", "n3", "n4"}, p.Nodes, name)
	}
	require.NoError(t, c.UpdatePartition(selectnodes.Partition{Name: "named", Nodes: []string{"n2"}}))
	all, _ := c.Partition("all")
	named, _ := c.Partition("named")
	assert.Equal(t, []string{"n1", "n2", "n3", "n4"}, all.Nodes)
	assert.Equal(t, []string{"n2"}, named.Nodes)
	p, err := c.SelectNodes(&selectnodes.Request{Partition: "all", MinNodes: 4}, selectnodes.RunNow)
	require.NoError(t, err)
	assert.Equal(t, "n[1-4]", p.Hostlist())
	_, err = c.SelectNodes(&selectnodes.Request{Partition: "named", MinNodes: 2}, selectnodes.RunNow)
	assert.Error(t, err, "named has one node now")
}

// Consecutive NodeName lines folded by slurmconf make one config record,
// and a node set names all their nodes.
func TestFoldedLinesMakeOneNodeSet(t *testing.T) {
	var b strings.Builder
	for i := 1; i <= 300; i++ {
		fmt.Fprintf(&b, "NodeName=n%d CPUs=4 Feature=a\n", i)
	}
	b.WriteString("NodeName=n301 CPUs=4 Feature=a Weight=2\nPartitionName=p Nodes=ALL Default=YES\n")
	cfg, err := slurmconf.Parse(strings.NewReader(b.String()))
	require.NoError(t, err)
	require.Len(t, cfg.Nodes, 2, "the line of another weight is not folded")
	c, err := selectnodes.FromConfig(cfg)
	require.NoError(t, err)
	ex := c.Explain(&selectnodes.Request{MinNodes: 1}, selectnodes.RunNow)
	require.NotNil(t, ex.Placement)
	require.Equal(t, 2, len(ex.Sets))
	assert.Equal(t, "n[1-300]", ex.Sets[0].Nodes)
	assert.Equal(t, "n301", ex.Sets[1].Nodes)
}

// With SlurmCompat each NodeName line is a config record, as in Slurm
// 22.05, folded or not: the 300 one-node lines are 300 node sets.
func TestCompatKeepsARecordPerLine(t *testing.T) {
	var b strings.Builder
	for i := 1; i <= 300; i++ {
		fmt.Fprintf(&b, "NodeName=n%d CPUs=4 Feature=a\n", i)
	}
	b.WriteString("PartitionName=p Nodes=ALL Default=YES\n")
	cfg, err := slurmconf.Parse(strings.NewReader(b.String()))
	require.NoError(t, err)
	c, err := selectnodes.FromConfig(cfg, selectnodes.WithSlurmCompat())
	require.NoError(t, err)
	ex := c.Explain(&selectnodes.Request{MinNodes: 1}, selectnodes.RunNow)
	require.NotNil(t, ex.Placement)
	assert.Equal(t, 300, len(ex.Sets))
	assert.Equal(t, "n1", ex.Placement.Hostlist())
}

// In the default mode a file with a line per node and the same nodes
// written as ranges give the same answers: lines configured alike are one
// config record either way. Drawn at random: node counts, CPUs, weights
// and requests.
func TestLinesAndRangesAnswerAlike(t *testing.T) {
	seed := testseed.Draw(t)
	r := rand.New(rand.NewPCG(seed, 2))
	for round := range 30 {
		var lines, ranges strings.Builder
		next := 1
		for g := range 1 + r.IntN(5) {
			n, cpus, weight := 1+r.IntN(6), 2<<r.IntN(3), 1+r.IntN(2)
			fmt.Fprintf(&ranges, "NodeName=n[%d-%d] CPUs=%d Weight=%d Feature=f%d\n", next, next+n-1, cpus, weight, g%2)
			for k := range n {
				fmt.Fprintf(&lines, "NodeName=n%d CPUs=%d Weight=%d Feature=f%d\n", next+k, cpus, weight, g%2)
			}
			next += n
		}
		tail := "SelectType=select/" + []string{"linear", "cons_tres"}[round%2] + "\nPartitionName=p Nodes=ALL Default=YES\n"
		answer := func(text string, req *selectnodes.Request) string {
			cfg, err := slurmconf.Parse(strings.NewReader(text + tail))
			require.NoError(t, err)
			c, err := selectnodes.FromConfig(cfg)
			require.NoError(t, err)
			p, err := c.SelectNodes(req, selectnodes.RunNow)
			if err != nil {
				return selectnodes.ClassName(err)
			}
			return p.Hostlist()
		}
		for range 5 {
			req := &selectnodes.Request{MinNodes: 1 + r.IntN(next), CPUs: r.IntN(4 * next)}
			if r.IntN(3) == 0 {
				req.Features, _ = features.Parse("f1")
			}
			assert.Equal(t, answer(ranges.String(), req), answer(lines.String(), req), "round %d %+v\n%s", round, req, ranges.String())
		}
	}
}

// A Config made by hand may hold a NodeLine of no name (slurmconf never
// makes one): it gives no node and no config record, not a panic.
func TestFromConfigSkipsANodeLineOfNoName(t *testing.T) {
	cfg := &slurmconf.Config{Nodes: []slurmconf.NodeLine{{}, {Names: []string{"a"}, CPUs: 1}, {}},
		Partitions: []slurmconf.PartitionLine{{Name: "p", AllNodes: true, Default: true}}}
	for _, opts := range [][]selectnodes.Option{nil, {selectnodes.WithSlurmCompat()}} {
		c, err := selectnodes.FromConfig(cfg, opts...)
		require.NoError(t, err)
		assert.Equal(t, 1, c.NodeCount())
		p, err := c.SelectNodes(&selectnodes.Request{MinNodes: 1}, selectnodes.RunNow)
		require.NoError(t, err)
		assert.Equal(t, "a", p.Hostlist())
	}
}

// The load of no job is made at its first use; two snapshots asking for it
// at once (TestOnly) from two goroutines get one, without a race (run with
// -race), and the answers of a loaded cluster.
func TestEmptyLoadMadeOnceUnderSnapshots(t *testing.T) {
	cfg, err := slurmconf.Parse(strings.NewReader("NodeName=n[1-8] CPUs=4\nPartitionName=p Nodes=ALL Default=YES\n"))
	require.NoError(t, err)
	c, err := selectnodes.FromConfig(cfg)
	require.NoError(t, err)
	busy, err := c.SelectNodes(&selectnodes.Request{MinNodes: 8}, selectnodes.RunNow)
	require.NoError(t, err)
	require.NoError(t, c.Allocate(1, busy, time.Time{}, time.Time{}))
	snaps := []*selectnodes.Snapshot{c.Snapshot(), c.Snapshot()}
	got := make([]string, len(snaps))
	done := make(chan int)
	for k := range snaps {
		go func() {
			p, err := snaps[k].SelectNodes(&selectnodes.Request{MinNodes: 2}, selectnodes.TestOnly)
			if err == nil {
				got[k] = p.Hostlist()
			}
			done <- k
		}()
	}
	for range snaps {
		<-done
	}
	assert.Equal(t, []string{"n[1-2]", "n[1-2]"}, got, "TestOnly ignores the load")
	_, err = c.SelectNodes(&selectnodes.Request{MinNodes: 2}, selectnodes.RunNow)
	assert.Error(t, err, "every node is busy")
}
