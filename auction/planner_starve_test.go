package auction_test

import (
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/hpcsched/hpcsched/auction"
	"github.com/hpcsched/hpcsched/internal/testseed"
	"github.com/hpcsched/hpcsched/queue"
	"github.com/hpcsched/hpcsched/selectnodes"
	"github.com/hpcsched/hpcsched/slurmconf"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Three jobs the auction cannot bid for (a node range, --contiguous, CPUs
// per node) at the head of a window of 3 do not hold back the plain
// 16-core job behind them on the AUCSCHED3 paper's idle machine: the planner
// declines them, so they take no place in its window, and all four start
// in the first pass.
func TestPlannerDeclinedKindsDoNotBlockTheWindow(t *testing.T) {
	c, err := selectnodes.Seed001()
	require.NoError(t, err)
	s := queue.New(c, queue.WithPlanner(&auction.Planner{Budget: -1, Solve: auction.ReplayOptions()}, 3))
	now := time.Date(2026, 11, 27, 9, 0, 0, 0, time.UTC)
	specs := []selectnodes.Request{
		{CPUs: 32, MinNodes: 2, MaxNodes: 4},
		{CPUs: 48, MinNodes: 3, MaxNodes: 3, Contiguous: true},
		{CPUs: 16, MinCPUsPerNode: 8},
		{CPUs: 16},
	}
	var ids []queue.JobID
	for _, r := range specs {
		id, err := s.Submit(queue.Spec{Request: r, TimeLimit: time.Hour}, now)
		require.NoError(t, err)
		ids = append(ids, id)
	}
	var by []queue.JobID
	for _, st := range s.Schedule(now) {
		by = append(by, st.Job)
	}
	assert.Equal(t, []queue.JobID{ids[3], ids[0], ids[1], ids[2]}, by, "the auction's start, then the declined jobs in queue order")
	j, _ := s.Job(ids[1])
	require.Len(t, j.Placement.Alloc, 3)
	assert.Equal(t, 2, j.Placement.Alloc[2].Node-j.Placement.Alloc[0].Node, "contiguous, as the pipeline places it")
}

// siteConf is a small site with memory accounted: two partitions over
// nodes of two kinds (features, GPUs of two types), DefMemPerCPU on one,
// MaxMemPerNode on the other.
const siteConf = `SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
NodeName=c[01-12] CPUs=16 RealMemory=64000 Features=intel,ib
NodeName=g[01-04] CPUs=32 RealMemory=192000 Features=amd Gres=gpu:v100:2,gpu:a100:2
PartitionName=batch Nodes=c[01-12],g[01-04] Default=YES DefMemPerCPU=3000 MaxTime=24:00:00
PartitionName=gpu Nodes=g[01-04] DefMemPerCPU=4000 MaxMemPerNode=160000
`

// A seeded mixed workload on a site with memory accounting ends, every
// job of it, with Schedule alone under the auction planner; the queue
// refuses none of the planner's decisions.
func TestPlannerMixedWorkloadEndsWithScheduleAlone(t *testing.T) {
	cfg, err := slurmconf.Parse(strings.NewReader(siteConf))
	require.NoError(t, err)
	seed := testseed.Draw(t)
	for _, reserve := range []bool{false, true} {
		c, err := selectnodes.FromConfig(cfg)
		require.NoError(t, err)
		r := rand.New(rand.NewPCG(seed, 1))
		pl := &counting{Planner: &auction.Planner{Budget: -1, Solve: auction.ReplayOptions(), Auctions: 3, ReserveHead: reserve}}
		refused, stuck, n := runSchedule(t, c, pl, r, workloadSize())
		t.Logf("reserve %v: %d jobs, %d started by the auction", reserve, n, pl.starts)
		assert.Greater(t, pl.starts, n/3)
		assert.Empty(t, refused)
		for _, j := range stuck {
			t.Errorf("reserve %v: job %d never ended: %s %+v", reserve, j.ID, j.Reason, j.Request)
		}
	}
}

// With Backfill after every Schedule, the planner decides first and
// Backfill fills around it: both start jobs, and every job ends.
func TestPlannerWithBackfillBothContribute(t *testing.T) {
	cfg, err := slurmconf.Parse(strings.NewReader(siteConf))
	require.NoError(t, err)
	seed := testseed.Draw(t)
	c, err := selectnodes.FromConfig(cfg)
	require.NoError(t, err)
	pl := &counting{Planner: &auction.Planner{Budget: -1, Solve: auction.ReplayOptions(), Auctions: 3}}
	refused, stuck, n, byBackfill := runPasses(t, c, pl, rand.New(rand.NewPCG(seed, 1)), workloadSize(), true)
	t.Logf("%d jobs: %d started by the auction, %d by Backfill, the rest by Schedule's selection of declined jobs", n, pl.starts, byBackfill)
	assert.Positive(t, pl.starts)
	assert.Positive(t, byBackfill)
	assert.Empty(t, refused)
	assert.Empty(t, stuck)
}

// workloadSize is the mixed workloads' jobs: 150 (BENCHMARKS.md's
// figures), 50 under -short.
func workloadSize() int {
	if testing.Short() {
		return 50
	}
	return 150
}
