package auction_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/hpcsched/hpcsched/auction"
	"github.com/hpcsched/hpcsched/queue"
	"github.com/hpcsched/hpcsched/selectnodes"
)

// BenchmarkPlannerPass: one scheduler pass of the planner as a replay
// runs it (ReplayOptions) on the AUCSCHED3 paper's idle 1,024-node system with a
// window of 100 jobs asking about three times its cores: one auction (the
// paper's form) against auctions until one starts nothing (what
// `simulate --policy auction` runs). The snapshot copy each pass needs is
// included, as in queue's pass; "started" is the jobs the pass starts.
func BenchmarkPlannerPass(b *testing.B) {
	c, err := selectnodes.Seed001()
	if err != nil {
		b.Fatal(err)
	}
	window := benchWindow(100)
	now := time.Date(2026, 11, 27, 0, 0, 0, 0, time.UTC)
	for _, auctions := range []int{1, 100} {
		b.Run(fmt.Sprintf("nodes=1024/window=100/auctions=%d", auctions), func(b *testing.B) {
			benchPasses(b, &auction.Planner{Budget: -1, Solve: auction.ReplayOptions(), Auctions: auctions}, c, window, now)
		})
	}
}

// BenchmarkPlannerPassReserve: the pass of BenchmarkPlannerPass (auctions
// until one starts nothing) on a machine with half its cores busy for
// half an hour, behind a head of 12,000 cores that has no bid (the
// window's jobs run an hour, past its reservation): without
// ReserveHead, and with it (a WillRun for the head, bids generated again
// with its nodes held off, and a second solve when the head loses).
func BenchmarkPlannerPassReserve(b *testing.B) {
	c, err := selectnodes.Seed001()
	if err != nil {
		b.Fatal(err)
	}
	now := time.Date(2026, 11, 27, 0, 0, 0, 0, time.UTC)
	busy, err := c.SelectNodes(&selectnodes.Request{CPUs: 8192}, selectnodes.RunNow)
	if err == nil {
		err = c.Allocate(1000, busy, now, now.Add(30*time.Minute))
	}
	if err != nil {
		b.Fatal(err)
	}
	head := queue.Job{ID: 1000, Priority: 1, TimeLimit: time.Hour, Request: selectnodes.Request{CPUs: 12000}}
	window := append([]queue.Job{head}, benchWindow(99)...)
	for _, reserve := range []bool{false, true} {
		b.Run(fmt.Sprintf("nodes=1024/busy=half/window=100/reserve=%v", reserve), func(b *testing.B) {
			benchPasses(b, &auction.Planner{Budget: -1, Solve: auction.ReplayOptions(), Auctions: 100, ReserveHead: reserve, KeepBidless: true}, c, window, now)
		})
	}
}

// benchPasses times pl's pass on a fresh snapshot of c (the copy is part
// of a pass) and reports how many jobs it starts.
func benchPasses(b *testing.B, pl *auction.Planner, c *selectnodes.Cluster, window []queue.Job, now time.Time) {
	var started int
	for b.Loop() {
		d, err := pl.Plan(context.Background(), c.Snapshot(), window, now)
		if err != nil {
			b.Fatal(err)
		}
		started = len(d)
	}
	b.ReportMetric(float64(started), "started")
}

// benchWindow is n jobs of the AUCSCHED3 paper's kinds, drawn with a fixed seed:
// cores on any nodes, or whole nodes with 1-2 GPUs each.
func benchWindow(n int) []queue.Job {
	rng := rand.New(rand.NewPCG(1, 2))
	gpus := []selectnodes.GRESRequest{{Name: "gpu", Min: 1, Max: 2}}
	jobs := make([]queue.Job, n)
	for k := range jobs {
		j := queue.Job{ID: queue.JobID(k + 1), Priority: 1, TimeLimit: time.Hour}
		nodes := 1 + rng.IntN(64)
		if k%2 == 0 {
			j.Request = selectnodes.Request{CPUs: 16 * nodes, MinNodes: nodes, MaxNodes: nodes, GRES: gpus}
		} else {
			j.Request = selectnodes.Request{CPUs: 16 + rng.IntN(1024)}
		}
		jobs[k] = j
	}
	return jobs
}
