package main

import (
	"github.com/hpcsched/hpcsched/auction"
)

// auctionWindow is the auction's window in simulations. Seed 001 takes
// "a window of jobs from the front of the job queue" without saying how
// many (the plug-in allows 250). With several auctions a pass, 50 and
// 100 gave about the same utilization on seed 001's workloads; 50 gave
// a lower switch level and spread and a higher utilization than
// backfill's on all eight, where 100 was 0.01 above backfill's level
// on workload 5 and half a point below its utilization on workload 1
// (BENCHMARKS.md "Auction: utilization in the replay").
const auctionWindow = 50

// auctionPlanner is AUCSCHED3 for `simulate --policy auction`: the
// paper's bids, and a work budget instead of a time budget so that a
// replay decides the same on any machine, however loaded. A pass holds
// auctions until one starts nothing (each auction starts a job or ends the
// pass, so a window's worth of auctions is no limit): a replay passes only
// at events, and with one auction a pass what a winner took from the
// others' bids stayed idle until the next job ended, where Slurm would
// run its scheduler again within sched_interval.
func auctionPlanner() *auction.Planner {
	return &auction.Planner{Budget: -1, Solve: auction.ReplayOptions(), Auctions: auctionWindow}
}
