package queue

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/hpcsched/hpcsched/selectnodes"
	"github.com/stretchr/testify/require"
)

// A forgotten job's record is reused for a later job: the later job must
// read exactly as it does in a scheduler that forgets nothing. Two
// schedulers take the same random calls, one forgetting every job as it
// ends; after each call every job the forgetting one still holds must
// read alike in both, and some record must have served two jobs.
func TestReusedRecordsReadAsNew(t *testing.T) {
	rng := seeded(t, 7)
	const conf = "NodeName=n[0-7] CPUs=4 Feature=a\nNodeName=m[0-3] CPUs=8 Feature=b\nPartitionName=batch Nodes=ALL Default=YES\n"
	forgets := New(cluster(t, conf), WithForgetFinished())
	keeps := New(cluster(t, conf))
	served := map[*job]JobID{} // the record each job had, to see reuse
	reused := 0
	var ids []JobID
	for step := range 600 {
		now := at(step)
		switch op := rng.IntN(10); {
		case op < 4:
			spec := randomSpareSpec(t, rng, ids)
			a, errA := forgets.Submit(spec, now)
			b, errB := keeps.Submit(spec, now)
			require.Equal(t, errB, errA, "step %d", step)
			if errA != nil {
				continue
			}
			require.Equal(t, b, a)
			ids = append(ids, a)
			if was, ok := served[forgets.jobs[a]]; ok && was != a {
				reused++
			}
			served[forgets.jobs[a]] = a
		case op < 6:
			require.Equal(t, keeps.Schedule(now), forgets.Schedule(now), "step %d", step)
		case op < 9 && len(ids) > 0:
			id := ids[rng.IntN(len(ids))]
			out := Outcome{}
			if rng.IntN(3) == 0 {
				out = Outcome{Kind: Failure, ExitCode: 1 + rng.IntN(9)}
			}
			errA, errB := forgets.Finish(id, out, now), keeps.Finish(id, out, now)
			require.Equal(t, errB == nil, errA == nil, "step %d: finish %d: %v / %v", step, id, errA, errB)
		case len(ids) > 0:
			id := ids[rng.IntN(len(ids))]
			errA, errB := forgets.Cancel(id, now), keeps.Cancel(id, now)
			require.Equal(t, errB == nil, errA == nil, "step %d: cancel %d: %v / %v", step, id, errA, errB)
		}
		for _, j := range forgets.Jobs() {
			k, ok := keeps.Job(j.ID)
			require.True(t, ok)
			require.Equal(t, k, j, "step %d: job %d", step, j.ID)
		}
	}
	require.Positive(t, reused, "no record was reused: the test saw nothing")
}

// randomSpareSpec is a job of a few nodes, with the fields a record keeps
// set at random (a dependency only on a job in ids).
func randomSpareSpec(t *testing.T, rng *rand.Rand, ids []JobID) Spec {
	spec := Spec{
		Name:      fmt.Sprintf("j%d", rng.IntN(5)),
		User:      fmt.Sprintf("u%d", rng.IntN(3)),
		Account:   []string{"", "physics"}[rng.IntN(2)],
		Request:   selectnodes.Request{MinNodes: 1 + rng.IntN(4)},
		TimeLimit: time.Duration(1+rng.IntN(90)) * time.Minute,
		Priority:  int64(rng.IntN(3)) * 100,
		Nice:      int64(rng.IntN(3)),
		Requeue:   rng.IntN(2) == 0,
		Hold:      rng.IntN(8) == 0,
	}
	if rng.IntN(4) == 0 {
		spec.Request.Features = expr(t, []string{"a", "b", "a|b"}[rng.IntN(3)])
	}
	if rng.IntN(4) == 0 {
		spec.Request.CPUs = 1 + rng.IntN(8)
	}
	if len(ids) > 0 && rng.IntN(5) == 0 {
		spec.Dependency = fmt.Sprintf("afterok:%d", ids[rng.IntN(len(ids))])
	}
	return spec
}

// A scheduler made WithRecycledPlacements hands a forgotten job's
// placement back to the cluster, and later starts reuse it: every pass,
// under Schedule, EASY and conservative backfill, must start the same
// jobs on the same nodes as without, and every job read alike.
func TestRecycledPlacementsChangeNoAnswer(t *testing.T) {
	rng := seeded(t, 11)
	const conf = "NodeName=n[0-15] CPUs=4\nPartitionName=batch Nodes=ALL Default=YES\n"
	plain := New(cluster(t, conf), WithForgetFinished())
	recycles := New(cluster(t, conf), WithForgetFinished(), WithRecycledPlacements())
	easyA, easyB := NewEASY(plain), NewEASY(recycles)
	seen := map[*selectnodes.Placement]JobID{} // each start's placement, to see reuse
	reused := 0
	var running []JobID
	for step := range 800 {
		now := at(step)
		switch op := rng.IntN(10); {
		case op < 4:
			spec := Spec{User: "u", Request: selectnodes.Request{MinNodes: 1 + rng.IntN(4)},
				TimeLimit: time.Duration(1+rng.IntN(60)) * time.Minute}
			a, errA := plain.Submit(spec, now)
			b, errB := recycles.Submit(spec, now)
			require.NoError(t, errA)
			require.NoError(t, errB)
			require.Equal(t, a, b)
		case op < 7:
			var startedA, startedB []JobID
			switch rng.IntN(3) {
			case 0:
				startedA, startedB = plain.ScheduleIDs(now, nil), recycles.ScheduleIDs(now, nil)
			case 1:
				startedA, startedB = easyA.BackfillIDs(now, nil), easyB.BackfillIDs(now, nil)
			default:
				startedA, startedB = plain.BackfillIDs(now, nil), recycles.BackfillIDs(now, nil)
			}
			require.Equal(t, startedA, startedB, "step %d", step)
			for _, id := range startedB {
				p, _, _, ok := recycles.c.Allocation(id)
				require.True(t, ok)
				if _, ok := seen[p]; ok {
					reused++
				}
				seen[p] = id
			}
			running = append(running, startedB...)
		case len(running) > 0:
			k := rng.IntN(len(running))
			id := running[k]
			running = append(running[:k], running[k+1:]...)
			require.NoError(t, plain.Finish(id, Outcome{}, now))
			require.NoError(t, recycles.Finish(id, Outcome{}, now))
		}
		require.Equal(t, plain.Jobs(), recycles.Jobs(), "step %d", step)
	}
	require.NoError(t, recycles.c.CheckInvariants())
	require.Positive(t, reused, "no placement was reused: the test saw nothing")
}
