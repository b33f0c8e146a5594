package selectnodes

import (
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/hpcsched/hpcsched/slurmconf"
)

// ownedParts builds a cluster of two partitions over the same nodes (the
// cluster shares such lists) with access lists, from values the test
// keeps and may change afterwards.
func ownedParts(t *testing.T) (*Cluster, []Partition) {
	t.Helper()
	nodes := []Node{{Name: "a", CPUs: 2}, {Name: "b", CPUs: 2}, {Name: "c", CPUs: 2}}
	parts := []Partition{
		{Name: "p", Nodes: []string{"a", "b", "c"}, Default: true, Access: Access{AllowGroups: []string{"g1", "g2"}}},
		{Name: "q", Nodes: []string{"a", "b", "c"}, MaxNodes: 2, Access: Access{DenyAccounts: []string{"x"}}},
	}
	c, err := New(nodes, parts)
	require.NoError(t, err)
	return c, parts
}

// scribble changes every list of p in place and grows it, as a careless
// caller would.
func scribble(p *Partition) {
	slices.Reverse(p.Nodes)
	for k := range p.Nodes {
		p.Nodes[k] = strings.ToUpper(p.Nodes[k])
	}
	p.Nodes = append(p.Nodes[:len(p.Nodes):len(p.Nodes)], "zz")
	for _, l := range []*[]string{&p.Access.AllowGroups, &p.Access.AllowAccounts, &p.Access.DenyAccounts,
		&p.Access.AllowQOS, &p.Access.DenyQOS} {
		for k := range *l {
			(*l)[k] = "changed"
		}
	}
}

// copied is parts with lists of the test's own, made here rather than by
// the code under test.
func copied(parts []Partition) []Partition {
	out := slices.Clone(parts)
	for k := range out {
		p := &out[k]
		p.Nodes = slices.Clone(p.Nodes)
		a := &p.Access
		a.AllowGroups, a.AllowAccounts, a.DenyAccounts = slices.Clone(a.AllowGroups), slices.Clone(a.AllowAccounts), slices.Clone(a.DenyAccounts)
		a.AllowQOS, a.DenyQOS = slices.Clone(a.AllowQOS), slices.Clone(a.DenyQOS)
	}
	return out
}

func TestPartitionIsTheCallers(t *testing.T) {
	c, _ := ownedParts(t)
	want := copied(c.Partitions())
	for _, name := range []string{"p", "q"} {
		p, ok := c.Partition(name)
		require.True(t, ok)
		scribble(&p)
	}
	for _, p := range c.Partitions() {
		scribble(&p)
	}
	all := c.Partitions()
	for k := range all {
		scribble(&all[k])
	}
	require.Equal(t, want, c.Partitions())
	require.Equal(t, []string{"a", "b", "c"}, want[1].Nodes)
	require.Equal(t, []string{"g1", "g2"}, want[0].Access.AllowGroups)
	_, err := c.SelectNodes(&Request{Partition: "p", MinNodes: 1, Groups: []string{"g1"}}, TestOnly)
	require.NoError(t, err, "the access list the cluster checks is unchanged")
}

func TestSnapshotPartitionIsTheCallers(t *testing.T) {
	c, _ := ownedParts(t)
	want := copied(c.Partitions())
	s := c.Snapshot()
	p, _ := s.Partition("q")
	scribble(&p)
	for _, p := range s.Partitions() {
		scribble(&p)
	}
	require.Equal(t, want, s.Partitions())
	require.Equal(t, want, c.Partitions())
}

