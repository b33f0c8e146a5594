package main

import (
	"fmt"
	"testing"

	"github.com/hpcsched/hpcsched/selectnodes"
	"github.com/hpcsched/hpcsched/sim"
)

// BenchmarkReplayAuction replays a whole generated workload of the
// AUCSCHED3 paper (seed 1 of the generator) on its 1,024-node tree under
// each auction policy, as `simulate --workload aucsched:6 --policy
// auction` does: the cost of a replay, not of one pass. jobs=300 is the
// workload's first 300 jobs, for profiling; "util" is the replay's
// utilization, so a change of decisions shows.
func BenchmarkReplayAuction(b *testing.B) {
	for _, tc := range []struct {
		workload string
		jobs     int
	}{{"6", 300}, {"6", 0}, {"1", 0}} {
		for _, policy := range []string{"auction", auctionReserve} {
			w, err := sim.Generate(tc.workload, 1024, 16, 1)
			if err != nil {
				b.Fatal(err)
			}
			if tc.jobs > 0 {
				w.Jobs = w.Jobs[:tc.jobs]
			}
			name := fmt.Sprintf("nodes=1024/workload=aucsched:%s/jobs=%d/policy=%s", tc.workload, len(w.Jobs), policy)
			b.Run(name, func(b *testing.B) {
				var res *sim.Result
				for b.Loop() {
					c, err := selectnodes.Seed001()
					if err != nil {
						b.Fatal(err)
					}
					res, err = sim.Run(c, w, sim.Options{Planner: auctionFor(policy), Window: auctionWindow})
					if err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(100*res.Metrics.Utilization, "util%")
			})
		}
	}
}
