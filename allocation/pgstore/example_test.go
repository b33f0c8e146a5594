package pgstore_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"time"

	"github.com/hpcsched/hpcsched/allocation"
	"github.com/hpcsched/hpcsched/allocation/pgstore"
)

// Several schedulers or API servers share one ledger by opening the same
// database; Open applies the migrations once.
func ExampleOpen() {
	ctx := context.Background()
	store, err := pgstore.Open(ctx, os.Getenv("HPCSCHED_ALLOC_DSN")) // e.g. postgres://hadm@db/hadm
	if err != nil {
		log.Fatal(err)
	}
	defer store.Close()
	ledger := allocation.New(store, allocation.WithPartitions(map[string]allocation.Partition{"standard": {Resource: allocation.CPU}}))
	_, err = ledger.PreDebitJob(ctx, allocation.JobStart{Job: 42, UID: 1001, Account: "it_css", Partition: "standard",
		Usage: allocation.Usage{CPUs: 8}, TimeLimit: time.Hour}, time.Now())
	log.Println(err) // nil, *allocation.InsufficientError or allocation.ErrNoAllocation
}

// A server logs which database it uses without the DSN's credentials.
func ExampleTarget() {
	fmt.Println(pgstore.Target("postgres://alice:s3cret@db.example:5433/ledger"))
	// Output: database "ledger" on db.example:5433
}
