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

// spanCluster is a site whose partition long has another partition's
// node (other1) between its own, as real sites list their nodes.
func spanCluster(t *testing.T, nodes string) *selectnodes.Cluster {
	cfg, err := slurmconf.Parse(strings.NewReader(nodes +
		"PartitionName=long Nodes=big[1-3],small[1-4] Default=YES\nPartitionName=other Nodes=other1\n"))
	require.NoError(t, err)
	c, err := selectnodes.FromConfig(cfg)
	require.NoError(t, err)
	return c
}

// A planner that keeps bidless jobs (the AUCSCHED3 paper's) bids for a job
// across the other partition's busy node: the job's runs are scanned over
// its own partition's nodes. It used to have no bid while other1 ran, and
// waited for ever on a busy site.
func TestPlannerBidsAcrossAnotherPartitionsNode(t *testing.T) {
	c := spanCluster(t, "NodeName=big[1-2] CPUs=64\nNodeName=other1 CPUs=8\nNodeName=small[1-4] CPUs=16\nNodeName=big3 CPUs=64\n")
	pl := &counting{Planner: &auction.Planner{Budget: -1, Solve: auction.ReplayOptions(), KeepBidless: true}}
	s := queue.New(c, queue.WithPlanner(pl, 20))
	other, err := s.Submit(queue.Spec{Name: "o", User: "u", Request: selectnodes.Request{Partition: "other", MinNodes: 1}, TimeLimit: 10 * time.Hour}, sitesT0)
	require.NoError(t, err)
	s.Schedule(sitesT0)
	require.Equal(t, queue.Running, job(t, s, other).State)
	pl.starts = 0

	wide, err := s.Submit(queue.Spec{Name: "w", User: "u", Request: selectnodes.Request{CPUs: 180, MinNodes: 6, MaxNodes: 6}, TimeLimit: time.Hour}, sitesT0)
	require.NoError(t, err)
	s.Schedule(sitesT0.Add(time.Minute))
	j := job(t, s, wide)
	require.Equal(t, queue.Running, j.State, "reason %s", j.Reason)
	assert.Equal(t, "big[1-2],small[1-4]", j.Nodes())
	assert.Equal(t, 1, pl.starts, "the auction started it")
	assert.Zero(t, pl.declines)
}

// A job no run of the idle machine holds (its cores only on two big nodes
// that are not neighbours) can never get a bid: even a planner that keeps
// bidless jobs declines it, and the queue's selection starts it.
func TestPlannerDeclinesAJobNoIdleRunHolds(t *testing.T) {
	c := spanCluster(t, "NodeName=big1 CPUs=64\nNodeName=small[1-2] CPUs=16\nNodeName=big2 CPUs=64\nNodeName=other1 CPUs=8\nNodeName=small[3-4] CPUs=16\nNodeName=big3 CPUs=64\n")
	pl := &counting{Planner: &auction.Planner{Budget: -1, Solve: auction.ReplayOptions(), KeepBidless: true}}
	s := queue.New(c, queue.WithPlanner(pl, 20))
	id, err := s.Submit(queue.Spec{Name: "b", User: "u", Request: selectnodes.Request{CPUs: 128, MinNodes: 2, MaxNodes: 2}, TimeLimit: time.Hour}, sitesT0)
	require.NoError(t, err)
	s.Schedule(sitesT0)
	j := job(t, s, id)
	require.Equal(t, queue.Running, j.State, "reason %s", j.Reason)
	assert.Equal(t, 1, pl.declines)
	assert.Zero(t, pl.starts)
}

func job(t *testing.T, s *queue.Scheduler, id queue.JobID) queue.Job {
	j, ok := s.Job(id)
	require.True(t, ok)
	return j
}

