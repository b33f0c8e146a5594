package auction_test

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/hpcsched/hpcsched/auction"
	"github.com/hpcsched/hpcsched/queue"
	"github.com/hpcsched/hpcsched/selectnodes"
)

// Half of the AUCSCHED3 paper's 16,384 cores run for another hour. The window's head
// asks for 12,000 cores: it has no bid now. Behind it, ten two-hour jobs
// of 32 nodes (512 cores) and one half-hour job of one node. Seed 001's
// auction (KeepBidless) starts them all on the free half, and the head waits for the
// two-hour jobs; with ReserveHead it keeps its start in an hour: eight of
// the two-hour jobs fit beside it, the short one ends before it.
func ExamplePlanner_reserveHead() {
	c, err := selectnodes.Seed001()
	if err != nil {
		panic(err)
	}
	now := time.Date(2026, 11, 27, 6, 0, 0, 0, time.UTC)
	busy, err := c.SelectNodes(&selectnodes.Request{CPUs: 8192}, selectnodes.RunNow)
	if err != nil {
		panic(err)
	}
	if err := c.Allocate(1000, busy, now, now.Add(time.Hour)); err != nil {
		panic(err)
	}
	window := []queue.Job{{ID: 1, TimeLimit: time.Hour, Request: selectnodes.Request{CPUs: 12000}}}
	for k := range 10 {
		window = append(window, queue.Job{ID: queue.JobID(2 + k), TimeLimit: 2 * time.Hour,
			Request: selectnodes.Request{CPUs: 512, MinNodes: 32, MaxNodes: 32}})
	}
	window = append(window, queue.Job{ID: 99, TimeLimit: 30 * time.Minute,
		Request: selectnodes.Request{CPUs: 16, MinNodes: 1, MaxNodes: 1}})
	for _, reserve := range []bool{false, true} {
		pl := &auction.Planner{Budget: -1, Solve: auction.ReplayOptions(), Auctions: len(window), ReserveHead: reserve, KeepBidless: true}
		ds, err := pl.Plan(context.Background(), c.Snapshot(), window, now)
		if err != nil {
			panic(err)
		}
		var ids []queue.JobID
		for _, d := range ds {
			ids = append(ids, d.Job)
		}
		slices.Sort(ids)
		fmt.Printf("ReserveHead %v: jobs %v start;", reserve, ids)
		snap := c.Snapshot() // the planner's own copy holds its trials: start the decisions on a fresh one
		for _, d := range ds {
			p, err := snap.PlaceExact(&window[indexOf(window, d.Job)].Request, d.Layout)
			if err == nil {
				err = snap.Allocate(selectnodes.JobID(d.Job), p, now, now.Add(window[indexOf(window, d.Job)].TimeLimit))
			}
			if err != nil {
				panic(err)
			}
		}
		head, err := snap.SelectNodes(&window[0].Request, selectnodes.WillRun)
		if err != nil {
			panic(err)
		}
		fmt.Println(" the head can start after", head.Start.Sub(now))
	}
	// Output:
	// ReserveHead false: jobs [2 3 4 5 6 7 8 9 10 11 99] start; the head can start after 2h0m0s
	// ReserveHead true: jobs [2 3 4 5 6 7 8 9 99] start; the head can start after 1h0m0s
}

func indexOf(window []queue.Job, id queue.JobID) int {
	for k := range window {
		if window[k].ID == id {
			return k
		}
	}
	return -1
}
