package selectnodes_test

import (
	"strings"
	"testing"

	"github.com/hpcsched/hpcsched/selectnodes"
	"github.com/hpcsched/hpcsched/slurmconf"
	"github.com/stretchr/testify/require"
)

// topo2 is check/testdata/slurm2205-own's topo2_*.conf with its
// topology.conf; the answers were recorded on a real Slurm 22.05.8.
const topo2Nodes = `TopologyPlugin=topology/tree
NodeName=t[01-06] CPUs=4 Weight=1 Feature=x
NodeName=t[07-12] CPUs=4 Weight=1 Feature=y
NodeName=t[13-16] CPUs=8 Weight=5 Feature=x
PartitionName=debug Nodes=t[01-16] Default=YES MaxTime=INFINITE State=UP
`

const topo2Tree = `SwitchName=s1 Nodes=t[01-04]
SwitchName=s2 Nodes=t[05-08]
SwitchName=s3 Nodes=t[09-12]
SwitchName=s4 Nodes=t[13-16]
SwitchName=top Switches=s[1-4]
`

func topoCluster(t *testing.T, selectLines string) *selectnodes.Cluster {
	t.Helper()
	cfg, err := slurmconf.Parse(strings.NewReader(selectLines + topo2Nodes))
	require.NoError(t, err)
	top, err := slurmconf.ParseTopology(strings.NewReader(topo2Tree))
	require.NoError(t, err)
	c, err := selectnodes.FromConfig(cfg, selectnodes.WithSlurmCompat(), selectnodes.WithTopologyConfig(top))
	require.NoError(t, err)
	return c
}

func TestSlurmCompatTopology(t *testing.T) {
	busy := []string{"t01", "t02", "t05", "t09", "t10", "t11"}
	both := []recorded{
		{req: selectnodes.Request{MinNodes: 1, MaxNodes: 1}, want: "t01"},                                 // equal weights merged: the first leaf
		{busy: busy, req: selectnodes.Request{MinNodes: 1, MaxNodes: 1}, want: "t12"},                     // the leaf with the fewest free nodes
		{req: selectnodes.Request{Required: []string{"t09"}, MinNodes: 4, MaxNodes: 4}, want: "t[09-12]"}, // the lowest switch holding t09
		{busy: busy, req: selectnodes.Request{MinNodes: 8, MaxNodes: 8}, want: "t[03-04,06-08,12-14]"},    // past the lowest weight
		{busy: busy, req: selectnodes.Request{CPUs: 20}, want: "t[03-04,06-07,12]"},
		// --switches=1: no leaf holds 5 nodes; Slurm pends (Resources) for its switch wait
		{busy: busy, req: selectnodes.Request{MinNodes: 5, MaxNodes: 5, MaxSwitches: 1}, want: "busy"},
	}
	for _, sel := range []string{"SelectType=select/linear\n", "SelectType=select/cons_tres\nSelectTypeParameters=CR_Core\n"} {
		runTopo(t, sel, both)
	}
	runTopo(t, "SelectType=select/linear\n", []recorded{
		{busy: busy, req: selectnodes.Request{MinNodes: 4, MaxNodes: 4}, want: "t[03-04,06,12]"}, // leaves fewest first
		{busy: busy, req: selectnodes.Request{MinNodes: 5, MaxNodes: 5, Contiguous: true}, want: "t[03-04,06-07,12]"},
	})
	runTopo(t, "SelectType=select/cons_tres\nSelectTypeParameters=CR_Core\n", []recorded{
		{busy: busy, req: selectnodes.Request{MinNodes: 4, MaxNodes: 4}, want: "t[06-08,12]"}, // best-fit leaves
		{busy: busy, req: selectnodes.Request{MinNodes: 5, MaxNodes: 5}, want: "t[03-04,06-08]"},
	})
}

func runTopo(t *testing.T, sel string, cases []recorded) {
	t.Helper()
	runOn(t, sel, cases, func() *selectnodes.Cluster { return topoCluster(t, sel) })
}

// runOn places each case on a fresh cluster from build, its busy nodes
// held, and compares with Slurm's answer (a hostlist or a class).
func runOn(t *testing.T, label string, cases []recorded, build func() *selectnodes.Cluster) {
	t.Helper()
	for _, tc := range cases {
		c := build()
		occupyAll(t, c, tc.busy)
		req := tc.req
		p, err := c.SelectNodes(&req, selectnodes.RunNow)
		name := label + strings.Join(tc.busy, ",") + " " + describe(req)
		if isClass(tc.want) {
			require.Equal(t, tc.want, selectnodes.ClassName(err), name)
			continue
		}
		require.NoError(t, err, name)
		require.Equal(t, tc.want, p.Hostlist(), name)
	}
}

// The default mode does not bound the leaf switches; it places, and its
// explanation says where Slurm would have left the job pending.
func TestDefaultModeSaysSwitchesAreNotEnforced(t *testing.T) {
	cfg, err := slurmconf.Parse(strings.NewReader("SelectType=select/linear\n" + topo2Nodes))
	require.NoError(t, err)
	top, err := slurmconf.ParseTopology(strings.NewReader(topo2Tree))
	require.NoError(t, err)
	c, err := selectnodes.FromConfig(cfg, selectnodes.WithTopologyConfig(top))
	require.NoError(t, err)
	req := selectnodes.Request{MinNodes: 5, MaxNodes: 5, MaxSwitches: 1}
	p, err := c.SelectNodes(&req, selectnodes.RunNow)
	require.NoError(t, err)
	require.Equal(t, 5, p.NodeCount())
	ex := c.Explain(&req, selectnodes.RunNow)
	require.Contains(t, strings.Join(ex.Steps, "\n"), "differs from Slurm 22.05: --switches=1 is not enforced")
	req.MaxSwitches = 0
	ex = c.Explain(&req, selectnodes.RunNow)
	require.NotContains(t, strings.Join(ex.Steps, "\n"), "--switches")
}