// The lists a partition is given stay the caller's: changing them after
// New, UpdatePartition or FromConfig changes nothing in the cluster.
func TestPartitionGivenStaysTheCallers(t *testing.T) {
	c, parts := ownedParts(t)
	want := copied(c.Partitions())
	for k := range parts {
		scribble(&parts[k])
	}
	require.Equal(t, want, c.Partitions())

	upd := Partition{Name: "q", Nodes: []string{"b", "c"}, Access: Access{AllowQOS: []string{"high"}}}
	require.NoError(t, c.UpdatePartition(upd))
	want = copied(c.Partitions())
	scribble(&upd)
	require.Equal(t, want, c.Partitions())

	cfg, err := slurmconf.Parse(strings.NewReader("NodeName=n[1-2] CPUs=2\n" +
		"PartitionName=p Nodes=n[1-2] Default=YES AllowGroups=g1,g2 AllowAccounts=a1 DenyQOS=low\n"))
	require.NoError(t, err)
	fc, err := FromConfig(cfg)
	require.NoError(t, err)
	want = copied(fc.Partitions())
	require.Equal(t, []string{"g1", "g2"}, want[0].Access.AllowGroups)
	for _, l := range [][]string{cfg.Partitions[0].AllowGroups, cfg.Partitions[0].AllowAccounts, cfg.Partitions[0].DenyQOS} {
		for k := range l {
			l[k] = "changed"
		}
	}
	require.Equal(t, want, fc.Partitions())
}

func TestPartitionLimitsAndNames(t *testing.T) {
	c, _ := ownedParts(t)
	require.Equal(t, []string{"p", "q"}, c.PartitionNames())
	names := c.PartitionNames()
	names[0] = "changed"
	require.Equal(t, []string{"p", "q"}, c.PartitionNames())
	require.True(t, c.HasPartition("q"))
	require.False(t, c.HasPartition("nope"))
	_, ok := c.PartitionLimits("nope")
	require.False(t, ok)
	require.NoError(t, c.UpdatePartition(Partition{Name: "r", Nodes: []string{"a"}, State: PartitionDrain, Priority: 3,
		MinNodes: 1, MaxNodes: 2, MaxTime: 5, DefaultTime: 4, DefMemPerCPU: 6, DefMemPerNode: 7, MaxMemPerNode: 8}))
	for _, full := range c.Partitions() {
		got, ok := c.PartitionLimits(full.Name)
		require.True(t, ok)
		require.Equal(t, PartitionLimits{State: full.State, Priority: full.Priority, MinNodes: full.MinNodes,
			MaxNodes: full.MaxNodes, MaxTime: full.MaxTime, DefaultTime: full.DefaultTime,
			DefMemPerCPU: full.DefMemPerCPU, DefMemPerNode: full.DefMemPerNode}, got)
	}
	r, _ := c.PartitionLimits("r")
	require.Equal(t, PartitionLimits{State: PartitionDrain, Priority: 3, MinNodes: 1, MaxNodes: 2, MaxTime: 5,
		DefaultTime: 4, DefMemPerCPU: 6, DefMemPerNode: 7}, r)
}

// featured is a cluster whose nodes have features, for the node sets and
// the explanations that report them.
func featured(t *testing.T) *Cluster {
	t.Helper()
	nodes := []Node{{Name: "a", CPUs: 2, Features: []string{"fast", "ib"}}, {Name: "b", CPUs: 2, Features: []string{"fast", "ib"}}}
	c, err := New(nodes, []Partition{{Name: "p", Nodes: []string{"a", "b"}, Default: true}})
	require.NoError(t, err)
	return c
}

// The features a node set or a set's report lists are the caller's: the
// record's own list is what every later selection matches against.
func TestNodeSetFeaturesAreTheCallers(t *testing.T) {
	c := featured(t)
	req := &Request{MinNodes: 2}
	job, err := c.Resolve(req)
	require.NoError(t, err)
	sets, err := c.BuildNodeSets(job)
	require.NoError(t, err)
	require.Equal(t, []string{"fast", "ib"}, sets[0].Features)
	sets[0].Features[0] = "slow"

	ex := c.Explain(req, TestOnly)
	require.Equal(t, []string{"fast", "ib"}, ex.Sets[0].Features)
	ex.Sets[0].Features[1] = "eth"
	g := c.Explain(req, TestOnly).Groups()
	g[0].Features[0] = "slow"

	require.Equal(t, []string{"fast", "ib"}, c.Node(0).Features)
	require.Equal(t, []string{"fast", "ib"}, c.Explain(req, TestOnly).Sets[0].Features)
	job, err = c.Resolve(req)
	require.NoError(t, err)
	sets, err = c.BuildNodeSets(job)
	require.NoError(t, err)
	require.Equal(t, []string{"fast", "ib"}, sets[0].Features)
}
