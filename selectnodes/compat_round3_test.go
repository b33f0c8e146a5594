package selectnodes_test

import (
	"strings"
	"testing"

	"github.com/hpcsched/hpcsched/selectnodes"
	"github.com/hpcsched/hpcsched/slurmconf"
	"github.com/stretchr/testify/require"
)

// b3Nodes and b3Tree are check/testdata/slurm2205-own/blind's
// b_topo3_*.conf and b3.topology: three levels, uneven leaves, three
// weights spread across the switches, NodeName lines out of name order.
// Every answer below was recorded on a real Slurm 22.05.8.
const b3Nodes = `TopologyPlugin=topology/tree
NodeName=w[15-18] CPUs=16 Weight=2 Feature=p,r
NodeName=w[01-05] CPUs=8 Weight=3 Feature=p
NodeName=w[06-10] CPUs=4 Weight=1 Feature=q
NodeName=w[11-14] CPUs=8 Weight=1 Feature=p
PartitionName=debug Nodes=w[01-18] Default=YES MaxTime=INFINITE State=UP
`

const b3Tree = `SwitchName=e1 Nodes=w[01-03]
SwitchName=e2 Nodes=w[04-08]
SwitchName=e3 Nodes=w[09-10]
SwitchName=e4 Nodes=w[11-14]
SwitchName=e5 Nodes=w[15-18]
SwitchName=g1 Switches=e[1-2]
SwitchName=g2 Switches=e[3-5]
SwitchName=core Switches=g[1-2]
`

func b3Cluster(t *testing.T, sel string, compat bool) *selectnodes.Cluster {
	t.Helper()
	cfg, err := slurmconf.Parse(strings.NewReader(sel + b3Nodes))
	require.NoError(t, err)
	top, err := slurmconf.ParseTopology(strings.NewReader(b3Tree))
	require.NoError(t, err)
	opts := []selectnodes.Option{selectnodes.WithTopologyConfig(top)}
	if compat {
		opts = append(opts, selectnodes.WithSlurmCompat())
	}
	c, err := selectnodes.FromConfig(cfg, opts...)
	require.NoError(t, err)
	return c
}

const (
	selLinear  = "SelectType=select/linear\n"
	selConsRes = "SelectType=select/cons_tres\nSelectTypeParameters=CR_Core\n"
)

func runB3(t *testing.T, sel string, cases []recorded) {
	t.Helper()
	runOn(t, sel, cases, func() *selectnodes.Cluster { return b3Cluster(t, sel, true) })
}

func TestSlurmCompatThreeLevelTree(t *testing.T) {
	busy := []string{"w07", "w11", "w12", "w16"}
	// cons_tres: node counts from a first leaf found down the tree, then
	// a leaf holding exactly what is left, else the closest
	runB3(t, selConsRes, []recorded{
		{req: selectnodes.Request{MinNodes: 7, MaxNodes: 7}, want: "w[06-08,11-14]"},                // w[11-14], then w[06-08]: exactly 3
		{req: selectnodes.Request{MinNodes: 8, MaxNodes: 8}, want: "w[06-07,09-14]"},                // w[11-14], w[09-10] beside, 2 of w[06-08]
		{req: selectnodes.Request{MinNodes: 4, MaxNodes: 8}, want: "w[06-07,09-14]"},                // g2's leaves of 4 and 2, then 2 of e2
		{busy: busy, req: selectnodes.Request{MinNodes: 5, MaxNodes: 5}, want: "w[06,09-10,13-14]"}, // g2 first, then one of g1
		// a CPU total is not confined to a switch: leaves with the fewest nodes first
		{req: selectnodes.Request{CPUs: 8}, want: "w[09-10]"},
		{req: selectnodes.Request{CPUs: 20}, want: "w[06-10]"},
		{busy: busy, req: selectnodes.Request{CPUs: 16}, want: "w[06,08-10]"},
		// --contiguous ignores the tree: the tightest free run, from its start
		{req: selectnodes.Request{CPUs: 24, Contiguous: true}, want: "w[01-03]"},
		{busy: busy, req: selectnodes.Request{MinNodes: 4, MaxNodes: 4, Contiguous: true}, want: "w[01-04]"},
		// more nodes than the partition has: Slurm pends (PartitionConfig)
		{req: selectnodes.Request{MinNodes: 19, MaxNodes: 19}, want: "part_config"},
	})
	// linear: the switch sized for the minimum, up to the maximum within it
	runB3(t, selLinear, []recorded{
		{req: selectnodes.Request{MinNodes: 2, MaxNodes: 4}, want: "w[09-10]"},
		{req: selectnodes.Request{MinNodes: 4, MaxNodes: 8}, want: "w[11-14]"},
		{busy: busy, req: selectnodes.Request{MinNodes: 3, MaxNodes: 6}, want: "w[09-10,13-14]"},
	})
}

