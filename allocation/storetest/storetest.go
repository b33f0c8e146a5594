// Package storetest is the conformance suite every allocation.Store must
// pass: the HADM paper's ledger rules (no overlapping allocations, pre-debits
// that never overdraw, completion billing, idempotent retries, the
// straddling job, the concurrent race HADM met) checked against a store.
// allocation's MemStore and allocation/pgstore run it; a third-party store
// can too.
package storetest

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sync"
	"testing"
	"time"

	"github.com/hpcsched/hpcsched/allocation"
)

// T0 is the start of the fixtures' allocation year.
var T0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

const year = 365 * 24 * time.Hour

// Open returns an empty store for one test; the suite closes nothing.
type Open func(t *testing.T) allocation.Store

// Run runs every conformance test against stores from open.
func Run(t *testing.T, open Open) {
	for _, tc := range []struct {
		name string
		test func(*testing.T, allocation.Store)
	}{
		{"Overlap", testOverlap},
		{"InsufficientBalance", testInsufficient},
		{"Completion", testCompletion},
		{"CompletionBeyondInt64", testCompletionBeyondInt64},
		{"NilContext", testNilContext},
		{"BadCompletion", testBadCompletion},
		{"Retries", testRetries},
		{"Straddle", testStraddle},
		{"Deletes", testDeletes},
		{"Forget", testForget},
		{"TwentyAndTwentyAgainstThirty", testRace},
		{"ManyGoroutines", testManyGoroutines},
		{"Times", testTimes},
	} {
		t.Run(tc.name, func(t *testing.T) { tc.test(t, open(t)) })
	}
}

// Fixture adds project account (gid) with a CPU allocation over [T0,
// T0+1y) credited with credit SU.
func Fixture(t testing.TB, s allocation.Store, account string, gid uint32, credit int64) allocation.Allocation {
	t.Helper()
	ctx := context.Background()
	p, err := s.CreateProject(ctx, allocation.Project{Name: account, GID: gid, Account: account})
	must(t, err)
	a, err := s.CreateAllocation(ctx, allocation.Allocation{Project: p.ID, Category: "startup", Resource: allocation.CPU, Start: T0, End: T0.Add(year)})
	must(t, err)
	if credit > 0 {
		_, err = s.Credit(ctx, a.ID, credit, "grant", T0)
		must(t, err)
	}
	return a
}

