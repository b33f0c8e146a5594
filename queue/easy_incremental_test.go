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

// easyTwins are two schedulers fed the same calls: whole runs every pass
// with BackfillIDs, incr with BackfillSubmittedIDs.
type easyTwins struct {
	t           *testing.T
	whole, incr *Scheduler
	ew, ei      *EASY
	starts      int
	parts       []string // partitions the replay's jobs name at random ("" for the default)
	nodeStates  bool     // the replay drains, downs and resumes nodes now and then
}

func newEASYTwins(t *testing.T, conf string, opts ...Option) *easyTwins {
	tw := &easyTwins{t: t, whole: New(cluster(t, conf), opts...), incr: New(cluster(t, conf), opts...)}
	tw.ew, tw.ei = NewEASY(tw.whole), NewEASY(tw.incr)
	return tw
}

// both makes the same call on each scheduler; their errors must agree.
func (tw *easyTwins) both(what string, f func(s *Scheduler) error) {
	e1, e2 := f(tw.whole), f(tw.incr)
	require.Equal(tw.t, e1 == nil, e2 == nil, "%s: %v / %v", what, e1, e2)
}

// pass runs a pass on each at now, compares the started jobs and their
// nodes, and returns them.
func (tw *easyTwins) pass(now time.Time, where string) []JobID {
	want := tw.ew.BackfillIDs(now, nil)
	got := tw.ei.BackfillSubmittedIDs(now, nil)
	require.Equal(tw.t, want, got, "%s: started jobs", where)
	for _, id := range want {
		p1, _, _, _ := tw.whole.Cluster().Allocation(id)
		p2, _, _, _ := tw.incr.Cluster().Allocation(id)
		require.Equal(tw.t, p1.Names, p2.Names, "%s: job %d's nodes", where, id)
	}
	tw.starts += len(want)
	return want
}

// randomSpec is a plain request, now and then with a priority of its own
// (ahead of the queue), a begin time or a time limit that sorts it first
// under SJF.
// randomEASYTwins are twins on a random plain configuration under FCFS or
// (a third of the time) SJF, with a random backfill depth; conf is the
// configuration, for failure messages.
func randomEASYTwins(t *testing.T, r *rand.Rand) (*easyTwins, string) {
	conf := plainConf(r)
	var policy Policy = FCFS{}
	if r.IntN(3) == 0 {
		policy = SJF{}
	}
	return newEASYTwins(t, conf, WithPolicy(policy), WithBackfillDepth(r.IntN(3)*5)), conf
}

// replay drives the twins through steps events of a random plain workload:
// the jobs due to end finish, fewer than maxSubmits jobs are submitted, a
// pass runs (compared between the twins), and time moves to the next end
// or a few minutes on. where names the run in failures.
func (tw *easyTwins) replay(r *rand.Rand, steps, maxSubmits int, where string) {
	n, cpn := tw.whole.Cluster().NodeCount(), tw.whole.Cluster().MostNodeCPUs()
	ends := map[time.Duration][]JobID{}
	runs := map[JobID]time.Duration{}
	now := time.Duration(0)
	for step := 0; step < steps; step++ {
		for _, id := range ends[now] {
			tw.both("finish", func(s *Scheduler) error { return s.Finish(id, Outcome{Kind: Completed}, t0.Add(now)) })
		}
		delete(ends, now)
		if tw.nodeStates && r.IntN(6) == 0 {
			tw.randomNodeState(r, n, t0.Add(now))
		}
		for range r.IntN(maxSubmits) {
			spec := randomSpec(r, n, cpn, t0.Add(now))
			if len(tw.parts) > 0 {
				spec.Request.Partition = tw.parts[r.IntN(len(tw.parts))]
			}
			var id JobID
			tw.both("submit", func(s *Scheduler) (err error) { id, err = s.Submit(spec, t0.Add(now)); return err })
			runs[id] = min(spec.TimeLimit, time.Duration(1+r.IntN(90))*time.Minute)
		}
		for _, id := range tw.pass(t0.Add(now), fmt.Sprintf("%s step %d", where, step)) {
			ends[now+runs[id]] = append(ends[now+runs[id]], id)
		}
		// the next event: an end, or a submission a few minutes on
		next := now + time.Duration(1+r.IntN(4))*time.Minute
		for at := range ends {
			next = min(next, at)
		}
		now = next
	}
}

// randomNodeState drains, downs or resumes a random node on both (a down
// node's jobs end or are requeued, as SetNodeState makes them).
func (tw *easyTwins) randomNodeState(r *rand.Rand, n int, now time.Time) {
	name := tw.whole.Cluster().Node(r.IntN(n)).Name
	st := []selectnodes.NodeState{selectnodes.NodeUp, selectnodes.NodeUp, selectnodes.NodeDrain, selectnodes.NodeDown}[r.IntN(4)]
	tw.both("node state", func(s *Scheduler) error { return s.SetNodeState(name, st, now) })
}

