package pgstore

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/hpcsched/hpcsched/allocation"
	"github.com/hpcsched/hpcsched/allocation/storetest"
	"github.com/stretchr/testify/require"
)

// Activity and jobs rows carry no foreign key (migration 004); a trigger
// keeps the rule the keys kept, for any writer: an allocation with a job
// or activity is neither deleted nor moved to another project or resource,
// while one without is, and a used one's period may still change.
func TestDatabaseRefusesDroppingOrMovingAnAllocationInUse(t *testing.T) {
	s := open(t, freshDB(t))
	ctx := context.Background()
	used := storetest.Fixture(t, s, "lab", 1001, 100)   // a credit: activity
	jobOnly := storetest.Fixture(t, s, "lab2", 1002, 0) // a job of 0 SU only, written by hand
	_, err := s.pool.Exec(ctx, "INSERT INTO jobs (job_id, allocation_id, uid, amount, status, started) VALUES (7, $1, 1, 0, 'executing', $2)",
		jobOnly.ID, storetest.T0)
	require.NoError(t, err)
	other := storetest.Fixture(t, s, "other", 1003, 0)
	for _, a := range []allocation.Allocation{used, jobOnly} {
		_, err = s.pool.Exec(ctx, "DELETE FROM allocations WHERE allocation_id = $1", a.ID)
		require.Equal(t, restrictViolation, pgCode(err), "delete allocation %d: %v", a.ID, err)
		_, err = s.pool.Exec(ctx, "UPDATE allocations SET project_id = $2 WHERE allocation_id = $1", a.ID, other.Project)
		require.Equal(t, restrictViolation, pgCode(err), "move allocation %d: %v", a.ID, err)
		_, err = s.pool.Exec(ctx, "UPDATE allocations SET resource = 'GPU' WHERE allocation_id = $1", a.ID)
		require.Equal(t, restrictViolation, pgCode(err), "change the resource of allocation %d: %v", a.ID, err)
		_, err = s.pool.Exec(ctx, "UPDATE allocations SET end_date = end_date + interval '1 day' WHERE allocation_id = $1", a.ID)
		require.NoError(t, err)
	}
	require.ErrorIs(t, s.DeleteAllocation(ctx, jobOnly.ID), allocation.ErrConflict)
	moved := jobOnly
	moved.Project = other.Project
	moved.Start, moved.End = storetest.T0.AddDate(5, 0, 0), storetest.T0.AddDate(6, 0, 0)
	_, err = s.UpdateAllocation(ctx, moved)
	require.ErrorIs(t, err, allocation.ErrConflict)
	require.NoError(t, s.DeleteAllocation(ctx, other.ID))
}

// The same job pre-debited, then completed, by several sessions of two
// servers at once: every call answers the one job, recorded once (one
// pre-debit, one release and one debit each), whichever statement (the
// usual case's or the function's) each call ran. A repeated pre-debit
// racing the job's completion can deadlock in PostgreSQL, which aborts one
// of the two; the store runs it again. (Before it did, a run of this
// round alone failed with SQLSTATE 40P01 five times in thirty on the
// project's 2-CPU machine, and CI saw it: several rounds make that
// likelier to show.)
func TestConcurrentRepeatsRecordOnce(t *testing.T) {
	rounds := 6
	if testing.Short() {
		rounds = 3
	}
	for r := range rounds {
		// a subtest each, so that each round's stores and database are
		// closed before the next opens its own
		t.Run(fmt.Sprintf("round=%d", r), concurrentRepeats)
	}
}

// concurrentRepeats is one round of TestConcurrentRepeatsRecordOnce, on a
// database of its own.
func concurrentRepeats(t *testing.T) {
	dsn := freshDB(t)
	a, b := open(t, dsn), open(t, dsn)
	alloc := storetest.Fixture(t, a, "lab", 1001, 1_000_000)
	ctx := context.Background()
	const jobs, repeats = 40, 4
	var wg sync.WaitGroup
	for job := range allocation.JobID(jobs) {
		for r := range repeats {
			wg.Add(1)
			go func() {
				defer wg.Done()
				s := []*Store{a, b}[r%2]
				req := allocation.PreDebitRequest{Job: job + 1, UID: 5, Account: "lab", Resource: allocation.CPU, Amount: 120, Rate: 1_000_000}
				if j, err := s.PreDebit(ctx, req, storetest.T0); err != nil || j.Amount != 120 {
					t.Errorf("pre-debit %d: %+v, %v", job+1, j, err)
					return
				}
				j, err := s.Complete(ctx, allocation.Completion{Job: job + 1, Elapsed: 90 * time.Second, Outcome: allocation.OutcomeCompleted}, storetest.T0)
				if err != nil || j.Status != allocation.Completed || j.Debited != 2 {
					t.Errorf("complete %d: %+v, %v", job+1, j, err)
				}
			}()
		}
	}
	wg.Wait()
	h, err := a.History(ctx, alloc.ID)
	require.NoError(t, err)
	kinds := map[allocation.ActivityKind]int{}
	for _, act := range h {
		kinds[act.Kind]++
	}
	require.Equal(t, map[allocation.ActivityKind]int{allocation.KindCredit: 1, allocation.KindPreDebit: jobs, allocation.KindRelease: jobs, allocation.KindDebit: jobs}, kinds)
	bal, err := a.Balance(ctx, alloc.ID)
	require.NoError(t, err)
	require.Equal(t, allocation.Balance{Allocation: alloc.ID, Credits: 1_000_000, Debited: 2 * jobs, Balance: 1_000_000 - 2*jobs}, bal)
	ds, err := a.Debits(ctx, alloc.ID)
	require.NoError(t, err)
	require.Equal(t, []allocation.OwnerDebit{{Allocation: alloc.ID, UID: 5, Amount: 2 * jobs, Jobs: jobs}}, ds)
	storetest.CheckConsistent(t, a)
}
