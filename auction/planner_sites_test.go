package auction_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hpcsched/hpcsched/auction"
	"github.com/hpcsched/hpcsched/check"
	"github.com/hpcsched/hpcsched/features"
	"github.com/hpcsched/hpcsched/internal/shareddata"
	"github.com/hpcsched/hpcsched/internal/testseed"
	"github.com/hpcsched/hpcsched/queue"
	"github.com/hpcsched/hpcsched/selectnodes"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var sitesT0 = time.Date(2026, 11, 27, 8, 0, 0, 0, time.UTC)

// mixedSpec draws one job for cluster c: a partition that is up, then a
// request of one of the kinds a site's users submit — CPUs anywhere, a
// node count, memory per node or per CPU (or the partition's default),
// --exclusive, a feature or a matching OR of two, GPUs (typed or not), an
// excluded node, and the kinds the auction declines (node ranges,
// --contiguous, CPUs per node).
func mixedSpec(r *rand.Rand, c *selectnodes.Cluster) queue.Spec {
	var parts []selectnodes.Partition
	for _, p := range c.Partitions() {
		if p.State == selectnodes.PartitionUp && !p.RootOnly && len(p.Nodes) > 0 {
			parts = append(parts, p)
		}
	}
	p := parts[r.IntN(len(parts))]
	node := c.Node(mustIndex(c, p.Nodes[r.IntN(len(p.Nodes))]))
	req := selectnodes.Request{Partition: p.Name}
	if qs := p.Access.AllowQOS; len(qs) > 0 && !slices.Contains(qs, "ALL") {
		// A job without a QOS runs as QOS normal, which such a
		// partition may not allow: ask for one it does.
		req.QOS = qs[r.IntN(len(qs))]
	}
	n := 1 + r.IntN(min(4, len(p.Nodes)))
	switch r.IntN(3) {
	case 0:
		req.CPUs = 1 + r.IntN(2*node.CPUs)
	case 1:
		req.MinNodes, req.MaxNodes = n, n
		req.CPUs = n * (1 + r.IntN(node.CPUs))
	default:
		req.CPUs = 1 + r.IntN(node.CPUs)
	}
	switch r.IntN(4) {
	case 0:
		req.MinMemoryPerNode = 1 + r.Int64N(max(1, node.RealMemory/2))
	case 1:
		req.MemPerCPU = 1 + r.Int64N(max(1, node.RealMemory/int64(max(1, node.CPUs))))
	}
	if r.IntN(6) == 0 {
		req.Share = selectnodes.ShareExclusiveJob
	}
	if fs := node.Features; len(fs) > 0 && r.IntN(4) == 0 {
		e := fs[r.IntN(len(fs))]
		if r.IntN(2) == 0 {
			e = "[" + e + "|" + fs[r.IntN(len(fs))] + "]"
		}
		req.Features, _ = features.Parse(e)
	}
	if len(node.GRES) > 0 && r.IntN(2) == 0 && req.MinNodes > 0 {
		g := node.GRES[r.IntN(len(node.GRES))]
		typ := ""
		if r.IntN(2) == 0 {
			typ = g.Type
		}
		req.GRES = []selectnodes.GRESRequest{{Name: g.Name, Type: typ, Min: 1, Max: 1 + r.Int64N(max(1, g.Count))}}
	}
	if r.IntN(8) == 0 {
		req.Excluded = []string{p.Nodes[r.IntN(len(p.Nodes))]}
	}
	switch r.IntN(10) { // kinds the auction declines
	case 0:
		req.MinNodes, req.MaxNodes = 1, n+1
	case 1:
		req.Contiguous = true
	case 2:
		req.MinCPUsPerNode = 1 + r.IntN(node.CPUs)
	}
	limit := time.Duration(10+r.IntN(110)) * time.Minute
	if p.MaxTime > 0 {
		limit = min(limit, p.MaxTime)
	}
	return queue.Spec{Name: "mixed", User: "u", Request: req, TimeLimit: limit}
}

// realSites is the slurm.conf files of the shared data, or skips the
// test when the data is not beside the repository.
func realSites(t *testing.T) []string {
	dir := shareddata.Dir()
	if dir == "" {
		t.Skip("../shared/data not found")
	}
	confs, err := filepath.Glob(filepath.Join(dir, "slurm_configs", "*.slurm.conf"))
	require.NoError(t, err)
	require.NotEmpty(t, confs)
	return confs
}

