package selectnodes_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/hpcsched/hpcsched/selectnodes"
	"github.com/stretchr/testify/require"
)

// ctCore and ctMem are check/testdata/slurm2205-own's ct_core.conf and
// ct_mem.conf, whose answers were recorded on a real Slurm 22.05.8.
const ctCore = `SelectType=select/cons_tres
SelectTypeParameters=CR_Core
NodeName=a[1-4] CPUs=8 RealMemory=16000 Weight=1 Feature=small
NodeName=b[1-2] CPUs=32 RealMemory=64000 Weight=5 Feature=big
NodeName=c[1-4] CPUs=8 RealMemory=16000 Weight=1 Feature=small,ib
NodeName=d[1-2] CPUs=16 RealMemory=32000 Weight=3 Feature=mid,ib
PartitionName=all Nodes=a[1-4],b[1-2],c[1-4],d[1-2] Default=YES MaxTime=INFINITE State=UP
PartitionName=low Nodes=a[1-4],b[1-2] MaxNodes=4 MaxTime=INFINITE State=UP
`

const ctMem = `SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
NodeName=m[1-4] CPUs=8 RealMemory=16000 Weight=1
NodeName=f[1-2] CPUs=8 RealMemory=64000 Weight=2 Feature=fat
PartitionName=main Nodes=m[1-4],f[1-2] Default=YES DefMemPerCPU=4000 MaxTime=INFINITE State=UP
PartitionName=pn Nodes=m[1-4],f[1-2] DefMemPerNode=20000 MaxTime=INFINITE State=UP
PartitionName=cap Nodes=m[1-4],f[1-2] MaxMemPerNode=8000 MaxTime=INFINITE State=UP
`

type recorded struct {
	busy []string // whole nodes held by running jobs
	req  selectnodes.Request
	want string // Slurm's answer: a hostlist or an error class
}

func runRecorded(t *testing.T, conf string, compat bool, cases []recorded) {
	t.Helper()
	runOn(t, "", cases, func() *selectnodes.Cluster { return clusterOf(t, conf, compat) })
}

func describe(r selectnodes.Request) string {
	return fmt.Sprintf("-p %q -N%d-%d -n%d mem=%d/%d contiguous=%v -w %v", r.Partition, r.MinNodes, r.MaxNodes, r.CPUs,
		r.MinMemoryPerNode, r.MemPerCPU, r.Contiguous, r.Required)
}

// cons_tres in compat mode, each case a recorded answer (ct_core.conf).
func TestSlurmCompatConsTres(t *testing.T) {
	busy := []string{"a1", "a2", "c1"}
	runRecorded(t, ctCore, true, []recorded{
		{req: selectnodes.Request{MinNodes: 2, MaxNodes: 2, CPUs: 20}, want: "a1,d1"},             // last slot needs 12: d1
		{busy: busy, req: selectnodes.Request{MinNodes: 2, MaxNodes: 2, CPUs: 20}, want: "c2,d1"}, // the larger tier-1 run first
		{busy: busy, req: selectnodes.Request{CPUs: 1}, want: "a3"},                               // the smaller run that suffices
		{req: selectnodes.Request{Partition: "low", CPUs: 40}, want: "a[1-3],b1"},                 // last-slot rule with MaxNodes=4
		{req: selectnodes.Request{Partition: "low", CPUs: 80}, want: "node_config"},               // refused though a[1-2],b[1-2] hold it
		{busy: busy, req: selectnodes.Request{Partition: "low", CPUs: 80}, want: "a[3-4],b[1-2]"},
		{req: selectnodes.Request{MinNodes: 2, MaxNodes: 6}, want: "a[1-4],c[1-2]"}, // a range takes its maximum
		{req: selectnodes.Request{Required: []string{"c2"}, MinNodes: 3, MaxNodes: 3}, want: "c[2-4]"},
		{req: selectnodes.Request{Required: []string{"b1"}, MinNodes: 2, MaxNodes: 2}, want: "a1,b1"},
		{req: selectnodes.Request{CPUs: 20, Contiguous: true}, want: "b1"},                              // the first single node holding 20
		{req: selectnodes.Request{CPUs: 40, Contiguous: true}, want: "a[1-4],b1"},                       // from the run's start
		{req: selectnodes.Request{MinNodes: 2, MaxNodes: 2, CPUs: 40, Contiguous: true}, want: "a1,b1"}, // not consecutive
		{busy: busy, req: selectnodes.Request{CPUs: 40, Contiguous: true}, want: "c[2-4],d1"},           // run ending at weight 3 first
		{busy: busy, req: selectnodes.Request{MinNodes: 6, MaxNodes: 6, Contiguous: true}, want: "busy"},
	})
	// the default mode still never refuses what some choice satisfies
	runRecorded(t, ctCore, false, []recorded{
		{req: selectnodes.Request{Partition: "low", CPUs: 80}, want: "a[1-2],b[1-2]"},
	})
}

// Memory defaults and memory per CPU, in both modes (ct_mem.conf).
func TestDefaultMemoryApplied(t *testing.T) {
	for _, compat := range []bool{true, false} {
		runRecorded(t, ctMem, compat, []recorded{
			{req: selectnodes.Request{CPUs: 4}, want: "m1"},                           // 4 x 4000 fits 16000
			{req: selectnodes.Request{CPUs: 5}, want: "m[1-2]"},                       // the fifth CPU's memory does not
			{req: selectnodes.Request{MinNodes: 1, MaxNodes: 1, CPUs: 5}, want: "f1"}, // one node: the 64000 MB one
			{req: selectnodes.Request{CPUs: 2, MemPerCPU: 10000}, want: "m[1-2]"},
			{req: selectnodes.Request{Partition: "pn", MinNodes: 1, MaxNodes: 1}, want: "f1"}, // DefMemPerNode=20000
			{req: selectnodes.Request{Partition: "cap", MinNodes: 1, MaxNodes: 1}, want: "part_config"},
			{req: selectnodes.Request{Partition: "cap", MinNodes: 1, MaxNodes: 1, MinMemoryPerNode: 4000}, want: "m1"},
			{busy: []string{"f1"}, req: selectnodes.Request{MinNodes: 1, MaxNodes: 1, CPUs: 5}, want: "f2"},
		})
	}
	// without consumable memory (CR_Core) the defaults do not apply
	runRecorded(t, strings.Replace(ctMem, "CR_Core_Memory", "CR_Core", 1), true, []recorded{
		{req: selectnodes.Request{CPUs: 8}, want: "m1"},
	})
}

func isClass(s string) bool {
	switch s {
	case "busy", "node_config", "part_config", "invalid", "held":
		return true
	}
	return false
}

// occupyAll holds each named node with a whole-node job, as record.sh's
// load does.
func occupyAll(t *testing.T, c *selectnodes.Cluster, busy []string) {
	t.Helper()
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for k, b := range busy {
		p, err := c.SelectNodes(&selectnodes.Request{Required: []string{b}, Share: selectnodes.ShareExclusiveJob}, selectnodes.RunNow)
		require.NoError(t, err)
		require.NoError(t, c.Allocate(selectnodes.JobID(k+1), p, now, now.Add(time.Hour)))
	}
}
