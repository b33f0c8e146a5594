package allocation

import (
	"errors"
	"fmt"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// Seed 002's race: two 20-SU pre-debits against a balance of 30 must not
// both pass. Run many rounds so an unsynchronised check-then-insert would
// be caught.
func TestTwoConcurrentPreDebitsExactlyOnePasses(t *testing.T) {
	for round := range 50 {
		store := NewMemStore()
		l, a := fixture(t, store, 30)
		var wg sync.WaitGroup
		errs := make([]error, 2)
		for i := range 2 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				_, errs[i] = l.PreDebit(ctx, PreDebitRequest{Job: JobID(i + 1), Account: "lab", Resource: CPU, Amount: 20}, t0)
			}()
		}
		wg.Wait()
		passed := 0
		for _, err := range errs {
			if err == nil {
				passed++
			} else {
				require.ErrorIs(t, err, ErrInsufficient, "round %d", round)
			}
		}
		require.Equal(t, 1, passed, "round %d", round)
		b, _ := l.Balance(ctx, a.ID)
		require.Equal(t, int64(10), b.Balance)
		requireConsistent(t, l)
	}
}

// 64 goroutines pre-debit, complete and credit at random against one
// allocation; the balance never goes negative and always equals the sum of
// the activity. Run with -race.
func TestManyGoroutinesNeverOverdraw(t *testing.T) {
	for _, store := range []struct {
		name string
		open func(t *testing.T) Store
	}{
		{"memory", func(*testing.T) Store { return NewMemStore() }},
		{"file", func(t *testing.T) Store {
			s, err := OpenFile(filepath.Join(t.TempDir(), "ledger.json"))
			require.NoError(t, err)
			return s
		}},
	} {
		t.Run(store.name, func(t *testing.T) {
			workers, perWorker, credit := 64, 8, int64(500)
			if store.name == "file" {
				// Every write rewrites and fsyncs the file; the locking
				// is MemStore's either way.
				workers, perWorker, credit = 16, 2, 100
			}
			l, a := fixture(t, store.open(t), credit)
			var wg sync.WaitGroup
			var mu sync.Mutex
			granted, refused := 0, 0
			for w := range workers {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for k := range perWorker {
						id := JobID(w*perWorker + k + 1)
						_, err := l.PreDebit(ctx, PreDebitRequest{Job: id, UID: uint32(w), Account: "lab", Resource: CPU, Amount: int64(5 + (w+k)%11), Rate: micro}, t0)
						mu.Lock()
						if err == nil {
							granted++
						} else if errors.Is(err, ErrInsufficient) {
							refused++
						} else {
							t.Errorf("job %d: %v", id, err)
						}
						mu.Unlock()
						if err == nil && k%2 == 0 {
							_, err = l.Complete(ctx, Completion{Job: id, Elapsed: time.Duration(w) * time.Second, Outcome: OutcomeCompleted}, t0)
							require.NoError(t, err)
						}
						if w%8 == 0 && k == 0 {
							_, err = l.Credit(ctx, a.ID, 7, fmt.Sprint("top-up ", w), t0)
							require.NoError(t, err)
						}
						b, err := l.Balance(ctx, a.ID)
						require.NoError(t, err)
						require.GreaterOrEqual(t, b.Balance, int64(0))
					}
				}()
			}
			wg.Wait()
			require.Equal(t, workers*perWorker, granted+refused)
			require.Positive(t, refused, "the allocation is too small for every job")
			fs, _ := l.Failures(ctx)
			require.Len(t, fs, refused)
			requireConsistent(t, l)
		})
	}
}