func randomSpec(r *rand.Rand, nodes, cpn int, now time.Time) Spec {
	limit := time.Duration(1+r.IntN(12)) * 10 * time.Minute
	req := selectnodes.Request{CPUs: 1 + r.IntN(max(1, nodes*cpn/2))}
	if r.IntN(3) == 0 {
		req = selectnodes.Request{MinNodes: 1 + r.IntN(max(1, nodes/2))}
	}
	spec := Spec{Name: "j", User: "u", Request: req, TimeLimit: limit}
	switch r.IntN(12) {
	case 0:
		spec.Priority = int64(1 + r.IntN(1000))
	case 1:
		spec.Begin = now.Add(time.Duration(r.IntN(30)) * time.Minute)
	case 2:
		spec.TimeLimit = time.Minute
	}
	return spec
}

// An incremental pass starts what a whole pass starts, on the same nodes,
// over random plain workloads: FCFS and SJF, jobs submitted with a priority
// of their own or a begin time, several submissions between passes.
func TestEASYIncrementalDecidesAsWholePasses(t *testing.T) {
	seed := testseed.Draw(t)
	r := rand.New(rand.NewPCG(seed, 17))
	rounds, steps := 60, 300
	if testing.Short() {
		rounds, steps = 6, 150
	}
	resumed, starts := 0, 0
	for k := range rounds {
		tw, conf := randomEASYTwins(t, r)
		tw.replay(r, steps, 3, fmt.Sprintf("seed %d round %d (%q)", seed, k, conf))
		resumed, starts = resumed+tw.ei.resumed, starts+tw.starts
		require.NoError(t, tw.incr.Cluster().CheckInvariants())
	}
	require.Positive(t, resumed, "no pass went on from the last one")
	t.Logf("%d passes went on from the last one; %d starts", resumed, starts)
}

// After any call other than Submit an incremental pass is a whole one:
// random interleavings of every kind of call, a pass after each.
func TestEASYIncrementalAfterAnyCall(t *testing.T) {
	seed := testseed.Draw(t)
	r := rand.New(rand.NewPCG(seed, 19))
	rounds := 30
	if testing.Short() {
		rounds = 4
	}
	resumed := 0
	for k := range rounds {
		conf := plainConf(r)
		tw := newEASYTwins(t, conf)
		c := tw.whole.Cluster()
		n, cpn := c.NodeCount(), c.MostNodeCPUs()
		now := t0
		for step := 0; step < 200; step++ {
			now = now.Add(time.Duration(r.IntN(3)) * time.Minute)
			tw.randomCall(r, n, cpn, now)
			tw.pass(now, fmt.Sprintf("seed %d round %d (%q) step %d", seed, k, conf, step))
		}
		require.NoError(t, tw.incr.Cluster().CheckInvariants())
		resumed += tw.ei.resumed
	}
	require.Positive(t, resumed, "no pass went on from the last one")
}

// randomCall makes one random call on both schedulers, on a job picked
// from the whole one's.
func (tw *easyTwins) randomCall(r *rand.Rand, n, cpn int, now time.Time) {
	jobs := tw.whole.Jobs()
	pick := func(ok func(State) bool) (JobID, bool) {
		var ids []JobID
		for _, j := range jobs {
			if ok(j.State) {
				ids = append(ids, j.ID)
			}
		}
		if len(ids) == 0 {
			return 0, false
		}
		return ids[r.IntN(len(ids))], true
	}
	pending := func(st State) bool { return st == Pending }
	running := func(st State) bool { return st == Running }
	call := func(what string, ok func(State) bool, f func(s *Scheduler, id JobID) error) {
		if id, found := pick(ok); found {
			tw.both(what, func(s *Scheduler) error { return f(s, id) })
		}
	}
	switch r.IntN(15) {
	case 0, 1, 2, 3, 4:
		spec := randomSpec(r, n, cpn, now)
		tw.both("submit", func(s *Scheduler) error { _, err := s.Submit(spec, now); return err })
	case 5:
		call("finish", running, func(s *Scheduler, id JobID) error { return s.Finish(id, Outcome{Kind: Completed}, now) })
	case 6:
		call("cancel", func(st State) bool { return !st.Terminal() }, func(s *Scheduler, id JobID) error { return s.Cancel(id, now) })
	case 7:
		call("hold", pending, func(s *Scheduler, id JobID) error { return s.Hold(id, now) })
	case 8:
		call("release", pending, func(s *Scheduler, id JobID) error { return s.Release(id, now) })
	case 9:
		prio := int64(r.IntN(100))
		call("update", pending, func(s *Scheduler, id JobID) error { return s.Update(id, Update{Priority: prio}, now) })
	case 10:
		call("requeue", running, func(s *Scheduler, id JobID) error { return s.Requeue(id, now) })
	case 11:
		call("suspend", running, func(s *Scheduler, id JobID) error { return s.Suspend(id, now) })
	case 12:
		tw.both("tick", func(s *Scheduler) error { s.Tick(now); return nil })
	case 13:
		tw.both("schedule", func(s *Scheduler) error { s.Schedule(now); return nil })
	case 14:
		name, st := tw.whole.Cluster().Node(r.IntN(n)).Name, []selectnodes.NodeState{selectnodes.NodeUp, selectnodes.NodeDrain}[r.IntN(2)]
		tw.both("node state", func(s *Scheduler) error { return s.SetNodeState(name, st, now) })
	}
}