// CheckConsistent fails t unless every balance equals the sum of its
// allocation's activity, is not negative, its parts add up, and the
// per-owner debits add up to the debited total.
func CheckConsistent(t *testing.T, s allocation.Store) {
	t.Helper()
	ctx := context.Background()
	bs, err := s.Balances(ctx)
	must(t, err)
	for _, b := range bs {
		h, err := s.History(ctx, b.Allocation)
		must(t, err)
		var sum int64
		for _, a := range h {
			sum += a.Amount
		}
		ds, err := s.Debits(ctx, b.Allocation)
		must(t, err)
		var debited int64
		for _, d := range ds {
			debited += d.Amount
		}
		switch {
		case sum != b.Balance:
			t.Fatalf("allocation %d: balance %d, activity sums to %d", b.Allocation, b.Balance, sum)
		case b.Balance < 0:
			t.Fatalf("allocation %d overdrawn: %d", b.Allocation, b.Balance)
		case b.Credits-b.Debited-b.Pending != b.Balance:
			t.Fatalf("allocation %d: parts %+v do not add up", b.Allocation, b)
		case debited != b.Debited:
			t.Fatalf("allocation %d: per-owner debits %d, debited %d", b.Allocation, debited, b.Debited)
		}
	}
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func mustBe(t *testing.T, err, want error) {
	t.Helper()
	if !errors.Is(err, want) {
		t.Fatalf("got error %v, want %v", err, want)
	}
}

func equal[T comparable](t *testing.T, got, want T, what string) {
	t.Helper()
	if got != want {
		t.Fatalf("%s: got %v, want %v", what, got, want)
	}
}

var ctx = context.Background()

func testOverlap(t *testing.T, s allocation.Store) {
	a := Fixture(t, s, "lab", 1001, 0)
	for _, tc := range []struct {
		start, end time.Time
		resource   allocation.Resource
		want       error
	}{
		{T0.Add(time.Hour), T0.Add(2 * time.Hour), allocation.CPU, allocation.ErrOverlap},
		{T0.Add(-time.Hour), T0.Add(2 * year), allocation.CPU, allocation.ErrOverlap},
		{T0.Add(year - time.Hour), T0.Add(2 * year), allocation.CPU, allocation.ErrOverlap},
		{T0.Add(-year), T0.Add(time.Hour), allocation.CPU, allocation.ErrOverlap},
		{T0.Add(year), T0.Add(2 * year), allocation.CPU, nil},
		{T0.Add(-year), T0, allocation.CPU, nil},
		{T0, T0.Add(year), allocation.GPU, nil},
		{T0.Add(3 * year), T0.Add(3 * year), allocation.CPU, allocation.ErrInvalid},
	} {
		_, err := s.CreateAllocation(ctx, allocation.Allocation{Project: a.Project, Resource: tc.resource, Start: tc.start, End: tc.end})
		if tc.want == nil {
			must(t, err)
			continue
		}
		mustBe(t, err, tc.want)
		var oe *allocation.OverlapError
		if errors.As(err, &oe) {
			equal(t, oe.Existing.ID, a.ID, "the overlapped allocation")
		}
	}
	next, err := s.ActiveAllocation(ctx, "lab", allocation.CPU, T0.Add(year+time.Hour))
	must(t, err)
	next.Start = T0.Add(year - time.Hour)
	_, err = s.UpdateAllocation(ctx, next)
	mustBe(t, err, allocation.ErrOverlap)
	a.End = T0.Add(year - 24*time.Hour)
	_, err = s.UpdateAllocation(ctx, a)
	must(t, err)
	_, err = s.ActiveAllocation(ctx, "lab", allocation.CPU, T0.Add(year-time.Hour))
	mustBe(t, err, allocation.ErrNoAllocation)
	_, err = s.CreateAllocation(ctx, allocation.Allocation{Project: 999, Resource: allocation.CPU, Start: T0, End: T0.Add(time.Hour)})
	mustBe(t, err, allocation.ErrNotFound)
	// an allocation that does not exist is not found, whatever its period
	// would overlap
	_, err = s.UpdateAllocation(ctx, allocation.Allocation{ID: 999, Project: a.Project, Resource: allocation.CPU, Start: T0, End: T0.Add(time.Hour)})
	mustBe(t, err, allocation.ErrNotFound)
}

func testInsufficient(t *testing.T, s allocation.Store) {
	a := Fixture(t, s, "lab", 1001, 100)
	r := allocation.PreDebitRequest{Job: 1, UID: 500, Account: "lab", Resource: allocation.CPU, Amount: 60}
	j, err := s.PreDebit(ctx, r, T0.Add(time.Hour))
	must(t, err)
	equal(t, j.Status, allocation.Executing, "status")
	r.Job = 2
	_, err = s.PreDebit(ctx, r, T0.Add(time.Hour))
	var ie *allocation.InsufficientError
	if !errors.As(err, &ie) {
		t.Fatalf("got %v, want *InsufficientError", err)
	}
	equal(t, *ie, allocation.InsufficientError{Job: 2, Allocation: a.ID, Amount: 60, Balance: 40}, "refusal")
	_, err = s.PreDebit(ctx, r, T0.Add(2*time.Hour)) // a retry against the same balance adds no record
	mustBe(t, err, allocation.ErrInsufficient)
	fs, err := s.Failures(ctx)
	must(t, err)
	if len(fs) != 1 || fs[0].Job != 2 || fs[0].Attempt != 1 || fs[0].Balance != 40 || fs[0].UID != 500 {
		t.Fatalf("failures %+v", fs)
	}
	// A top-up that is still too small: refused again, with the balance of now.
	_, err = s.Credit(ctx, a.ID, 10, "top-up", T0.Add(3*time.Hour))
	must(t, err)
	_, err = s.PreDebit(ctx, r, T0.Add(3*time.Hour))
	if !errors.As(err, &ie) || ie.Balance != 50 {
		t.Fatalf("got %v, want a refusal against 50 SU", err)
	}
	// Enough now: the refused job starts; its refusals stay on record.
	_, err = s.Credit(ctx, a.ID, 1000, "top-up", T0.Add(4*time.Hour))
	must(t, err)
	j, err = s.PreDebit(ctx, r, T0.Add(4*time.Hour))
	must(t, err)
	equal(t, j.Amount, int64(60), "pre-debit after the top-up")
	fs, err = s.Failures(ctx)
	must(t, err)
	if len(fs) != 2 || fs[1].Job != 2 || fs[1].Attempt != 2 || fs[1].Balance != 50 {
		t.Fatalf("failures after the retries %+v", fs)
	}
	for _, bad := range []allocation.PreDebitRequest{
		{Job: 3, Account: "nobody", Resource: allocation.CPU, Amount: 1},
		{Job: 3, Account: "lab", Resource: allocation.GPU, Amount: 1},
	} {
		_, err = s.PreDebit(ctx, bad, T0)
		mustBe(t, err, allocation.ErrNoAllocation)
	}
	_, err = s.PreDebit(ctx, allocation.PreDebitRequest{Job: 3, Account: "lab", Resource: allocation.CPU, Amount: 1}, T0.Add(year))
	mustBe(t, err, allocation.ErrNoAllocation)
	_, err = s.PreDebit(ctx, allocation.PreDebitRequest{Account: "lab", Resource: allocation.CPU, Amount: 1}, T0)
	mustBe(t, err, allocation.ErrInvalid)
	// One rule for job ids in every store: at most MaxJobID.
	_, err = s.PreDebit(ctx, allocation.PreDebitRequest{Job: allocation.MaxJobID + 1, Account: "lab", Resource: allocation.CPU, Amount: 1}, T0)
	var fe *allocation.FieldError
	if !errors.As(err, &fe) || fe.Field != "job_id" {
		t.Fatalf("job id 2^63: got %v, want a job_id FieldError", err)
	}
	_, err = s.PreDebit(ctx, allocation.PreDebitRequest{Job: allocation.MaxJobID, Account: "lab", Resource: allocation.CPU, Amount: 1}, T0)
	must(t, err)
	_, err = s.Job(ctx, allocation.MaxJobID)
	must(t, err)
	CheckConsistent(t, s)
}

// A malformed completion is ErrInvalid on every store, whether or not the
// job is known: the completion is checked before the job is looked up.
func testBadCompletion(t *testing.T, s allocation.Store) {
	Fixture(t, s, "lab", 1001, 1000)
	_, err := s.PreDebit(ctx, allocation.PreDebitRequest{Job: 1, Account: "lab", Resource: allocation.CPU, Amount: 10, Rate: 1_000_000}, T0)
	must(t, err)
	negative := int64(-1)
	for _, job := range []allocation.JobID{1, 2} { // known, unknown
		for _, c := range []allocation.Completion{
			{Job: job},
			{Job: job, Elapsed: -time.Second, Outcome: allocation.OutcomeCompleted},
			{Job: job, Elapsed: time.Second, Outcome: "exploded"},
			{Job: job, Elapsed: time.Second, Outcome: allocation.OutcomeCompleted, Amount: &negative},
		} {
			_, err := s.Complete(ctx, c, T0)
			mustBe(t, err, allocation.ErrInvalid)
		}
	}
}

func testCompletion(t *testing.T, s allocation.Store) {
	a := Fixture(t, s, "lab", 1001, 1000)
	given := int64(7)
	for i, tc := range []struct {
		c    allocation.Completion
		want int64
	}{
		{allocation.Completion{Elapsed: 601 * time.Second, Outcome: allocation.OutcomeCompleted}, 21}, // 2 cores x 601 s
		{allocation.Completion{Elapsed: time.Hour, Outcome: allocation.OutcomeTimeout}, 120},
		{allocation.Completion{Elapsed: 2 * time.Hour, Outcome: allocation.OutcomeTimeout}, 120}, // capped at the pre-debit
		{allocation.Completion{Elapsed: 50 * time.Minute, Outcome: allocation.OutcomeNodeFail}, 0},
		{allocation.Completion{Elapsed: time.Hour, Outcome: allocation.OutcomeFailed, Amount: &given}, 7},
	} {
		id := allocation.JobID(i + 1)
		_, err := s.PreDebit(ctx, allocation.PreDebitRequest{Job: id, UID: 7, Account: "lab", Resource: allocation.CPU, Amount: 120, Rate: 2_000_000}, T0)
		must(t, err)
		tc.c.Job = id
		j, err := s.Complete(ctx, tc.c, T0.Add(tc.c.Elapsed))
		must(t, err)
		equal(t, j.Debited, tc.want, fmt.Sprintf("debit of %+v", tc.c))
		equal(t, j.Status, allocation.Completed, "status")
		got, err := s.Job(ctx, id)
		must(t, err)
		equal(t, got.Debited, tc.want, "stored debit")
		equal(t, got.Outcome, tc.c.Outcome, "stored outcome")
	}
	b, err := s.Balance(ctx, a.ID)
	must(t, err)
	equal(t, b, allocation.Balance{Allocation: a.ID, Credits: 1000, Debited: 268, Balance: 732}, "balance")
	ds, err := s.Debits(ctx, a.ID)
	must(t, err)
	if len(ds) != 1 || ds[0] != (allocation.OwnerDebit{Allocation: a.ID, UID: 7, Amount: 268, Jobs: 5}) {
		t.Fatalf("debits %+v", ds)
	}
	_, err = s.PreDebit(ctx, allocation.PreDebitRequest{Job: 99, Account: "lab", Resource: allocation.CPU, Amount: 5}, T0)
	must(t, err)
	_, err = s.Complete(ctx, allocation.Completion{Job: 99, Elapsed: time.Minute, Outcome: allocation.OutcomeCompleted}, T0)
	mustBe(t, err, allocation.ErrInvalid) // no rate and no amount
	_, err = s.Complete(ctx, allocation.Completion{Job: 404, Elapsed: time.Minute, Outcome: allocation.OutcomeCompleted}, T0)
	mustBe(t, err, allocation.ErrNotFound)
	CheckConsistent(t, s)
}

// testCompletionBeyondInt64: a rate times an elapsed time past int64 is
// still a completion, billed its pre-debit (the cap every completion has);
// refusing it would leave the job executing for good.
func testCompletionBeyondInt64(t *testing.T, s allocation.Store) {
	a := Fixture(t, s, "lab", 1001, 1000)
	for i, tc := range []struct {
		rate    int64
		elapsed time.Duration
	}{
		{math.MaxInt64, math.MaxInt64},
		{math.MaxInt64 / 2, 100 * year},
		{math.MaxInt64, 61 * time.Minute},
	} {
		id := allocation.JobID(i + 1)
		_, err := s.PreDebit(ctx, allocation.PreDebitRequest{Job: id, UID: 7, Account: "lab", Resource: allocation.CPU, Amount: 120, Rate: tc.rate}, T0)
		must(t, err)
		c := allocation.Completion{Job: id, Elapsed: tc.elapsed, Outcome: allocation.OutcomeTimeout}
		j, err := s.Complete(ctx, c, T0.Add(time.Hour))
		must(t, err)
		equal(t, j.Debited, 120, fmt.Sprintf("debit of rate %d over %s", tc.rate, tc.elapsed))
		again, err := s.Complete(ctx, c, T0.Add(2*time.Hour))
		must(t, err)
		equal(t, again.Debited, 120, "retried completion")
	}
	b, err := s.Balance(ctx, a.ID)
	must(t, err)
	equal(t, b, allocation.Balance{Allocation: a.ID, Credits: 1000, Debited: 360, Balance: 640}, "balance")
	CheckConsistent(t, s)
}

// testNilContext: a change given a nil context is refused (ErrInvalid)
// and changes nothing, in every store, rather than panicking.
func testNilContext(t *testing.T, s allocation.Store) {
	a := Fixture(t, s, "lab", 1001, 1000)
	_, err := s.PreDebit(ctx, allocation.PreDebitRequest{Job: 1, UID: 7, Account: "lab", Resource: allocation.CPU, Amount: 100, Rate: 1_000_000}, T0)
	must(t, err)
	before, err := s.Balance(ctx, a.ID)
	must(t, err)
	var none context.Context // what a hurried caller passes
	given := int64(5)
	for name, call := range map[string]func() error{
		"CreateProject": func() error {
			_, err := s.CreateProject(none, allocation.Project{Name: "x", GID: 9, Account: "x"})
			return err
		},
		"CreateAllocation": func() error {
			_, err := s.CreateAllocation(none, allocation.Allocation{Project: a.Project, Category: "startup", Resource: allocation.GPU, Start: T0, End: T0.Add(year)})
			return err
		},
		"UpdateAllocation": func() error { _, err := s.UpdateAllocation(none, a); return err },
		"DeleteAllocation": func() error { return s.DeleteAllocation(none, a.ID) },
		"Credit":           func() error { _, err := s.Credit(none, a.ID, 5, "", T0); return err },
		"PreDebit": func() error {
			_, err := s.PreDebit(none, allocation.PreDebitRequest{Job: 2, Account: "lab", Resource: allocation.CPU, Amount: 5}, T0)
			return err
		},
		"Complete": func() error {
			_, err := s.Complete(none, allocation.Completion{Job: 1, Outcome: allocation.OutcomeCompleted, Amount: &given}, T0)
			return err
		},
		"Forget": func() error { return s.Forget(none, 1, T0) },
	} {
		if err := call(); !errors.Is(err, allocation.ErrInvalid) {
			t.Errorf("%s with a nil context: %v, want ErrInvalid", name, err)
		}
	}
	after, err := s.Balance(ctx, a.ID)
	must(t, err)
	equal(t, after, before, "balance after refused calls")
	ps, err := s.Projects(ctx)
	must(t, err)
	equal(t, len(ps), 1, "projects after refused calls")
	CheckConsistent(t, s)
}

func testRetries(t *testing.T, s allocation.Store) {
	a := Fixture(t, s, "lab", 1001, 1000)
	r := allocation.PreDebitRequest{Job: 9, UID: 7, Account: "lab", Resource: allocation.CPU, Amount: 240, Rate: 4_000_000}
	first, err := s.PreDebit(ctx, r, T0)
	must(t, err)
	again, err := s.PreDebit(ctx, r, T0.Add(time.Minute))
	must(t, err)
	equal(t, again, first, "retried pre-debit")
	r.Amount = 480
	_, err = s.PreDebit(ctx, r, T0)
	mustBe(t, err, allocation.ErrConflict)
	c := allocation.Completion{Job: 9, Elapsed: 30 * time.Minute, Outcome: allocation.OutcomeCompleted}
	done, err := s.Complete(ctx, c, T0.Add(30*time.Minute))
	must(t, err)
	redo, err := s.Complete(ctx, c, T0.Add(31*time.Minute))
	must(t, err)
	equal(t, redo, done, "retried completion")
	c.Elapsed = 40 * time.Minute
	_, err = s.Complete(ctx, c, T0.Add(40*time.Minute))
	mustBe(t, err, allocation.ErrConflict)
	h, err := s.History(ctx, a.ID)
	must(t, err)
	equal(t, len(h), 4, "credit, pre-debit, release, debit")
	b, err := s.Balance(ctx, a.ID)
	must(t, err)
	equal(t, b.Balance, int64(1000-120), "balance")
	CheckConsistent(t, s)
}

// A job straddling two periods pre-debits and debits the earlier.
func testStraddle(t *testing.T, s allocation.Store) {
	first := Fixture(t, s, "lab", 1001, 1000)
	second, err := s.CreateAllocation(ctx, allocation.Allocation{Project: first.Project, Resource: allocation.CPU, Start: T0.Add(year), End: T0.Add(2 * year)})
	must(t, err)
	_, err = s.Credit(ctx, second.ID, 1000, "renewal", T0.Add(year))
	must(t, err)
	start := T0.Add(year - time.Hour)
	j, err := s.PreDebit(ctx, allocation.PreDebitRequest{Job: 1, Account: "lab", Resource: allocation.CPU, Amount: 180, Rate: 1_000_000}, start)
	must(t, err)
	equal(t, j.Allocation, first.ID, "pre-debited allocation")
	j, err = s.Complete(ctx, allocation.Completion{Job: 1, Elapsed: 2 * time.Hour, Outcome: allocation.OutcomeCompleted}, start.Add(2*time.Hour))
	must(t, err)
	equal(t, j.Allocation, first.ID, "debited allocation")
	b1, _ := s.Balance(ctx, first.ID)
	b2, _ := s.Balance(ctx, second.ID)
	equal(t, b1.Balance, int64(1000-120), "earlier balance")
	equal(t, b2.Balance, int64(1000), "later balance")
}

func testDeletes(t *testing.T, s allocation.Store) {
	a := Fixture(t, s, "lab", 1001, 10)
	mustBe(t, s.DeleteProject(ctx, a.Project), allocation.ErrConflict)
	mustBe(t, s.DeleteAllocation(ctx, a.ID), allocation.ErrConflict)
	empty, err := s.CreateAllocation(ctx, allocation.Allocation{Project: a.Project, Resource: allocation.GPU, Start: T0, End: T0.Add(year)})
	must(t, err)
	must(t, s.DeleteAllocation(ctx, empty.ID))
	_, err = s.Allocation(ctx, empty.ID)
	mustBe(t, err, allocation.ErrNotFound)
	p2, err := s.CreateProject(ctx, allocation.Project{Name: "b", Account: "b"})
	must(t, err)
	_, err = s.CreateProject(ctx, allocation.Project{Name: "c", Account: "b"})
	mustBe(t, err, allocation.ErrConflict)
	p2.Name = "renamed"
	_, err = s.UpdateProject(ctx, p2)
	must(t, err)
	got, err := s.Project(ctx, p2.ID)
	must(t, err)
	equal(t, got.Name, "renamed", "updated name")
	must(t, s.DeleteProject(ctx, p2.ID))
	mustBe(t, s.DeleteProject(ctx, p2.ID), allocation.ErrNotFound)
	_, err = s.Credit(ctx, a.ID, 0, "", T0)
	mustBe(t, err, allocation.ErrInvalid)
	_, err = s.Credit(ctx, 9999, 5, "", T0)
	mustBe(t, err, allocation.ErrNotFound)
	// Text a store could not keep as given is refused alike by every store.
	_, err = s.Credit(ctx, a.ID, 5, "a\x00b", T0)
	mustBe(t, err, allocation.ErrInvalid)
	_, err = s.CreateProject(ctx, allocation.Project{Name: "nul\x00", Account: "nul"})
	mustBe(t, err, allocation.ErrInvalid)
	_, err = s.CreateProject(ctx, allocation.Project{Name: "bad", Account: "\xff"})
	mustBe(t, err, allocation.ErrInvalid)
}

func testForget(t *testing.T, s allocation.Store) {
	a := Fixture(t, s, "lab", 1001, 100)
	r := allocation.PreDebitRequest{Job: 5, UID: 3, Account: "lab", Resource: allocation.CPU, Amount: 60, Rate: 1_000_000}
	_, err := s.PreDebit(ctx, r, T0)
	must(t, err)
	must(t, s.Forget(ctx, 5, T0)) // the start did not happen: all returns
	must(t, s.Forget(ctx, 5, T0)) // and again changes nothing
	b, err := s.Balance(ctx, a.ID)
	must(t, err)
	equal(t, b, allocation.Balance{Allocation: a.ID, Credits: 100, Balance: 100}, "balance after an unreserve")
	_, err = s.Job(ctx, 5)
	mustBe(t, err, allocation.ErrNotFound)
	// A requeued job: its first run is billed, then it runs again.
	_, err = s.PreDebit(ctx, r, T0)
	must(t, err)
	_, err = s.Complete(ctx, allocation.Completion{Job: 5, Elapsed: 10 * time.Minute, Outcome: allocation.OutcomeFailed}, T0.Add(10*time.Minute))
	must(t, err)
	must(t, s.Forget(ctx, 5, T0.Add(10*time.Minute)))
	_, err = s.PreDebit(ctx, r, T0.Add(11*time.Minute))
	must(t, err)
	b, err = s.Balance(ctx, a.ID)
	must(t, err)
	equal(t, b, allocation.Balance{Allocation: a.ID, Credits: 100, Debited: 10, Pending: 60, Balance: 30}, "balance of the second run")
	CheckConsistent(t, s)
}

// The HADM paper's race: two 20-SU pre-debits against 30 SU; exactly one passes.
// Repeated on fresh allocations so an unsynchronised check would show.
func testRace(t *testing.T, s allocation.Store) {
	for round := range 20 {
		account := fmt.Sprint("race", round)
		a := Fixture(t, s, account, uint32(round), 30)
		var wg sync.WaitGroup
		errs := make([]error, 2)
		for i := range 2 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				_, errs[i] = s.PreDebit(ctx, allocation.PreDebitRequest{Job: allocation.JobID(1000*round + i + 1), Account: account, Resource: allocation.CPU, Amount: 20}, T0)
			}()
		}
		wg.Wait()
		passed := 0
		for _, err := range errs {
			if err == nil {
				passed++
			} else {
				mustBe(t, err, allocation.ErrInsufficient)
			}
		}
		equal(t, passed, 1, fmt.Sprint("pre-debits passed in round ", round))
		b, err := s.Balance(ctx, a.ID)
		must(t, err)
		equal(t, b.Balance, int64(10), "balance")
	}
	CheckConsistent(t, s)
}

