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
