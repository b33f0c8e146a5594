package allocation_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/hpcsched/hpcsched/allocation"
	"github.com/hpcsched/hpcsched/queue"
)

func Example() {
	ctx := context.Background()
	jan := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	ledger := allocation.New(nil, allocation.WithPartitions(map[string]allocation.Partition{
		"standard": {Resource: allocation.CPU, Weights: &allocation.Weights{CPU: 1, MemGiB: 0.5}},
	}))
	p, _ := ledger.CreateProject(ctx, allocation.Project{Name: "it_css", GID: 1002, Account: "it_css"})
	a, _ := ledger.CreateAllocation(ctx, allocation.Allocation{Project: p.ID, Category: "startup",
		Resource: allocation.CPU, Start: jan, End: jan.AddDate(1, 0, 0)})
	ledger.Credit(ctx, a.ID, 3000, "startup grant", jan)

	// One core with half a 128 GiB node bills like 32 cores.
	start := allocation.JobStart{Job: 101, UID: 1001, Account: "it_css", Partition: "standard",
		Usage: allocation.Usage{CPUs: 1, MemoryMB: 64 * 1024}, TimeLimit: time.Hour}
	j, err := ledger.PreDebitJob(ctx, start, jan)
	fmt.Println("pre-debit", j.Amount, err)

	start.Job = 102
	_, err = ledger.PreDebitJob(ctx, start, jan)
	var short *allocation.InsufficientError
	fmt.Println("second job refused:", errors.As(err, &short), short.Balance, "SU left")

	j, _ = ledger.CompleteJob(ctx, 101, 20*time.Minute, allocation.OutcomeCompleted, jan.Add(20*time.Minute))
	b, _ := ledger.Balance(ctx, a.ID)
	fmt.Println("debited", j.Debited, "balance", b.Balance)
	// Output:
	// pre-debit 1920 <nil>
	// second job refused: true 1080 SU left
	// debited 640 balance 2360
}

func ExampleSiteFactors_Factor() {
	ctx := context.Background()
	jan := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	ledger := allocation.New(nil, allocation.WithPartitions(map[string]allocation.Partition{"standard": {Resource: allocation.CPU}}))
	for i, months := range []int{12, 3} {
		p, _ := ledger.CreateProject(ctx, allocation.Project{Name: fmt.Sprint("g", i), Account: fmt.Sprint("g", i)})
		a, _ := ledger.CreateAllocation(ctx, allocation.Allocation{Project: p.ID, Resource: allocation.CPU, Start: jan, End: jan.AddDate(0, months, 0)})
		ledger.Credit(ctx, a.ID, 1000, "", jan)
	}
	now := jan.AddDate(0, 1, 0)
	sf, _ := ledger.SiteFactors(ctx, allocation.PowerRule{NCredit: 0.5, NTemporal: 2}, now)
	// sf.Factor has the signature of queue.Multifactor's site factor.
	for _, account := range []string{"g0", "g1"} {
		fmt.Printf("%s %.3f\n", account, sf.Factor(&queue.Job{Account: account, Partition: "standard"}, now))
	}
	// Output:
	// g0 0.000
	// g1 0.678
}