func mustIndex(c *selectnodes.Cluster, name string) int {
	i, ok := c.NodeIndex(name)
	if !ok {
		panic(name)
	}
	return i
}

// counting counts the jobs its Planner starts and declines.
type counting struct {
	*auction.Planner
	starts, declines int
}

func (c *counting) Plan(ctx context.Context, snap *selectnodes.Snapshot, window []queue.Job, now time.Time) ([]queue.Decision, error) {
	ds, err := c.Planner.Plan(ctx, snap, window, now)
	for _, d := range ds {
		if d.Decline {
			c.declines++
		} else {
			c.starts++
		}
	}
	return ds, err
}

// runSchedule submits jobs jobs drawn by mixedSpec (those Submit accepts)
// and runs them to the end with Schedule alone: each step schedules, then
// ends the running job due first. It returns the refusals the queue
// reported and the jobs still pending when nothing runs.
func runSchedule(t *testing.T, c *selectnodes.Cluster, pl queue.Planner, r *rand.Rand, jobs int) (refused []string, stuck []queue.Job, submitted int) {
	refused, stuck, submitted, _ = runPasses(t, c, pl, r, jobs, false)
	return refused, stuck, submitted
}

// runPasses is runSchedule, with a Backfill after every Schedule when
// backfill is set; byBackfill counts the jobs Backfill started.
func runPasses(t *testing.T, c *selectnodes.Cluster, pl queue.Planner, r *rand.Rand, jobs int, backfill bool) (refused []string, stuck []queue.Job, submitted, byBackfill int) {
	return runPassesOf(t, c, pl, r, jobs, backfill, mixedSpec)
}

// runPassesOf is runPasses on jobs drawn by draw.
func runPassesOf(t *testing.T, c *selectnodes.Cluster, pl queue.Planner, r *rand.Rand, jobs int, backfill bool,
	draw func(*rand.Rand, *selectnodes.Cluster) queue.Spec) (refused []string, stuck []queue.Job, submitted, byBackfill int) {
	s := queue.New(c, queue.WithPlanner(pl, 20))
	s.Subscribe(func(e queue.Event) {
		if e.Kind == queue.EventRefused || e.Kind == queue.EventPlanFailed {
			refused = append(refused, fmt.Sprintf("job %d: %s", e.Job, e.Detail))
		}
	})
	for range jobs {
		if _, err := s.Submit(draw(r, c), sitesT0); err == nil {
			submitted++
		}
	}
	byBackfill = runUntilIdle(t, s, 4*jobs+10, backfill)
	return refused, s.Pending(), submitted, byBackfill
}

// runUntilIdle schedules (and backfills, when asked) from sitesT0, then
// ends the running job due first, at most steps times or until nothing
// runs; it returns how many jobs Backfill started.
func runUntilIdle(t *testing.T, s *queue.Scheduler, steps int, backfill bool) (byBackfill int) {
	now := sitesT0
	for range steps {
		s.Schedule(now)
		if backfill {
			more, _ := s.Backfill(now)
			byBackfill += len(more)
		}
		var running []queue.Job
		for _, j := range s.Jobs() {
			if j.State == queue.Running {
				running = append(running, j)
			}
		}
		if len(running) == 0 {
			break
		}
		first := slices.MinFunc(running, func(a, b queue.Job) int { return a.End.Compare(b.End) })
		now = first.End
		require.NoError(t, s.Finish(first.ID, queue.Outcome{}, now))
	}
	return byBackfill
}

// On every site configuration of the shared data, a mixed workload run
// with Schedule alone under the auction planner: the queue refuses none
// of its decisions, and every job ends.
func TestPlannerOnRealSites(t *testing.T) {
	seed := testseed.Draw(t)
	jobs := 120
	if testing.Short() {
		jobs = 40
	}
	eachSite(t, func(t *testing.T, name string, c *selectnodes.Cluster) {
		r := rand.New(rand.NewPCG(seed, uint64(len(name))))
		pl := &counting{Planner: &auction.Planner{Budget: -1, Solve: auction.ReplayOptions(), Auctions: 4}}
		refused, stuck, n := runSchedule(t, c, pl, r, jobs)
		t.Logf("%d jobs submitted, %d started by the auction, %d declined in its answers", n, pl.starts, pl.declines)
		assert.Greater(t, pl.starts, n/4, "the auction starts its share")
		assert.Empty(t, refused, "decisions the queue refused")
		for _, j := range stuck {
			t.Errorf("job %d never ended: %s %+v", j.ID, j.Reason, j.Request)
		}
	})
}

