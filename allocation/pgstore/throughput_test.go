package pgstore

import (
	"context"
	"fmt"
	"os"
	"strconv"
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

// ThroughputPoolEnv, set to a number, gives each server its own pool of
// that many connections, as separate `hpcsched alloc serve` processes
// have (pgxpool's default is 4): one server is one such pool, two servers
// two. Unset, one server has a pool of 16 and two share 16 between them,
// so the two measurements differ only in how the clients are spread.
const ThroughputPoolEnv = "HPCSCHED_PG_THROUGHPUT_POOL"

const (
	throughputClients = 16
	// The three measurements take turns in this many slices of the span
	// each, so a change of the machine's load (it is shared) falls on all
	// three alike and the ratios stay comparable.
	throughputRounds = 10
)

func TestThroughput(t *testing.T) {
	span, err := time.ParseDuration(os.Getenv(ThroughputEnv))
	if err != nil || span <= 0 {
		t.Skipf("set %s to a duration (e.g. 5s) to measure", ThroughputEnv)
	}
	base := freshDB(t)
	dsn := withPoolSize(base, throughputClients)
	plain := newPlain(t, dsn)
	// pgx reads the first of repeated DSN parameters, so each pool size is
	// set once on the bare DSN.
	oneDSN, twoDSN := dsn, withPoolSize(base, throughputClients/2)
	if v := os.Getenv(ThroughputPoolEnv); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > throughputClients {
			t.Fatalf("%s=%q: want a pool size of 1-%d", ThroughputPoolEnv, v, throughputClients)
		}
		oneDSN, twoDSN = withPoolSize(base, n), withPoolSize(base, n)
	}
	one := newPairs(t, []string{oneDSN})
	two := newPairs(t, []string{twoDSN, twoDSN})
	var rates [3]meter
	for r := range throughputRounds {
		for i, op := range []func(int) error{plain, one, two} {
			rates[i].add(run(t, span/throughputRounds, op))
		}
		t.Logf("round %d: plain %.0f tx/s, pairs %.0f/s on one server, %.0f/s on two", r+1, rates[0].last, rates[1].last, rates[2].last)
	}
	p, o, w := rates[0].perSecond(), rates[1].perSecond(), rates[2].perSecond()
	t.Logf("%d clients, %s each in %d turns: plain INSERT+UPDATE %.0f tx/s; pre-debit+complete pairs %.0f/s on one server, %.0f/s on two (%.2f, %.2f of plain)",
		throughputClients, span, throughputRounds, p, o, w, o/p, w/p)
}

// meter sums the calls and seconds of several runs.
type meter struct {
	calls   int64
	seconds float64
	last    float64 // the last run's calls per second
}

func (m *meter) add(calls int64, seconds float64) {
	m.calls += calls
	m.seconds += seconds
	m.last = float64(calls) / seconds
}

func (m *meter) perSecond() float64 { return float64(m.calls) / m.seconds }

func withPoolSize(dsn string, n int) string {
	return fmt.Sprintf("%s&pool_max_conns=%d", dsn, n)
}

// run calls op from throughputClients goroutines, each with its own client
// number, for span and returns the calls made and the seconds taken.
func run(t *testing.T, span time.Duration, op func(client int) error) (int64, float64) {
	var done atomic.Int64
	var wg sync.WaitGroup
	stop := time.Now().Add(span)
	start := time.Now()
	for c := range throughputClients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for time.Now().Before(stop) {
				if err := op(c); err != nil {
					t.Error(err)
					return
				}
				done.Add(1)
			}
		}()
	}
	wg.Wait()
	return done.Load(), time.Since(start).Seconds()
}

// newPlain is one INSERT+UPDATE transaction of a client: it inserts a row
// and bumps its own counter, the least a pre-debit does.
func newPlain(t *testing.T, dsn string) func(client int) error {
	ctx := context.Background()
	pool, err := pgxpool.New(ctx, dsn)
	require.NoError(t, err)
	t.Cleanup(pool.Close)
	_, err = pool.Exec(ctx, `CREATE TABLE plain_rows (id bigserial PRIMARY KEY, client int, n int);
		CREATE TABLE plain_counts (client int PRIMARY KEY, n bigint NOT NULL);
		INSERT INTO plain_counts SELECT g, 0 FROM generate_series(0, 63) g`)
	require.NoError(t, err)
	var next [throughputClients]int // each client's own: no two goroutines share one
	return func(c int) error {
		next[c]++
		return pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
			if _, err := tx.Exec(ctx, "INSERT INTO plain_rows (client, n) VALUES ($1, $2)", c, next[c]); err != nil {
				return err
			}
			_, err := tx.Exec(ctx, "UPDATE plain_counts SET n = n + 1 WHERE client = $1", c)
			return err
		})
	}
}

// newPairs is one pre-debit and its completion by a client, through one
// store per dsn (one server each), the clients spread over them, each
// client on an allocation of its own.
func newPairs(t *testing.T, dsns []string) func(client int) error {
	ctx := context.Background()
	var stores []*Store
	for _, d := range dsns {
		stores = append(stores, open(t, d))
	}
	base := jobBase.Add(1) << 40
	var accounts [throughputClients]string
	for c := range accounts {
		accounts[c] = fmt.Sprintf("tp%d_%d", base>>40, c)
		storetest.Fixture(t, stores[0], accounts[c], uint32(c), 1<<50)
	}
	var next [throughputClients]int64
	return func(c int) error {
		s := stores[c%len(stores)]
		next[c]++
		id := allocation.JobID(base + int64(c)<<32 + next[c])
		if _, err := s.PreDebit(ctx, allocation.PreDebitRequest{Job: id, UID: 1, Account: accounts[c], Resource: allocation.CPU,
			Amount: 60, Rate: 1_000_000}, storetest.T0); err != nil {
			return err
		}
		_, err := s.Complete(ctx, allocation.Completion{Job: id, Elapsed: time.Minute, Outcome: allocation.OutcomeCompleted}, storetest.T0)
		return err
	}
}

var jobBase atomic.Int64
