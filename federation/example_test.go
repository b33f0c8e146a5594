package federation_test

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/hpcsched/hpcsched/federation"
	"github.com/hpcsched/hpcsched/queue"
	"github.com/hpcsched/hpcsched/selectnodes"
	"github.com/hpcsched/hpcsched/slurmconf"
)

// cluster is a scheduler on nodes of 4 CPUs in partition batch.
func cluster(nodes string) *queue.Scheduler {
	cfg, _ := slurmconf.Parse(strings.NewReader("NodeName=" + nodes + " CPUs=4\nPartitionName=batch Nodes=ALL Default=YES\n"))
	c, _ := selectnodes.FromConfig(cfg)
	return queue.New(c, queue.WithFirstJobID(1000))
}

// grid is a grid of two clusters of two nodes, east and west.
func grid(ctx context.Context) (*federation.Grid, *queue.Scheduler, *queue.Scheduler) {
	east, west := cluster("e[1-2]"), cluster("w[1-2]")
	g := federation.New(federation.NewMemoryIDs(1))
	g.Add(ctx, federation.NewLocal("east", east))
	g.Add(ctx, federation.NewLocal("west", west))
	return g, east, west
}

// A job goes to the cluster that would start it soonest, and moves when
// another frees up sooner.
func Example() {
	ctx := context.Background()
	now := time.Date(2026, 11, 23, 9, 0, 0, 0, time.UTC)
	east, west := cluster("e[1-4]"), cluster("w[1-4]")
	g := federation.New(federation.NewMemoryIDs(1), federation.WithMoveThreshold(10*time.Minute))
	g.Add(ctx, federation.NewLocal("east", east))
	g.Add(ctx, federation.NewLocal("west", west))

	// both clusters are full: east for an hour, west for three
	east.Submit(queue.Spec{Name: "big", Request: selectnodes.Request{MinNodes: 4}, TimeLimit: time.Hour}, now)
	long, _ := west.Submit(queue.Spec{Name: "big", Request: selectnodes.Request{MinNodes: 4}, TimeLimit: 3 * time.Hour}, now)
	east.Schedule(now)
	west.Schedule(now)

	id, _ := g.Submit(ctx, queue.Spec{Name: "sim", User: "ana", Request: selectnodes.Request{MinNodes: 2}, TimeLimit: time.Hour}, nil, now)
	st, _ := g.Status(ctx, id, now)
	fmt.Println("job", id, "on", st.Member, st.State)

	// west's job ends early: the next pass moves the job there
	west.Finish(long, queue.Outcome{}, now.Add(5*time.Minute))
	g.Reevaluate(ctx, now.Add(5*time.Minute))
	west.Schedule(now.Add(5 * time.Minute))
	st, _ = g.Status(ctx, id, now.Add(5*time.Minute))
	fmt.Println("job", id, "on", st.Member, st.State, "moves", st.Moves)
	// Output:
	// job 1 on east PENDING
	// job 1 on west RUNNING moves 1
}

// A dependency on a job of another cluster: the dependent job waits at
// the grid until the grid sees its parent complete.
func ExampleGrid_Submit_dependency() {
	ctx := context.Background()
	now := time.Date(2026, 11, 23, 9, 0, 0, 0, time.UTC)
	g, east, _ := grid(ctx)

	spec := queue.Spec{Name: "step", Request: selectnodes.Request{MinNodes: 1}, TimeLimit: time.Hour}
	first, _ := g.Submit(ctx, spec, []string{"east"}, now)
	spec.Dependency = fmt.Sprintf("afterok:%d", first)
	second, _ := g.Submit(ctx, spec, []string{"west"}, now)
	st, _ := g.Status(ctx, second, now)
	fmt.Printf("job %d: member %q, reason %s\n", second, st.Member, st.Reason)

	east.Schedule(now)
	east.Finish(first, queue.Outcome{}, now.Add(20*time.Minute))
	g.Reevaluate(ctx, now.Add(20*time.Minute))
	st, _ = g.Status(ctx, second, now.Add(20*time.Minute))
	fmt.Printf("job %d: member %q, %s\n", second, st.Member, st.State)
	// Output:
	// job 2: member "", reason Dependency
	// job 2: member "west", PENDING
}

// Status answers for any job by its ID alone, whichever cluster has it,
// even one submitted to a member directly.
func ExampleGrid_Status() {
	ctx := context.Background()
	now := time.Date(2026, 11, 23, 9, 0, 0, 0, time.UTC)
	g, _, west := grid(ctx)
	local, _ := west.Submit(queue.Spec{Name: "local", Request: selectnodes.Request{MinNodes: 1}}, now)
	st, _ := g.Status(ctx, local, now)
	fmt.Println(st.ID, st.Member, st.State, "local:", st.Local)
	_, err := g.Status(ctx, 424242, now)
	fmt.Println(err)
	// Output:
	// 1000 west PENDING local: true
	// federation: unknown job: 424242
}
