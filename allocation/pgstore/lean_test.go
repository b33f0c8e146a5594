package pgstore

import (
	"context"
	"testing"
	"time"

	"github.com/hpcsched/hpcsched/allocation"
	"github.com/hpcsched/hpcsched/allocation/storetest"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"
)

// activityRows counts the allocation's rows in the activity table.
func activityRows(t *testing.T, s *Store, id allocation.AllocationID) int {
	t.Helper()
	var n int
	require.NoError(t, s.pool.QueryRow(context.Background(), "SELECT count(*) FROM activity WHERE allocation_id = $1", id).Scan(&n))
	return n
}

// A completion writes one activity row, which History shows as its
// release and, when the job was billed, its debit, with the release's id
// before the debit's; a node failure's completion shows the release only.
func TestCompletionWritesOneActivityRow(t *testing.T) {
	s := open(t, freshDB(t))
	ctx := context.Background()
	a := storetest.Fixture(t, s, "lab", 1001, 1000)
	for i, c := range []allocation.Completion{
		{Job: 1, Elapsed: 90 * time.Second, Outcome: allocation.OutcomeCompleted},
		{Job: 2, Elapsed: time.Hour, Outcome: allocation.OutcomeNodeFail},
	} {
		_, err := s.PreDebit(ctx, allocation.PreDebitRequest{Job: c.Job, UID: 7, Account: "lab", Resource: allocation.CPU, Amount: 120, Rate: 1_000_000}, storetest.T0)
		require.NoError(t, err)
		_, err = s.Complete(ctx, c, storetest.T0.Add(c.Elapsed))
		require.NoError(t, err)
		require.Equal(t, 1+2*(i+1), activityRows(t, s, a.ID), "rows after job %d: the credit, then a pre-debit and a completion a job", c.Job)
	}
	h, err := s.History(ctx, a.ID)
	require.NoError(t, err)
	type entry struct {
		kind   allocation.ActivityKind
		amount int64
		job    allocation.JobID
	}
	var got []entry
	for i, e := range h {
		got = append(got, entry{e.Kind, e.Amount, e.Job})
		if i > 0 {
			require.Greater(t, e.ID, h[i-1].ID, "history in id order")
		}
	}
	require.Equal(t, []entry{{allocation.KindCredit, 1000, 0},
		{allocation.KindPreDebit, -120, 1}, {allocation.KindRelease, 120, 1}, {allocation.KindDebit, -2, 1},
		{allocation.KindPreDebit, -120, 2}, {allocation.KindRelease, 120, 2}}, got)
	require.Equal(t, uint32(7), h[3].UID)
	require.Equal(t, storetest.T0.Add(90*time.Second), h[3].Time)
	storetest.CheckConsistent(t, s)
}

// A job's row is updated on the page it was written to (a HOT update, no
// new index entries) even when the jobs written after it filled the page:
// the table keeps room for the completed version.
func TestCompletionUpdatesTheJobInPlace(t *testing.T) {
	s := open(t, freshDB(t))
	ctx := context.Background()
	storetest.Fixture(t, s, "lab", 1001, 1_000_000)
	for id := range allocation.JobID(300) { // several pages of jobs
		_, err := s.PreDebit(ctx, allocation.PreDebitRequest{Job: id + 1, UID: 7, Account: "lab", Resource: allocation.CPU, Amount: 10, Rate: 1_000_000}, storetest.T0)
		require.NoError(t, err)
	}
	block := func() (b int64) {
		require.NoError(t, s.pool.QueryRow(ctx, "SELECT (ctid::text::point)[0]::bigint FROM jobs WHERE job_id = 1").Scan(&b))
		return b
	}
	before := block()
	_, err := s.Complete(ctx, allocation.Completion{Job: 1, Elapsed: time.Minute, Outcome: allocation.OutcomeCompleted}, storetest.T0.Add(time.Minute))
	require.NoError(t, err)
	require.Equal(t, before, block(), "the completed version of job 1 moved to another page")
}