// A job whose bound on the idle machine passes but whose real room does
// not (a node's memory holds fewer of its CPUs) waits for a bid while
// anything runs, and is declined once the machine is idle: no bid could
// ever come, and the queue's selection starts it on nodes that are not
// neighbours.
func TestPlannerDeclinesABidlessJobOnAnIdleMachine(t *testing.T) {
	cfg, err := slurmconf.Parse(strings.NewReader("SelectType=select/cons_tres\nSelectTypeParameters=CR_Core_Memory\nDefMemPerCPU=1100\n" +
		"NodeName=big1 CPUs=64 RealMemory=100000\nNodeName=big2 CPUs=64 RealMemory=32000\nNodeName=big3 CPUs=64 RealMemory=100000\n" +
		"NodeName=other1 CPUs=8 RealMemory=100000\n" +
		"PartitionName=long Nodes=big[1-3] Default=YES\nPartitionName=other Nodes=other1\n"))
	require.NoError(t, err)
	c, err := selectnodes.FromConfig(cfg)
	require.NoError(t, err)
	pl := &counting{Planner: &auction.Planner{Budget: -1, Solve: auction.ReplayOptions(), KeepBidless: true}}
	s := queue.New(c, queue.WithPlanner(pl, 20))
	other, err := s.Submit(queue.Spec{Name: "o", User: "u", Request: selectnodes.Request{Partition: "other", CPUs: 1}, TimeLimit: time.Hour}, sitesT0)
	require.NoError(t, err)
	s.Schedule(sitesT0)
	require.Equal(t, queue.Running, job(t, s, other).State)
	id, err := s.Submit(queue.Spec{Name: "b", User: "u", Request: selectnodes.Request{CPUs: 120, MinNodes: 2, MaxNodes: 2}, TimeLimit: time.Hour}, sitesT0)
	require.NoError(t, err)
	s.Schedule(sitesT0.Add(time.Minute))
	require.Equal(t, queue.Pending, job(t, s, id).State, "no bid: it waits while anything runs")
	assert.Zero(t, pl.declines)

	end := sitesT0.Add(time.Hour)
	require.NoError(t, s.Finish(other, queue.Outcome{}, end))
	s.Schedule(end)
	j := job(t, s, id)
	require.Equal(t, queue.Running, j.State, "reason %s", j.Reason)
	assert.Equal(t, "big[1,3]", j.Nodes())
	assert.Equal(t, 1, pl.declines)
}

// wideSpec draws a job of up to a whole partition of a site's cluster: n
// of its nodes, with at most the CPUs its smallest node has on each, so
// that any n of them hold it when idle.
func wideSpec(r *rand.Rand, c *selectnodes.Cluster) queue.Spec {
	spec := mixedSpec(r, c)
	p, _ := c.Partition(spec.Request.Partition)
	least := 0
	for _, name := range p.Nodes {
		if cpus := c.Node(mustIndex(c, name)).CPUs; least == 0 || cpus < least {
			least = cpus
		}
	}
	n := 1 + r.IntN(len(p.Nodes))
	spec.Request = selectnodes.Request{Partition: p.Name, QOS: spec.Request.QOS, MinNodes: n, MaxNodes: n, CPUs: n * (1 + r.IntN(max(1, least)))}
	return spec
}

// On every site configuration of the shared data, jobs of up to a whole
// partition under a planner that keeps bidless jobs (the CLI's --policy
// auction) all end: none waits for ever for a bid it cannot get (three
// sites left jobs pending for ever when another partition's nodes lay
// between their own).
func TestKeepBidlessPlannerOnRealSitesEndsEveryJob(t *testing.T) {
	seed := testseed.Draw(t)
	jobs := 40
	if testing.Short() {
		jobs = 15
	}
	eachSite(t, func(t *testing.T, name string, c *selectnodes.Cluster) {
		r := rand.New(rand.NewPCG(seed, uint64(len(name))))
		pl := &auction.Planner{Budget: -1, Solve: auction.ReplayOptions(), Auctions: 4, KeepBidless: true}
		refused, stuck, _, _ := runPassesOf(t, c, pl, r, jobs, false, wideSpec)
		assert.Empty(t, refused, "decisions the queue refused")
		for _, j := range stuck {
			t.Errorf("job %d never ended: %s %+v", j.ID, j.Reason, j.Request)
		}
	})
}
