package main

import (
	"github.com/hpcsched/hpcsched/auction"
)

// auctionWindow is the auction's window in simulations (seed 001 uses
// windows of the first jobs in the queue; the plug-in allows 250).
const auctionWindow = 100

// auctionPlanner is AUCSCHED3 for `simulate --policy auction`: the
// paper's bids, and a work budget instead of a time budget so that a
// replay decides the same on any machine, however loaded.
func auctionPlanner() *auction.Planner {
	return &auction.Planner{Budget: -1, Solve: auction.ReplayOptions()}
}
