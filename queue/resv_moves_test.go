package queue

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/hpcsched/hpcsched/selectnodes"
	"github.com/stretchr/testify/require"
)

// A standing reservation moves when a node under it can no longer be
// used: a drained node, or a running job whose time limit grew past the
// reservation's start. The next pass reserves as a fresh plan would, on
// nodes free then, and the job starts when they are.
func TestReservationMovesOffNodesNoLongerFree(t *testing.T) {
	const conf = "NodeName=n[0-4] CPUs=1\nPartitionName=batch Nodes=ALL Default=YES\n"
	for name, change := range map[string]func(t *testing.T, s *Scheduler, x JobID){
		"drained": func(t *testing.T, s *Scheduler, _ JobID) {
			require.NoError(t, s.SetNodeState("n0", selectnodes.NodeDrain, at(5)))
		},
		"limit grown": func(t *testing.T, s *Scheduler, x JobID) {
			require.NoError(t, s.Update(x, Update{TimeLimit: 100 * time.Minute}, at(5)))
		},
	} {
		t.Run(name, func(t *testing.T) {
			s := New(cluster(t, conf))
			onNodes := func(list string, limit time.Duration) JobID {
				spec := Spec{Name: "run", User: "u", Request: selectnodes.Request{Required: []string{list}}, TimeLimit: limit}
				id := submit(t, s, spec, at(0))
				return id
			}
			x := onNodes("n0", 60*time.Minute)
			sixty := []JobID{x}
			for _, n := range []string{"n1", "n2", "n3"} {
				sixty = append(sixty, onNodes(n, 60*time.Minute))
			}
			last := onNodes("n4", 90*time.Minute)
			s.Schedule(at(0))
			p := submit(t, s, nodes(4, time.Hour), at(1))
			_, resv := s.Backfill(at(1))
			require.Len(t, resv, 1)
			require.Equal(t, at(60), resv[0].Start)

			change(t, s, x)
			_, resv = s.Backfill(at(6))
			require.Len(t, resv, 1)
			require.Equal(t, at(90), resv[0].Start, "n0 is not free at minute 60 any more: %v", resv[0].Nodes)
			require.NotContains(t, resv[0].Nodes, "n0")

			// the jobs end by their limits (x by its new one, at 100): p
			// starts at 90 on the nodes its reservation moved to
			for _, id := range sixty {
				if id != x || name == "drained" {
					require.NoError(t, s.Finish(id, Outcome{}, at(60)))
				}
			}
			started, _ := s.Backfill(at(60))
			require.Empty(t, started, "n0 is drained or busy, n4 busy: p cannot start at 60")
			require.NoError(t, s.Finish(last, Outcome{}, at(90)))
			started, _ = s.Backfill(at(90))
			require.Len(t, started, 1)
			require.Equal(t, p, started[0].Job)
			require.Equal(t, "n[1-4]", started[0].Nodes)
		})
	}
}

// After every pass, each standing reservation is one the job could start
// on: none of its nodes is unusable or held past the reservation's start
// by a running job's time limit. Random replays on a small cluster, with
// Schedule passes starting jobs ahead of reservations, jobs ending early,
// nodes drained and resumed and running jobs' limits grown; the seed is
// logged.
func TestStandingReservationsStayRealizable(t *testing.T) {
	iters, jobs := twinReplaySizes([2]int{30, 120}, [2]int{8, 60}, [2]int{4, 40})
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	for it := range iters {
		r := rand.New(rand.NewPCG(seed, uint64(it)))
		n := 4 + r.IntN(12)
		s := New(cluster(t, fmt.Sprintf("NodeName=n[0-%d] CPUs=2\nPartitionName=batch Nodes=ALL Default=YES\n", n-1)))
		realizableReplay(t, s, r, n, jobs, fmt.Sprintf("seed %d iteration %d (%d nodes)", seed, it, n))
	}
}

// realizableReplay submits jobs jobs at random times, ends running ones at
// random within their limits, now and then drains or resumes a node or
// grows a running job's limit, and checks the reservations after each pass.
func realizableReplay(t *testing.T, s *Scheduler, r *rand.Rand, n, jobs int, msg string) {
	now := t0
	for submitted := 0; submitted < jobs || len(s.active) > 0; {
		now = now.Add(time.Duration(1+r.IntN(600)) * time.Second)
		switch x := r.IntN(10); {
		case x < 4 && submitted < jobs:
			submit(t, s, nodes(1+r.IntN(max(n/2, 1)), time.Duration(5+r.IntN(120))*time.Minute), now)
			submitted++
		case x < 8 || submitted == jobs:
			if id, ok := anyRunning(s, r); ok {
				require.NoError(t, s.Finish(id, Outcome{Kind: Completed}, now))
			}
		case x == 8:
			state := selectnodes.NodeDrain
			if r.IntN(2) == 0 {
				state = selectnodes.NodeUp
			}
			require.NoError(t, s.SetNodeState(fmt.Sprintf("n%d", r.IntN(n)), state, now))
		default:
			if id, ok := anyRunning(s, r); ok {
				require.NoError(t, s.Update(id, Update{TimeLimit: time.Duration(150+r.IntN(120)) * time.Minute}, now))
			}
		}
		s.Schedule(now)
		_, resv := s.Backfill(now)
		requireRealizable(t, s, resv, now, fmt.Sprintf("%s at %v", msg, now.Sub(t0)))
		if now.Sub(t0) > 1000*time.Hour {
			t.Fatalf("%s: the replay does not drain", msg)
		}
	}
}

// requireRealizable fails when a reservation starting after now holds an
// unusable node or one a running job holds past its start.
func requireRealizable(t *testing.T, s *Scheduler, resv []Reservation, now time.Time, msg string) {
	t.Helper()
	unusable := s.c.UnusableInto(nil)
	for _, rv := range resv {
		if !rv.Start.After(now) {
			continue
		}
		for _, name := range rv.Nodes {
			i, ok := s.c.NodeIndex(name)
			require.True(t, ok, msg)
			require.False(t, unusable.Test(uint(i)), "%s: job %d reserved on %s, which cannot be used", msg, rv.Job, name)
			for id := range s.active {
				p, _, end, _ := s.c.Allocation(selectnodes.JobID(id))
				for _, a := range p.Alloc {
					require.False(t, a.Node == i && end.After(rv.Start),
						"%s: job %d reserved on %s from %v, held by job %d until %v", msg, rv.Job, name, rv.Start.Sub(t0), id, end.Sub(t0))
				}
			}
		}
	}
}

// anyRunning draws a running job from r (a map's order would make the
// replay differ from run to run under one seed).
func anyRunning(s *Scheduler, r *rand.Rand) (JobID, bool) {
	if len(s.active) == 0 {
		return 0, false
	}
	ids := slices.Sorted(maps.Keys(s.active))
	return ids[r.IntN(len(ids))], true
}
