package queue_test

import (
	"fmt"
	"time"

	"github.com/hpcsched/hpcsched/queue"
	"github.com/hpcsched/hpcsched/selectnodes"
)

// A replay that keeps no history: finished jobs are forgotten as they
// end, and a dependency on one still resolves as on the finished job.
func ExampleWithForgetFinished() {
	s := queue.New(eightNodes(), queue.WithForgetFinished())
	now := time.Date(2026, 11, 23, 9, 0, 0, 0, time.UTC)
	spec := queue.Spec{Request: selectnodes.Request{MinNodes: 2}, TimeLimit: time.Hour}
	first, _ := s.Submit(spec, now)
	s.Schedule(now)
	_ = s.Finish(first, queue.Outcome{}, now.Add(10*time.Minute))
	_, kept := s.Job(first)
	fmt.Println("jobs kept:", len(s.Jobs()), kept)

	spec.Dependency = fmt.Sprintf("afterok:%d", first)
	next, _ := s.Submit(spec, now.Add(11*time.Minute))
	s.Schedule(now.Add(11 * time.Minute))
	j, _ := s.Job(next)
	fmt.Println("job", next, j.State)
	// Output:
	// jobs kept: 0 false
	// job 2 RUNNING
}

// A replay that reads each start's placement only as it starts lets the
// scheduler hand a forgotten job's placement back to the cluster, so
// that later starts reuse its memory. What the scheduler hands out (Job,
// events) are copies and stay as they were.
func ExampleWithRecycledPlacements() {
	c, err := selectnodes.New(
		[]selectnodes.Node{{Name: "n1", CPUs: 4}, {Name: "n2", CPUs: 4}},
		[]selectnodes.Partition{{Name: "batch", Nodes: []string{"n1", "n2"}, Default: true}})
	if err != nil {
		panic(err)
	}
	s := queue.New(c, queue.WithForgetFinished(), queue.WithRecycledPlacements())
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var kept queue.Job
	var last *selectnodes.Placement // compared, never read after its job
	for k := range 3 {
		now := t0.Add(time.Duration(k) * time.Hour)
		id, err := s.Submit(queue.Spec{User: "u", Request: selectnodes.Request{MinNodes: 1}, TimeLimit: time.Hour}, now)
		if err != nil {
			panic(err)
		}
		s.Schedule(now)
		p, _, _, _ := c.Allocation(id) // the cluster's, read while the job runs
		j, _ := s.Job(id)              // a copy: the caller's
		if k == 0 {
			kept = j
		}
		fmt.Println("job", id, "on", p.Hostlist(), "in the last job's placement:", p == last)
		last = p
		if err := s.Finish(id, queue.Outcome{}, now.Add(30*time.Minute)); err != nil {
			panic(err)
		}
	}
	fmt.Println("job 1's copy still reads", kept.Nodes())
	// Output:
	// job 1 on n1 in the last job's placement: false
	// job 2 on n1 in the last job's placement: true
	// job 3 on n1 in the last job's placement: true
	// job 1's copy still reads n1
}