// eachSite runs f as a subtest on a cluster of each slurm.conf of the
// shared data (skipping when the data is not there), named after it.
func eachSite(t *testing.T, f func(t *testing.T, name string, c *selectnodes.Cluster)) {
	for _, conf := range realSites(t) {
		name := strings.TrimSuffix(filepath.Base(conf), ".slurm.conf")
		t.Run(name, func(t *testing.T) {
			cfg, err := check.ReadConfig(conf)
			require.NoError(t, err)
			c, err := selectnodes.FromConfig(cfg)
			require.NoError(t, err)
			f(t, name, c)
		})
	}
}

// The auction on two real sites, with their memory accounting: UB CCR's
// general-compute (DefMemPerCPU=2800) and UNSW abacus (its nodes and
// partitions in included files, memory per node asked).
func TestPlannerOnUBCCRAndAbacus(t *testing.T) {
	dir := shareddata.Dir()
	if dir == "" {
		t.Skip("../shared/data not found")
	}
	load := func(name string) *selectnodes.Cluster {
		cfg, err := check.ReadConfig(filepath.Join(dir, "slurm_configs", name))
		require.NoError(t, err)
		c, err := selectnodes.FromConfig(cfg)
		require.NoError(t, err)
		return c
	}
	// two auctions a pass: the bids share cores and GPUs, not memory, so
	// a winner that does not fit beside an earlier one's memory waits for
	// the next auction
	run := func(c *selectnodes.Cluster, reqs ...selectnodes.Request) (*queue.Scheduler, *counting, []string) {
		pl := &counting{Planner: &auction.Planner{Budget: -1, Solve: auction.ReplayOptions(), Auctions: 2}}
		s := queue.New(c, queue.WithPlanner(pl, 10))
		var refused []string
		s.Subscribe(func(e queue.Event) {
			if e.Kind == queue.EventRefused {
				refused = append(refused, e.Detail)
			}
		})
		for _, r := range reqs {
			_, err := s.Submit(queue.Spec{Request: r, TimeLimit: time.Hour}, sitesT0)
			require.NoError(t, err)
		}
		s.Schedule(sitesT0)
		return s, pl, refused
	}

	ub := selectnodes.Request{QOS: "general-compute", CPUs: 8, MinNodes: 1, MaxNodes: 1}
	s, pl, refused := run(load("ubccr_medium_ubhpc.slurm.conf"), ub, ub)
	assert.Empty(t, refused)
	assert.Equal(t, 2, pl.starts)
	for _, j := range s.Jobs() {
		require.Equal(t, queue.Running, j.State)
		require.Len(t, j.Placement.Alloc, 1)
		assert.Equal(t, int64(8*2800), j.Placement.Alloc[0].Memory, "DefMemPerCPU times the CPUs")
	}

	big := selectnodes.Request{Partition: "Mem256", CPUs: 4, MinNodes: 2, MaxNodes: 2, MinMemoryPerNode: 200_000}
	s, pl, refused = run(load("unsw_abacus.slurm.conf"), big, big, selectnodes.Request{Partition: "debug", CPUs: 2})
	assert.Empty(t, refused)
	assert.Equal(t, 3, pl.starts)
	jobs := s.Jobs()
	for _, j := range jobs[:2] {
		require.Equal(t, queue.Running, j.State)
		for _, a := range j.Placement.Alloc {
			assert.Equal(t, int64(200_000), a.Memory)
		}
	}
	assert.Equal(t, "abacusc-2-0", jobs[2].Nodes())
	used := map[int]int{}
	for _, j := range jobs[:2] {
		for _, a := range j.Placement.Alloc {
			used[a.Node]++
		}
	}
	assert.Len(t, used, 4, "two 200 GB jobs cannot share a 256 GB node")
}