// 64 goroutines pre-debit, complete and credit one allocation at once.
func testManyGoroutines(t *testing.T, s allocation.Store) {
	a := Fixture(t, s, "lab", 1001, 300)
	refused := Hammer(t, s, "lab", a.ID, 64, 4, 0)
	if refused == 0 {
		t.Fatal("the allocation is too small for every job; none was refused")
	}
	fs, err := s.Failures(ctx)
	must(t, err)
	equal(t, len(fs), refused, "failure records")
	CheckConsistent(t, s)
}

// Hammer runs workers goroutines of perWorker jobs each (ids from
// firstJob+1) against account's CPU allocation id: pre-debit, complete
// every other job, a few credits; it checks the balance never reads
// negative and returns how many pre-debits were refused.
func Hammer(t *testing.T, s allocation.Store, account string, id allocation.AllocationID, workers, perWorker int, firstJob allocation.JobID) int {
	t.Helper()
	var mu sync.Mutex
	refused := 0
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := range perWorker {
				job := firstJob + allocation.JobID(w*perWorker+k+1)
				_, err := s.PreDebit(ctx, allocation.PreDebitRequest{Job: job, UID: uint32(w), Account: account, Resource: allocation.CPU,
					Amount: int64(5 + (w+k)%11), Rate: 1_000_000}, T0)
				switch {
				case errors.Is(err, allocation.ErrInsufficient):
					mu.Lock()
					refused++
					mu.Unlock()
				case err != nil:
					t.Errorf("job %d: %v", job, err)
				case k%2 == 0:
					if _, err := s.Complete(ctx, allocation.Completion{Job: job, Elapsed: time.Duration(w) * time.Second, Outcome: allocation.OutcomeCompleted}, T0); err != nil {
						t.Errorf("complete %d: %v", job, err)
					}
				}
				if w%16 == 0 && k == 0 {
					if _, err := s.Credit(ctx, id, 7, "top-up", T0); err != nil {
						t.Errorf("credit: %v", err)
					}
				}
				if b, err := s.Balance(ctx, id); err != nil || b.Balance < 0 {
					t.Errorf("balance %+v, %v", b, err)
				}
			}
		}()
	}
	wg.Wait()
	return refused
}