// A database at schema 4 (a completion wrote a release and a debit row
// and an owner's debits row) upgrades in place: the history, balances and
// per-owner debits read the same after migration 005, including those of
// a completed job whose record was dropped before, and the store goes on
// from there.
func TestUpgradeFromSchema4(t *testing.T) {
	ctx := context.Background()
	dsn := freshDB(t)
	pool, err := pgxpool.New(ctx, dsn)
	require.NoError(t, err)
	t.Cleanup(pool.Close)
	old := &Store{pool: pool}
	require.NoError(t, old.migrateTo(ctx, 4))
	a := storetest.Fixture(t, old, "lab", 1001, 1000)
	oldPair := func(job int64, uid uint32, amount int64, outcome allocation.Outcome, debit *int64) {
		_, err := old.PreDebit(ctx, allocation.PreDebitRequest{Job: allocation.JobID(job), UID: uid, Account: "lab", Resource: allocation.CPU, Amount: amount}, storetest.T0)
		require.NoError(t, err)
		if outcome == "" {
			return
		}
		var result string
		require.NoError(t, pool.QueryRow(ctx, "SELECT result FROM hpcsched_complete($1, $2, $3, $4, $5)",
			job, int64(time.Minute), string(outcome), debit, storetest.T0.Add(time.Minute)).Scan(&result))
		require.Equal(t, "ok", result)
	}
	su := func(n int64) *int64 { return &n }
	oldPair(1, 7, 120, allocation.OutcomeCompleted, su(50))
	oldPair(2, 7, 60, allocation.OutcomeNodeFail, nil)
	oldPair(3, 8, 30, allocation.OutcomeCompleted, su(30))
	oldPair(4, 8, 40, "", nil) // still executing at the upgrade
	oldPair(5, 7, 10, allocation.OutcomeCompleted, su(10))
	_, err = pool.Exec(ctx, "DELETE FROM jobs WHERE job_id = 5") // as Forget did at schema 4
	require.NoError(t, err)

	rows, _ := pool.Query(ctx, "SELECT activity_id, kind, amount, job_id FROM activity WHERE allocation_id = $1 ORDER BY activity_id", a.ID)
	before, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (allocation.Activity, error) {
		var e allocation.Activity
		var job int64
		err := r.Scan(&e.ID, &e.Kind, &e.Amount, &job)
		e.Job = allocation.JobID(job)
		return e, err
	})
	require.NoError(t, err)
	require.Len(t, before, 13) // credit; 5 pre-debits; 4 releases; 3 debits (the node failure billed nothing)
	rows, _ = pool.Query(ctx, "SELECT allocation_id, uid, amount, jobs FROM debits ORDER BY uid")
	debitsBefore, err := pgx.CollectRows(rows, pgx.RowToStructByPos[allocation.OwnerDebit])
	require.NoError(t, err)
	require.Equal(t, []allocation.OwnerDebit{{Allocation: a.ID, UID: 7, Amount: 60, Jobs: 3}, {Allocation: a.ID, UID: 8, Amount: 30, Jobs: 1}}, debitsBefore)
	balanceBefore, err := old.Balance(ctx, a.ID)
	require.NoError(t, err)

	s := open(t, dsn) // applies migration 005
	h, err := s.History(ctx, a.ID)
	require.NoError(t, err)
	require.Len(t, h, len(before))
	for i, e := range h {
		require.Equal(t, before[i], allocation.Activity{ID: e.ID, Kind: e.Kind, Amount: e.Amount, Job: e.Job}, "entry %d", i)
	}
	ds, err := s.Debits(ctx, a.ID)
	require.NoError(t, err)
	require.Equal(t, debitsBefore, ds)
	b, err := s.Balance(ctx, a.ID)
	require.NoError(t, err)
	require.Equal(t, balanceBefore, b)
	storetest.CheckConsistent(t, s)

	// On from there: the executing job completes, a completed one is
	// dropped (its debit stays with its owner), a new job runs.
	_, err = s.Complete(ctx, allocation.Completion{Job: 4, Elapsed: time.Minute, Outcome: allocation.OutcomeCompleted, Amount: su(25)}, storetest.T0.Add(time.Minute))
	require.NoError(t, err)
	require.NoError(t, s.Forget(ctx, 1, storetest.T0.Add(time.Hour)))
	_, err = s.PreDebit(ctx, allocation.PreDebitRequest{Job: 6, UID: 8, Account: "lab", Resource: allocation.CPU, Amount: 5}, storetest.T0)
	require.NoError(t, err)
	_, err = s.Complete(ctx, allocation.Completion{Job: 6, Elapsed: time.Minute, Outcome: allocation.OutcomeCompleted, Amount: su(4)}, storetest.T0.Add(time.Minute))
	require.NoError(t, err)
	ds, err = s.Debits(ctx, a.ID)
	require.NoError(t, err)
	require.Equal(t, []allocation.OwnerDebit{{Allocation: a.ID, UID: 7, Amount: 60, Jobs: 3}, {Allocation: a.ID, UID: 8, Amount: 59, Jobs: 3}}, ds)
	h, err = s.History(ctx, a.ID)
	require.NoError(t, err)
	require.Len(t, h, len(before)+2+3) // job 4's release and debit; job 6's pre-debit, release and debit
	storetest.CheckConsistent(t, s)
}

// The same jobs on PostgreSQL and in memory give the same history and
// per-owner debits: a pre-debit of 0 SU and its release of 0 included, a
// node failure's release without a debit, and the debit of a completed job
// whose record was dropped.
func TestHistoryAndDebitsMatchMemStore(t *testing.T) {
	ctx := context.Background()
	zero := int64(0)
	jobs := []struct {
		amount int64
		c      allocation.Completion
	}{
		{0, allocation.Completion{Job: 1, Elapsed: time.Minute, Outcome: allocation.OutcomeCompleted, Amount: &zero}},
		{100, allocation.Completion{Job: 2, Elapsed: 30 * time.Second, Outcome: allocation.OutcomeCompleted}},
		{50, allocation.Completion{Job: 3, Elapsed: time.Hour, Outcome: allocation.OutcomeNodeFail}},
		{40, allocation.Completion{Job: 4, Elapsed: time.Hour, Outcome: allocation.OutcomeCompleted}},
	}
	type result struct {
		history []allocation.Activity
		debits  []allocation.OwnerDebit
	}
	replay := func(s allocation.Store) result {
		a := storetest.Fixture(t, s, "lab", 1001, 1000)
		for i, j := range jobs {
			_, err := s.PreDebit(ctx, allocation.PreDebitRequest{Job: j.c.Job, UID: uint32(7 + i%2), Account: "lab", Resource: allocation.CPU, Amount: j.amount, Rate: 1_000_000}, storetest.T0)
			require.NoError(t, err)
			_, err = s.Complete(ctx, j.c, storetest.T0.Add(time.Minute))
			require.NoError(t, err)
		}
		require.NoError(t, s.Forget(ctx, 4, storetest.T0.Add(time.Hour)))
		h, err := s.History(ctx, a.ID)
		require.NoError(t, err)
		for i := range h {
			h[i].ID, h[i].Allocation = 0, 0 // the stores number their own
		}
		ds, err := s.Debits(ctx, a.ID)
		require.NoError(t, err)
		for i := range ds {
			ds[i].Allocation = 0
		}
		return result{h, ds}
	}
	require.Equal(t, replay(allocation.NewMemStore()), replay(open(t, freshDB(t))))
}
