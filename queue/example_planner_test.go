package queue_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/hpcsched/hpcsched/queue"
	"github.com/hpcsched/hpcsched/selectnodes"
)

// packer is a planner that decides exact per-node layouts, as an auction's
// winning bids do: it fills nodes' free CPUs in index order, trying each
// layout on its own copy of the snapshot first.
type packer struct{}

func (packer) Plan(_ context.Context, snap *selectnodes.Snapshot, window []queue.Job, _ time.Time) ([]queue.Decision, error) {
	var out []queue.Decision
	for _, j := range window {
		need := j.Request.CPUs
		var layout []selectnodes.NodeUse
		for i := 0; i < snap.NodeCount() && need > 0; i++ {
			if free := snap.FreeCPUs(i); free > 0 {
				take := min(free, need)
				layout = append(layout, selectnodes.NodeUse{Node: i, CPUs: take})
				need -= take
			}
		}
		if need > 0 {
			continue
		}
		p, err := snap.PlaceExact(&j.Request, layout)
		if err != nil {
			continue
		}
		if _, err := snap.Simulate(j.ID, p, time.Time{}, time.Time{}.Add(j.TimeLimit)); err != nil {
			continue
		}
		out = append(out, queue.Decision{Job: j.ID, Layout: layout})
	}
	// one decision the pipeline will refuse: the last job on a GPU that
	// node 0 does not have
	out = append(out, queue.Decision{Job: window[len(window)-1].ID, Layout: []selectnodes.NodeUse{{Node: 0, CPUs: 1,
		GRES: []selectnodes.GRES{{Name: "gpu", Count: 1}}}}})
	return out, nil
}

// A Planner applying exact per-node layouts; a layout the pipeline cannot
// honour is refused and reported, not dropped.
func ExamplePlanner() {
	s := queue.New(consRes(), queue.WithPlanner(packer{}, 10))
	s.Subscribe(func(e queue.Event) {
		if p, ok := e.Payload.(*queue.RefusedPayload); ok {
			var se *selectnodes.Error
			fmt.Println("refused job", e.Job, errors.As(p.Err, &se))
		}
	})
	now := time.Date(2026, 11, 23, 9, 0, 0, 0, time.UTC)
	a, _ := s.Submit(queue.Spec{Request: selectnodes.Request{CPUs: 6}, TimeLimit: time.Hour}, now)
	b, _ := s.Submit(queue.Spec{Request: selectnodes.Request{CPUs: 3}, TimeLimit: time.Hour}, now)
	s.Submit(queue.Spec{Request: selectnodes.Request{CPUs: 8}, TimeLimit: time.Hour}, now) // does not fit beside them
	s.Schedule(now)
	for _, id := range []queue.JobID{a, b} {
		j, _ := s.Job(id)
		fmt.Print(j.ID, " ", j.State, " ", j.Nodes())
		for _, u := range j.Placement.Alloc {
			fmt.Print(" ", u.CPUs)
		}
		fmt.Println()
	}
	// Output:
	// refused job 3 true
	// 1 RUNNING n[1-2] 4 2
	// 2 RUNNING n[2-3] 2 1
}
