package selectnodes_test

import (
	"strings"
	"testing"

	"github.com/hpcsched/hpcsched/selectnodes"
	"github.com/hpcsched/hpcsched/slurmconf"
	"github.com/stretchr/testify/require"
)

// e3Nodes and e3Tree are check/testdata/slurm2205-own/blind4's
// e_topo3_ct.conf and e3.topology (four middle switches, eight uneven
// leaves, weights across them); j3 is blind6's j_topo3_ct.conf and
// j3.topology (three CPU sizes within the lowest weight). Every answer
// below was recorded on a real Slurm 22.05.8 (probe4/, blind4/, blind6/).
const e3Nodes = `SelectType=select/cons_tres
SelectTypeParameters=CR_Core
TopologyPlugin=topology/tree
NodeName=h[01-06,16-21] CPUs=8 RealMemory=32000 Weight=1 Feature=a
NodeName=h[07-15] CPUs=16 RealMemory=64000 Weight=2 Feature=b
NodeName=h[22-28] CPUs=8 RealMemory=32000 Weight=1 Feature=a,c
PartitionName=debug Nodes=h[01-28] Default=YES MaxTime=INFINITE State=UP
`

const e3Tree = `SwitchName=r1 Nodes=h[01-04]
SwitchName=r2 Nodes=h[05-06]
SwitchName=r3 Nodes=h[07-09]
SwitchName=r4 Nodes=h[10-15]
SwitchName=r5 Nodes=h[16-17]
SwitchName=r6 Nodes=h[18-21]
SwitchName=r7 Nodes=h[22-24]
SwitchName=r8 Nodes=h[25-28]
SwitchName=p1 Switches=r[1-2]
SwitchName=p2 Switches=r[3-4]
SwitchName=p3 Switches=r[5-6]
SwitchName=p4 Switches=r[7-8]
SwitchName=c0 Switches=p[1-4]
`

const j3Nodes = `SelectType=select/cons_tres
SelectTypeParameters=CR_Core
TopologyPlugin=topology/tree
NodeName=j[01-09] CPUs=8 Weight=1
NodeName=j[10-14] CPUs=16 Weight=1 Feature=f
NodeName=j[15-19] CPUs=8 Weight=2
NodeName=j[20-24] CPUs=12 Weight=1
PartitionName=debug Nodes=j[01-24] Default=YES MaxTime=INFINITE State=UP
PartitionName=m3 Nodes=j[01-24] MaxNodes=3 MaxTime=INFINITE State=UP
`

const j3Tree = `SwitchName=q1 Nodes=j[01-02]
SwitchName=q2 Nodes=j[03-06]
SwitchName=q3 Nodes=j[07-09]
SwitchName=q4 Nodes=j[10-14]
SwitchName=q5 Nodes=j[15-17]
SwitchName=q6 Nodes=j[18-19]
SwitchName=q7 Nodes=j[20-24]
SwitchName=m1 Switches=q[1-2]
SwitchName=m2 Switches=q3
SwitchName=m3 Switches=q[4-5]
SwitchName=m4 Switches=q[6-7]
SwitchName=top Switches=m[1-4]
`

func treeCluster(t *testing.T, nodes, tree string) func() *selectnodes.Cluster {
	return func() *selectnodes.Cluster {
		cfg, err := slurmconf.Parse(strings.NewReader(nodes))
		require.NoError(t, err)
		top, err := slurmconf.ParseTopology(strings.NewReader(tree))
		require.NoError(t, err)
		c, err := selectnodes.FromConfig(cfg, selectnodes.WithSlurmCompat(), selectnodes.WithTopologyConfig(top))
		require.NoError(t, err)
		return c
	}
}

func nodes(n int) selectnodes.Request { return selectnodes.Request{MinNodes: n, MaxNodes: n} }

// A node count goes on leaf by leaf as a scan in tree order weighs
// closeness against fit; a CPU total starts on the smallest leaf and goes
// on by closeness; --contiguous takes the tightest run among the lightest.
func TestSlurmCompatThreeLevelRound4(t *testing.T) {
	busy := []string{"h02", "h05", "h16", "h17", "h19", "h25", "h26", "h10"}
	contiguous := func(n int) selectnodes.Request {
		return selectnodes.Request{MinNodes: n, MaxNodes: n, Contiguous: true}
	}
	runOn(t, "e3 ", []recorded{
		{req: nodes(9), want: "h[01-05,25-28]"},                                     // r8, then r1 (its branch holds 5) over r7 beside r8
		{req: nodes(12), want: "h[01-05,22-28]"},                                    // r8, r1, r7 beside r8 (not r6, farther), one of r2
		{req: nodes(16), want: "h[01-06,18-20,22-28]"},                              // p1 and p4, then 3 of r6 rather than r5's 2
		{req: selectnodes.Request{CPUs: 80}, want: "h[01-06,16-19]"},                // r2, r1 beside it, r5, r6
		{busy: busy, req: selectnodes.Request{CPUs: 40}, want: "h[01,03-04,06,27]"}, // h06 alone first
		{busy: busy, req: nodes(7), want: "h[01,03-04,06,22-24]"},
		{busy: busy, req: contiguous(3), want: "h[20-22]"}, // not h[06-08]: h[07-09] weigh 2
		{busy: busy, req: contiguous(2), want: "h[03-04]"},
	}, treeCluster(t, e3Nodes, e3Tree))
	runOn(t, "j3 ", []recorded{
		{req: selectnodes.Request{CPUs: 96}, want: "j[01-11]"},                  // 8 CPUs, then 16 (first seen), then 12
		{req: selectnodes.Request{Partition: "m3", CPUs: 36}, want: "j[10-12]"}, // at least 12 CPUs a node: 16 first
	}, treeCluster(t, j3Nodes, j3Tree))
}
