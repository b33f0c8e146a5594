package queue

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/hpcsched/hpcsched/internal/testseed"
	"github.com/hpcsched/hpcsched/selectnodes"
	"github.com/stretchr/testify/require"
)

// A kept reservation's request is compared with its certificate's key
// only after an Update was applied: twins, one planning every job in full
// at every pass, take the same random submissions, passes, ends and
// updates of pending jobs' requests (the time limit left as it was, so
// that only the request tells the job changed), and decide alike.
func TestKeptRequestsAreComparedAfterUpdates(t *testing.T) {
	iters, steps := twinIterations(6, 3, 2), 240
	base := testseed.Draw(t)
	keyed := 0
	for iter := range iters {
		seed := base + uint64(iter)
		n := []int{8, 24, 40}[iter%3]
		conf := fmt.Sprintf("NodeName=n[0-%d] CPUs=%d\nPartitionName=batch Nodes=ALL Default=YES\n", n-1, []int{1, 4}[iter%2])
		fast := New(cluster(t, conf))
		full := New(cluster(t, conf), fullPlans)
		rf, rb := rand.New(rand.NewPCG(seed, 7)), rand.New(rand.NewPCG(seed, 7))
		now := t0
		for step := range steps {
			now = now.Add(time.Duration(rf.IntN(300)) * time.Second)
			rb.IntN(300)
			keyedEvent(t, fast, rf, n, now)
			keyedEvent(t, full, rb, n, now)
			requireSameDecisions(t, fast, full, fmt.Sprintf("seed %d step %d", seed, step))
		}
		if fast.kept != nil {
			keyed += fast.kept.skip.keyed
		}
	}
	t.Logf("%d requests compared after an update", keyed)
	require.Positive(t, keyed, "no request was compared after an update")
}

// keyedEvent makes one random call on s: a submission, a pass, an end,
// or an update of a pending job's request that keeps its time limit.
func keyedEvent(t *testing.T, s *Scheduler, r *rand.Rand, n int, now time.Time) {
	t.Helper()
	pick := func(state State) (JobID, bool) {
		var ids []JobID
		for _, j := range s.Jobs() {
			if j.State == state {
				ids = append(ids, j.ID)
			}
		}
		if len(ids) == 0 {
			return 0, false
		}
		return ids[r.IntN(len(ids))], true
	}
	switch r.IntN(6) {
	case 0, 1:
		submit(t, s, nodes(1+r.IntN(max(n/3, 1)), time.Duration(10+r.IntN(300))*time.Minute), now)
	case 2, 3:
		s.Schedule(now)
		_, _ = s.Backfill(now)
	case 4:
		if id, ok := pick(Running); ok {
			require.NoError(t, s.Finish(id, Outcome{Kind: Completed}, now))
		}
	case 5:
		if id, ok := pick(Pending); ok {
			j, _ := s.Job(id)
			req := selectnodes.Request{MinNodes: 1 + r.IntN(max(n/3, 1)), TimeLimit: j.TimeLimit}
			if r.IntN(3) == 0 {
				req = selectnodes.Request{CPUs: 1 + r.IntN(n), TimeLimit: j.TimeLimit}
			}
			require.NoError(t, s.Update(id, Update{Request: &req}, now))
		}
	}
}

// Without updates no kept reservation's request is compared again: a
// replay's passes keep reservations, and compare none.
func TestKeptRequestsAreNotComparedWithoutUpdates(t *testing.T) {
	seed := testseed.Draw(t)
	s := New(cluster(t, "NodeName=n[0-39] CPUs=1\nPartitionName=batch Nodes=ALL Default=YES\n"))
	replayTwins(t, s, nil, rand.New(rand.NewPCG(seed, 9)), 40, 150, fmt.Sprintf("seed %d", seed))
	require.NotNil(t, s.kept)
	require.Positive(t, s.kept.skip.kept, "no reservation was kept")
	require.Zero(t, s.kept.skip.keyed, "requests compared with no update applied")
}
