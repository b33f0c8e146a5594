package queue_test

import (
	"errors"
	"fmt"
	"time"

	"github.com/hpcsched/hpcsched/queue"
	"github.com/hpcsched/hpcsched/selectnodes"
)

// A replay whose jobs name no other job keeps of an ended job only its
// ID, so that no later job takes it; a dependency on it is refused.
func ExampleWithoutTombstones() {
	s := queue.New(eightNodes(), queue.WithForgetFinished(), queue.WithoutTombstones())
	now := time.Date(2026, 11, 23, 9, 0, 0, 0, time.UTC)
	spec := queue.Spec{Request: selectnodes.Request{MinNodes: 2}, TimeLimit: time.Hour}
	for range 1000 {
		id, _ := s.Submit(spec, now)
		s.Schedule(now)
		now = now.Add(time.Minute)
		_ = s.Finish(id, queue.Outcome{}, now)
	}
	_, err := s.Submit(queue.Spec{ID: 500, Request: spec.Request}, now)
	fmt.Println(errors.Is(err, queue.ErrDuplicateID))
	spec.Dependency = "afterok:500"
	_, err = s.Submit(spec, now)
	fmt.Println(errors.Is(err, queue.ErrInvalidSpec))
	// Output:
	// true
	// true
}

// A replay that reads only the jobs a conservative backfill pass starts
// need not copy the reservations out; Reservations gives them on demand.
func ExampleScheduler_BackfillStarts() {
	s := queue.New(eightNodes())
	now := time.Date(2026, 11, 23, 9, 0, 0, 0, time.UTC)
	_, _ = s.Submit(queue.Spec{Request: selectnodes.Request{MinNodes: 6}, TimeLimit: time.Hour}, now)
	_, _ = s.Submit(queue.Spec{Request: selectnodes.Request{MinNodes: 4}, TimeLimit: time.Hour}, now)
	_, _ = s.Submit(queue.Spec{Request: selectnodes.Request{MinNodes: 2}, TimeLimit: 30 * time.Minute}, now)
	for _, st := range s.BackfillStarts(now) {
		fmt.Println("started", st.Job, "on", st.Nodes)
	}
	for _, r := range s.Reservations() {
		fmt.Println("job", r.Job, "reserved from", r.Start.Sub(now))
	}
	// Output:
	// started 1 on n[1-6]
	// started 3 on n[7-8]
	// job 2 reserved from 1h0m0s
}
