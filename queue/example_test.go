package queue_test

import (
	"fmt"
	"strings"
	"time"

	"github.com/hpcsched/hpcsched/queue"
	"github.com/hpcsched/hpcsched/selectnodes"
	"github.com/hpcsched/hpcsched/slurmconf"
)

func Example() {
	cfg, _ := slurmconf.Parse(strings.NewReader("NodeName=n[1-8] CPUs=4\nPartitionName=batch Nodes=ALL Default=YES\n"))
	cluster, _ := selectnodes.FromConfig(cfg)
	s := queue.New(cluster)
	s.Subscribe(func(e queue.Event) {
		fmt.Println(strings.TrimSpace(fmt.Sprint(e.Seq, " ", e.Kind, " ", e.Job, " ", e.State, " ", e.Detail)))
	})

	now := time.Date(2026, 11, 22, 9, 0, 0, 0, time.UTC)
	wide, _ := s.Submit(queue.Spec{Name: "wide", Request: selectnodes.Request{MinNodes: 6}, TimeLimit: time.Hour}, now)
	next, _ := s.Submit(queue.Spec{Name: "next", Request: selectnodes.Request{MinNodes: 4}, TimeLimit: time.Hour}, now)
	s.Submit(queue.Spec{Name: "short", Request: selectnodes.Request{MinNodes: 2}, TimeLimit: 30 * time.Minute}, now)

	s.Schedule(now)            // wide starts; next must wait for it
	_, resv := s.Backfill(now) // short fits beside it without delaying next
	fmt.Println("reserved:", resv[0].Job, resv[0].Start.Format("15:04"))
	s.Finish(wide, queue.Outcome{Kind: queue.Completed}, now.Add(time.Hour))
	s.Schedule(now.Add(time.Hour))
	j, _ := s.Job(next)
	fmt.Println(j.State, j.Nodes())
	// Output:
	// 1 submit 1 PENDING
	// 2 submit 2 PENDING
	// 3 submit 3 PENDING
	// 4 start 1 RUNNING n[1-6]
	// 5 start 3 RUNNING n[7-8]
	// reserved: 2 10:00
	// 6 finish 1 COMPLETE exit code 0
	// 7 start 2 RUNNING n[1-4]
	// RUNNING n[1-4]
}

func ExampleParseDependency() {
	for _, spec := range []string{"afterok:12:13,singleton", "after:7+30", "afterok:1,afterany:2?afterok:3"} {
		_, err := queue.ParseDependency(spec)
		fmt.Println(spec, "->", err)
	}
	// Output:
	// afterok:12:13,singleton -> <nil>
	// after:7+30 -> <nil>
	// afterok:1,afterany:2?afterok:3 -> dependency "afterok:1,afterany:2?afterok:3": offset 20: ',' (all) and '?' (any) cannot be mixed
}
