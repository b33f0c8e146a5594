package pgstore

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hpcsched/hpcsched/allocation"
	"github.com/hpcsched/hpcsched/allocation/storetest"
)

// A job's life in the ledger (pre-debit, then completion: two
// transactions, each locking the allocation's balances row) from clients
// concurrent sessions against one allocation.
func BenchmarkPreDebitComplete(b *testing.B) {
	for _, clients := range []int{1, 8} {
		b.Run(fmt.Sprintf("clients=%d", clients), func(b *testing.B) {
			s := open(b, freshDB(b))
			storetest.Fixture(b, s, "lab", 1001, 1<<50)
			ctx := context.Background()
			var next atomic.Int64
			var wg sync.WaitGroup
			b.ResetTimer()
			for range clients {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for {
						n := next.Add(1)
						if n > int64(b.N) {
							return
						}
						id := allocation.JobID(n)
						if _, err := s.PreDebit(ctx, allocation.PreDebitRequest{Job: id, UID: 1, Account: "lab", Resource: allocation.CPU, Amount: 60, Rate: 1_000_000}, storetest.T0); err != nil {
							b.Error(err)
							return
						}
						if _, err := s.Complete(ctx, allocation.Completion{Job: id, Elapsed: time.Minute, Outcome: allocation.OutcomeCompleted}, storetest.T0); err != nil {
							b.Error(err)
							return
						}
					}
				}()
			}
			wg.Wait()
		})
	}
}
