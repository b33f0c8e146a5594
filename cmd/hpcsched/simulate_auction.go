package main

import (
	"github.com/hpcsched/hpcsched/auction"
)

// auctionWindow is the auction's window in simulations (seed 001 uses
// windows of the first jobs in the queue; the plug-in allows 250).
const auctionWindow = 100

// auctionPlanner is AUCSCHED3 for `simulate --policy auction`: the
// paper's bids, and a work budget instead of a time budget so that a
// replay decides the same on any machine, however loaded. A pass holds
// auctions until one starts nothing (each round starts a job or ends the
// pass, so a window's worth of rounds is no limit): a replay passes only
// at events, and with one auction a pass what a winner took from the
// others' bids stayed idle until the next job ended, where Slurm would
// run its scheduler again within sched_interval (BENCHMARKS.md "Auction:
// utilization in the replay").
func auctionPlanner() *auction.Planner {
	return &auction.Planner{Budget: -1, Solve: auction.ReplayOptions(), Rounds: auctionWindow}
}
