package queue

import (
	"fmt"
	"testing"
	"time"

	"github.com/hpcsched/hpcsched/selectnodes"
	"github.com/stretchr/testify/require"
)

// A Schedule pass whose first selection the last pass's busy failure
// answers decides as one that runs every selection: twin schedulers, one
// without the memo, take the same random calls of every kind that can
// change an answer (submissions, starts, ends, cancels, request updates,
// node states) and must start the same jobs and read alike after each.
func TestBusyMemoChangesNoDecision(t *testing.T) {
	rng := seeded(t, 13)
	const conf = "NodeName=n[0-7] CPUs=4\nPartitionName=batch Nodes=ALL Default=YES\n"
	memo, plain := New(cluster(t, conf)), New(cluster(t, conf))
	plain.noBusyMemo = true
	both := func(f func(s *Scheduler) error) {
		errA, errB := f(memo), f(plain)
		require.Equal(t, errB == nil, errA == nil, "%v / %v", errA, errB)
	}
	var ids []JobID
	for step := range 1000 {
		now := at(step)
		pick := func() JobID { return ids[rng.IntN(len(ids))] }
		switch op := rng.IntN(40); {
		case op < 12:
			spec := nodes(1+rng.IntN(8), time.Duration(1+rng.IntN(60))*time.Minute)
			a, errA := memo.Submit(spec, now)
			_, errB := plain.Submit(spec, now)
			require.NoError(t, errA)
			require.NoError(t, errB)
			ids = append(ids, a)
		case op < 26:
			a, b := memo.ScheduleIDs(now, nil), plain.ScheduleIDs(now, nil)
			require.Equal(t, b, a, "step %d", step)
		case op < 34 && len(ids) > 0:
			id := pick()
			both(func(s *Scheduler) error { return s.Finish(id, Outcome{}, now) })
		case op < 36 && len(ids) > 0:
			id := pick()
			both(func(s *Scheduler) error { return s.Cancel(id, now) })
		case op < 38 && len(ids) > 0:
			id, req := pick(), selectnodes.Request{MinNodes: 1 + rng.IntN(8)}
			both(func(s *Scheduler) error { return s.Update(id, Update{Request: &req}, now) })
		case op < 40:
			// mostly back up: a cluster kept down fails jobs for want of
			// nodes, not busy
			states := []selectnodes.NodeState{selectnodes.NodeUp, selectnodes.NodeUp, selectnodes.NodeDown, selectnodes.NodeDrain}
			name, st := fmt.Sprintf("n%d", rng.IntN(8)), states[rng.IntN(len(states))]
			both(func(s *Scheduler) error { return s.SetNodeState(name, st, now) })
		}
		require.Equal(t, plain.Jobs(), memo.Jobs(), "step %d", step)
	}
	require.Zero(t, plain.lastBusy.hits)
	require.Positive(t, memo.lastBusy.hits, "the memo never answered: the test saw nothing")
}