// testTimes: a period or a now a store cannot keep (the zero time, a year
// outside 1 to 9999) is refused with ErrInvalid before anything is
// written, in every store alike.
func testTimes(t *testing.T, s allocation.Store) {
	a := Fixture(t, s, "lab", 1001, 100)
	far := time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, period := range [][2]time.Time{{T0.Add(2 * year), far}, {time.Unix(-1<<62, 0), T0}, {time.Unix(-1<<40, 0), T0.Add(-year)}} {
		_, err := s.CreateAllocation(ctx, allocation.Allocation{Project: a.Project, Category: "startup", Resource: allocation.GPU, Start: period[0], End: period[1]})
		mustBe(t, err, allocation.ErrInvalid)
		moved := a
		moved.Start, moved.End = period[0], period[1]
		_, err = s.UpdateAllocation(ctx, moved)
		mustBe(t, err, allocation.ErrInvalid)
	}
	for _, now := range []time.Time{{}, far, time.Unix(-1<<40, 0)} {
		_, err := s.Credit(ctx, a.ID, 1, "", now)
		mustBe(t, err, allocation.ErrInvalid)
		_, err = s.PreDebit(ctx, allocation.PreDebitRequest{Job: 1, Account: "lab", Resource: allocation.CPU, Amount: 1}, now)
		mustBe(t, err, allocation.ErrInvalid)
		_, err = s.Complete(ctx, allocation.Completion{Job: 1, Outcome: allocation.OutcomeCompleted}, now)
		mustBe(t, err, allocation.ErrInvalid)
		mustBe(t, s.Forget(ctx, 1, now), allocation.ErrInvalid)
	}
	h, err := s.History(ctx, a.ID)
	must(t, err)
	equal(t, len(h), 1, "activity: the fixture's credit only")
	as, err := s.Allocations(ctx)
	must(t, err)
	equal(t, len(as), 1, "allocations")
}
