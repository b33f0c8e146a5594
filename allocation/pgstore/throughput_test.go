package pgstore

import (
	"context"
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hpcsched/hpcsched/allocation"
	"github.com/hpcsched/hpcsched/allocation/storetest"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"
)

// ThroughputEnv, set to a duration ("5s"), runs TestThroughput: the
// pre-debit+complete pairs per second of 16 clients, each on its own
// allocation, through one server (one pool) and two (two pools), beside
// the plain INSERT+UPDATE transactions per second the same database
// sustains with the same 16 clients. The figures in BENCHMARKS.md come
// from it.
const ThroughputEnv = "HPCSCHED_PG_THROUGHPUT"

const throughputClients = 16

func TestThroughput(t *testing.T) {
	span, err := time.ParseDuration(os.Getenv(ThroughputEnv))
	if err != nil || span <= 0 {
		t.Skipf("set %s to a duration (e.g. 5s) to measure", ThroughputEnv)
	}
	dsn := withPoolSize(freshDB(t), throughputClients)
	plain := plainRate(t, dsn, span)
	one := pairRate(t, []string{dsn}, span)
	two := pairRate(t, []string{withPoolSize(dsn, throughputClients/2), withPoolSize(dsn, throughputClients/2)}, span)
	t.Logf("%d clients, %s each: plain INSERT+UPDATE %.0f tx/s; pre-debit+complete pairs %.0f/s on one server, %.0f/s on two (%.2f, %.2f of plain)",
		throughputClients, span, plain, one, two, one/plain, two/plain)
}

func withPoolSize(dsn string, n int) string {
	return fmt.Sprintf("%s&pool_max_conns=%d", dsn, n)
}

// run calls op from throughputClients goroutines for span and returns the
// calls per second.
func run(t *testing.T, span time.Duration, op func(client, i int) error) float64 {
	var done atomic.Int64
	var wg sync.WaitGroup
	stop := time.Now().Add(span)
	start := time.Now()
	for c := range throughputClients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; time.Now().Before(stop); i++ {
				if err := op(c, i); err != nil {
					t.Error(err)
					return
				}
				done.Add(1)
			}
		}()
	}
	wg.Wait()
	return float64(done.Load()) / time.Since(start).Seconds()
}

// plainRate is the INSERT+UPDATE transactions per second: each client
// inserts a row and bumps its own counter, the least a pre-debit does.
func plainRate(t *testing.T, dsn string, span time.Duration) float64 {
	ctx := context.Background()
	pool, err := pgxpool.New(ctx, dsn)
	require.NoError(t, err)
	defer pool.Close()
	_, err = pool.Exec(ctx, `CREATE TABLE plain_rows (id bigserial PRIMARY KEY, client int, n int);
		CREATE TABLE plain_counts (client int PRIMARY KEY, n bigint NOT NULL);
		INSERT INTO plain_counts SELECT g, 0 FROM generate_series(0, 63) g`)
	require.NoError(t, err)
	return run(t, span, func(c, i int) error {
		return pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
			if _, err := tx.Exec(ctx, "INSERT INTO plain_rows (client, n) VALUES ($1, $2)", c, i); err != nil {
				return err
			}
			_, err := tx.Exec(ctx, "UPDATE plain_counts SET n = n + 1 WHERE client = $1", c)
			return err
		})
	})
}

// pairRate is the pre-debit+complete pairs per second through one store
// per dsn (one server each), the clients spread over them.
func pairRate(t *testing.T, dsns []string, span time.Duration) float64 {
	ctx := context.Background()
	var stores []*Store
	for _, d := range dsns {
		s, err := Open(ctx, d)
		require.NoError(t, err)
		defer s.Close()
		stores = append(stores, s)
	}
	base := jobBase.Add(1) << 40
	for c := range throughputClients {
		account := fmt.Sprintf("tp%d_%d", base>>40, c)
		storetest.Fixture(t, stores[0], account, uint32(c), 1<<50)
	}
	return run(t, span, func(c, i int) error {
		s := stores[c%len(stores)]
		id := allocation.JobID(base + int64(c)<<32 + int64(i))
		account := fmt.Sprintf("tp%d_%d", base>>40, c)
		if _, err := s.PreDebit(ctx, allocation.PreDebitRequest{Job: id, UID: 1, Account: account, Resource: allocation.CPU,
			Amount: 60, Rate: 1_000_000}, storetest.T0); err != nil {
			return err
		}
		_, err := s.Complete(ctx, allocation.Completion{Job: id, Elapsed: time.Minute, Outcome: allocation.OutcomeCompleted}, storetest.T0)
		return err
	})
}

var jobBase atomic.Int64
