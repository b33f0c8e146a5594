package auction_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hpcsched/hpcsched/auction"
	"github.com/hpcsched/hpcsched/check"
	"github.com/hpcsched/hpcsched/internal/testseed"
	"github.com/hpcsched/hpcsched/queue"
	"github.com/hpcsched/hpcsched/selectnodes"
	"github.com/hpcsched/hpcsched/sim"
	"github.com/stretchr/testify/require"
)

// recording is a Planner that logs every pass's decisions.
type recording struct {
	*auction.Planner
	log []string
}

func (r *recording) Plan(ctx context.Context, snap *selectnodes.Snapshot, window []queue.Job, now time.Time) ([]queue.Decision, error) {
	ds, err := r.Planner.Plan(ctx, snap, window, now)
	r.log = append(r.log, fmt.Sprintf("%s: %+v %v", now.Format(time.RFC3339), ds, err))
	return ds, err
}

// plannerVariants are the planner's modes the shared offers must keep.
func plannerVariants() map[string]func() *auction.Planner {
	return map[string]func() *auction.Planner{
		"auctions": func() *auction.Planner {
			return &auction.Planner{Budget: -1, Solve: auction.ReplayOptions(), Auctions: 4}
		},
		"keep-bidless": func() *auction.Planner {
			return &auction.Planner{Budget: -1, Solve: auction.ReplayOptions(), Auctions: 100, KeepBidless: true}
		},
		"reserve": func() *auction.Planner {
			return &auction.Planner{Budget: -1, Solve: auction.ReplayOptions(), Auctions: 100, ReserveHead: true}
		},
	}
}

// On every site configuration of the shared data, a mixed workload decides
// the same, pass by pass, with offers shared by alike jobs and with every
// job asking its own.
func TestPlannerSharedOffersDecideAsUnshared(t *testing.T) {
	confs := realSites(t)
	seed := testseed.Draw(t)
	jobs := 60
	if testing.Short() {
		jobs = 15
	}
	for _, conf := range confs {
		name := strings.TrimSuffix(filepath.Base(conf), ".slurm.conf")
		cfg, err := check.ReadConfig(conf)
		require.NoError(t, err)
		for variant, mk := range plannerVariants() {
			t.Run(name+"/"+variant, func(t *testing.T) {
				var logs [2][]string
				for k, pl := range []*auction.Planner{mk(), auction.Unshared(mk())} {
					c, err := selectnodes.FromConfig(cfg)
					require.NoError(t, err)
					rec := &recording{Planner: pl}
					r := rand.New(rand.NewPCG(seed, uint64(len(name)+len(variant))))
					runPasses(t, c, rec, r, jobs, false)
					logs[k] = rec.log
				}
				require.NotEmpty(t, logs[0])
				require.Equal(t, logs[1], logs[0], "shared offers decided otherwise")
			})
		}
	}
}

// The AUCSCHED3 paper's workload 6 (jobs of four kinds of request on
// 1,024 nodes) decides the same with offers shared and unshared, under
// both replay policies.
func TestPlannerSharedOffersOnTheSeedWorkload(t *testing.T) {
	jobs, policies := 120, []bool{false, true}
	if testing.Short() {
		jobs, policies = 10, []bool{true} // a pass on 1,024 nodes costs under -race
	}
	w, err := sim.Generate("6", 1024, 16, 1)
	require.NoError(t, err)
	w.Jobs = w.Jobs[:jobs]
	for _, reserve := range policies {
		var logs [2][]string
		for k, unshared := range []bool{false, true} {
			pl := &auction.Planner{Budget: -1, Solve: auction.ReplayOptions(), Auctions: 100, KeepBidless: true, ReserveHead: reserve}
			if unshared {
				auction.Unshared(pl)
			}
			rec := &recording{Planner: pl}
			c, err := selectnodes.Seed001()
			require.NoError(t, err)
			_, err = sim.Run(c, w, sim.Options{Planner: rec, Window: 100})
			require.NoError(t, err)
			logs[k] = rec.log
		}
		require.NotEmpty(t, logs[0])
		require.Equal(t, logs[1], logs[0], "reserve %v: shared offers decided otherwise", reserve)
	}
}

// freshEachPass plans every pass with a new Planner, so no pass sees
// memory another pass used.
type freshEachPass struct {
	mk  func() *auction.Planner
	log []string
}

func (f *freshEachPass) Plan(ctx context.Context, snap *selectnodes.Snapshot, window []queue.Job, now time.Time) ([]queue.Decision, error) {
	ds, err := f.mk().Plan(ctx, snap, window, now)
	f.log = append(f.log, fmt.Sprintf("%s: %+v %v", now.Format(time.RFC3339), ds, err))
	return ds, err
}

// One Planner replaying a workload (its passes recycling the memory of
// one another's bids) decides as a new Planner for every pass, under
// both replay policies, on the AUCSCHED3 paper's workload 6'.
func TestPlannerRecyclingPassesDecideAsFreshOnes(t *testing.T) {
	jobs, policies := 120, []bool{false, true}
	if testing.Short() {
		jobs, policies = 20, []bool{false} // a pass on 1,024 nodes costs under -race
	}
	w, err := sim.Generate("6'", 1024, 16, 1)
	require.NoError(t, err)
	w.Jobs = w.Jobs[:jobs]
	for _, reserve := range policies {
		mk := func() *auction.Planner {
			return &auction.Planner{Budget: -1, Solve: auction.ReplayOptions(), Auctions: 100, KeepBidless: true, ReserveHead: reserve}
		}
		rec := &recording{Planner: mk()}
		fresh := &freshEachPass{mk: mk}
		for _, pl := range []queue.Planner{rec, fresh} {
			c, err := selectnodes.Seed001()
			require.NoError(t, err)
			_, err = sim.Run(c, w, sim.Options{Planner: pl, Window: 100})
			require.NoError(t, err)
		}
		require.NotEmpty(t, rec.log)
		require.Equal(t, fresh.log, rec.log, "reserve %v: a recycling planner decided otherwise", reserve)
	}
}

// A replay whose planner validates every use of the problems it makes
// (which it otherwise skips, as bid generation lays them out from the
// load itself) never fails validation and decides as the planner that
// skips them, under both replay policies, on the AUCSCHED3 paper's
// workload 6'.
func TestPlannerCheckingItsProblemsDecidesTheSame(t *testing.T) {
	jobs, policies := 120, []bool{false, true}
	if testing.Short() {
		jobs, policies = 8, []bool{true} // a pass on 1,024 nodes costs under -race
	}
	w, err := sim.Generate("6'", 1024, 16, 1)
	require.NoError(t, err)
	w.Jobs = w.Jobs[:jobs]
	for _, reserve := range policies {
		var logs [2][]string
		for k, checked := range []bool{false, true} {
			pl := &auction.Planner{Budget: -1, Solve: auction.ReplayOptions(), Auctions: 100, KeepBidless: true, ReserveHead: reserve}
			if checked {
				auction.CheckProblems(pl)
			}
			rec := &recording{Planner: pl}
			c, err := selectnodes.Seed001()
			require.NoError(t, err)
			_, err = sim.Run(c, w, sim.Options{Planner: rec, Window: 100})
			require.NoError(t, err, "reserve %v, checked %v", reserve, checked)
			logs[k] = rec.log
		}
		require.NotEmpty(t, logs[0])
		require.Equal(t, logs[0], logs[1], "reserve %v: the checked planner decided otherwise", reserve)
	}
}