// The default mode keeps its own rule for a node range on a tree: the
// wanted count when the nodes allow it, lowest weights first; explain
// says how Slurm differs.
func TestDefaultModeNodeRangeOnTree(t *testing.T) {
	c := b3Cluster(t, selLinear, false)
	req := selectnodes.Request{MinNodes: 4, MaxNodes: 8}
	p, err := c.SelectNodes(&req, selectnodes.RunNow)
	require.NoError(t, err)
	require.GreaterOrEqual(t, p.NodeCount(), 4)
	for _, n := range p.Names {
		require.True(t, n >= "w06" && n <= "w14", "default mode takes the lowest weight (w[06-14]) first: %s", p.Hostlist())
	}
}

// bCt and bPartCt are blind's b_ct.conf and b_part_ct.conf.
const bCt = `SelectType=select/cons_tres
SelectTypeParameters=CR_Core
NodeName=c[01-04] CPUs=24 Weight=4 Feature=amd
NodeName=c[05-10] CPUs=12 Weight=2 Feature=intel,ib
NodeName=c[11-14] CPUs=6 Weight=2 Feature=intel
NodeName=c[15-16] CPUs=48 Weight=8 Feature=amd,fat
PartitionName=all Nodes=c[01-16] Default=YES MaxTime=INFINITE State=UP
`

const bPartCt = `SelectType=select/cons_tres
SelectTypeParameters=CR_Core
NodeName=p[01-10] CPUs=8 Weight=1
NodeName=p[11-14] CPUs=16 Weight=3 Feature=wide
PartitionName=all Nodes=p[01-14] Default=YES MaxTime=INFINITE State=UP
PartitionName=few Nodes=p[01-14] MaxNodes=3 MaxTime=INFINITE State=UP
PartitionName=wide Nodes=p[05-14] MinNodes=3 MaxNodes=6 MaxTime=INFINITE State=UP
`

// A CPU total the weight order cannot reach within the node limit starts
// again past the lowest weight; a node too small for any choice within
// the limit is passed over.
func TestSlurmCompatCPUTotalWithinNodeLimit(t *testing.T) {
	runRecorded(t, bCt, true, []recorded{
		{req: selectnodes.Request{MinNodes: 4, MaxNodes: 4, CPUs: 100}, want: "c[01-03,15]"},
		{req: selectnodes.Request{MinNodes: 4, MaxNodes: 4, CPUs: 90}, want: "c[01-04]"},
		{req: selectnodes.Request{MinNodes: 3, MaxNodes: 3, CPUs: 100}, want: "c[04,15-16]"}, // last, in reverse
		{req: selectnodes.Request{MinNodes: 2, MaxNodes: 2, CPUs: 60}, want: "c[05,15]"},     // the weight order suffices
		{req: selectnodes.Request{CPUs: 400}, want: "part_config"},                           // above the partition's 288 CPUs
	})
	runRecorded(t, bPartCt, true, []recorded{
		{req: selectnodes.Request{Partition: "wide", CPUs: 60}, want: "p[11-14]"},
		{req: selectnodes.Request{Partition: "few", CPUs: 40}, want: "p[11-13]"},
		{req: selectnodes.Request{MinNodes: 2, MaxNodes: 2, CPUs: 30}, want: "p[11-12]"},
		{req: selectnodes.Request{Partition: "few", CPUs: 50}, want: "node_config"}, // refused at submission
	})
	// the default mode never refuses what some choice satisfies
	runRecorded(t, bCt, false, []recorded{
		{req: selectnodes.Request{CPUs: 400}, want: "node_config"},
	})
}

// pMem is probe3's p_mem.conf with blind's capmem partition: memory
// limits and no default memory.
const pMem = `SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
NodeName=r[1-6] CPUs=8 RealMemory=32000 Weight=1
NodeName=u[1-2] CPUs=8 RealMemory=16000 Weight=9
PartitionName=capz Nodes=r[1-6],u[1-2] Default=YES MaxMemPerNode=20000 MaxTime=INFINITE State=UP
PartitionName=capmem Nodes=r[1-6],u[1-2] MaxMemPerNode=48000 MaxTime=INFINITE State=UP
`

// A job asking no memory where MaxMemPerNode is set and no default:
// Slurm pends it when the nodes it takes first hold more than the limit.
func TestSlurmCompatNoMemoryUnderMaxMemPerNode(t *testing.T) {
	runRecorded(t, pMem, true, []recorded{
		{req: selectnodes.Request{CPUs: 8}, want: "part_config"},
		{req: selectnodes.Request{Partition: "capmem", CPUs: 24}, want: "r[1-3]"},
	})
	// the default mode refuses only when no node is within the limit
	runRecorded(t, pMem, false, []recorded{
		{req: selectnodes.Request{CPUs: 8}, want: "r1"},
	})
}

func TestDefaultModeSaysNoMemoryDiffers(t *testing.T) {
	c := clusterOf(t, pMem, false)
	req := selectnodes.Request{CPUs: 8}
	ex := c.Explain(&req, selectnodes.RunNow)
	require.Contains(t, strings.Join(ex.Steps, "\n"), "differs from Slurm 22.05: no memory asked")
	req.MinMemoryPerNode = 1000
	ex = c.Explain(&req, selectnodes.RunNow)
	require.NotContains(t, strings.Join(ex.Steps, "\n"), "no memory asked")
}
