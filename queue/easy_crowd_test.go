package queue

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// Refusing a job by the counts before a counted plan's nodes are chosen
// decides as choosing them first would: twin schedulers, one that always
// chooses first, start the same jobs on the same nodes over random plain
// workloads (FCFS and SJF, shared and whole nodes, depth limits, passes
// that go on from the last one).
func TestEASYCrowdedOutDecidesAsChosenNodes(t *testing.T) {
	seed := rand.Uint64()
	t.Logf("seed %d", seed)
	r := rand.New(rand.NewPCG(seed, 23))
	rounds, steps := 40, 300
	if testing.Short() {
		rounds, steps = 8, 150
	}
	crowded, starts := 0, 0
	for k := range rounds {
		conf := plainConf(r)
		var policy Policy = FCFS{}
		if r.IntN(3) == 0 {
			policy = SJF{}
		}
		tw := newEASYTwins(t, conf, WithPolicy(policy), WithBackfillDepth(r.IntN(3)*5))
		tw.ew.noCrowd = true
		n, cpn := tw.whole.Cluster().NodeCount(), tw.whole.Cluster().MostNodeCPUs()
		ends := map[time.Duration][]JobID{}
		runs := map[JobID]time.Duration{}
		now := time.Duration(0)
		for step := 0; step < steps; step++ {
			for _, id := range ends[now] {
				tw.both("finish", func(s *Scheduler) error { return s.Finish(id, Outcome{Kind: Completed}, t0.Add(now)) })
			}
			delete(ends, now)
			for range r.IntN(4) {
				spec := randomSpec(r, n, cpn, t0.Add(now))
				var id JobID
				tw.both("submit", func(s *Scheduler) (err error) { id, err = s.Submit(spec, t0.Add(now)); return err })
				runs[id] = min(spec.TimeLimit, time.Duration(1+r.IntN(90))*time.Minute)
			}
			for _, id := range tw.pass(t0.Add(now), fmt.Sprintf("seed %d round %d (%q) step %d", seed, k, conf, step)) {
				ends[now+runs[id]] = append(ends[now+runs[id]], id)
			}
			next := now + time.Duration(1+r.IntN(4))*time.Minute
			for at := range ends {
				next = min(next, at)
			}
			now = next
		}
		require.Zero(t, tw.ew.crowded)
		crowded, starts = crowded+tw.ei.crowded, starts+tw.starts
	}
	require.Positive(t, crowded, "no job was refused before the head's nodes were chosen")
	t.Logf("%d jobs refused before the nodes were chosen; %d starts", crowded, starts)
}
