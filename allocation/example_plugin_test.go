package allocation_test

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/hpcsched/hpcsched/allocation"
	"github.com/hpcsched/hpcsched/queue"
	"github.com/hpcsched/hpcsched/selectnodes"
	"github.com/hpcsched/hpcsched/slurmconf"
)

// The ledger as the scheduler's submit filter, prolog and epilog: jobs
// start only while their workgroup's allocation covers them, and the site
// factor orders the queue.
func ExampleQueuePlugin() {
	ctx := context.Background()
	jan := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	ledger := allocation.New(nil, allocation.WithPartitions(map[string]allocation.Partition{"standard": {Resource: allocation.CPU}}))
	p, _ := ledger.CreateProject(ctx, allocation.Project{Name: "lab", GID: 1001, Account: "lab"})
	a, _ := ledger.CreateAllocation(ctx, allocation.Allocation{Project: p.ID, Resource: allocation.CPU, Start: jan, End: jan.AddDate(1, 0, 0)})
	ledger.Credit(ctx, a.ID, 500, "startup", jan)

	cfg, _ := slurmconf.Parse(strings.NewReader("NodeName=n[1-4] CPUs=4\nPartitionName=standard Nodes=ALL Default=YES\n"))
	cluster, _ := selectnodes.FromConfig(cfg)
	plugin := &allocation.QueuePlugin{Ledger: ledger, Workgroup: func(user string) (string, bool) { return "lab", true }}
	sf, _ := ledger.SiteFactors(ctx, allocation.PowerRule{NCredit: 1, NTemporal: 1}, jan)
	s := queue.New(cluster, queue.WithPlugins(plugin), queue.WithPolicy(queue.Multifactor{Site: 1000, SiteFactor: sf.Factor}))

	spec := queue.Spec{User: "ada", Request: selectnodes.Request{Partition: "standard", MinNodes: 1}, TimeLimit: time.Hour}
	for range 3 {
		s.Submit(spec, jan) // 4 cores x 60 min = 240 SU each
	}
	_, err := s.Submit(queue.Spec{User: "ada", Request: selectnodes.Request{Partition: "standard"}}, jan)
	fmt.Println(err)
	fmt.Println("started:", len(s.Schedule(jan)))
	for _, j := range s.Jobs() {
		fmt.Println(strings.TrimSpace(fmt.Sprintln(j.ID, j.Account, j.State, j.ReasonDetail)))
	}
	s.Finish(1, queue.Outcome{Kind: queue.Completed}, jan.Add(15*time.Minute))
	b, _ := ledger.Balance(ctx, a.ID)
	fmt.Println("balance:", b.Balance, "pending:", b.Pending)
	// Output:
	// queue: allocation: a time limit is required: allocations are pre-debited cores x time limit
	// started: 2
	// 1 lab RUNNING
	// 2 lab RUNNING
	// 3 lab PENDING allocation: job 3 needs 240 SU but allocation 1 has 20
	// balance: 200 pending: 240
}
