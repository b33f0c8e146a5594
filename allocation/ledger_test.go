package allocation

import (
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestAllocationsOfOneProjectAndResourceNeverOverlap(t *testing.T) {
	l, a := fixture(t, nil, 0)
	for _, tc := range []struct {
		name       string
		start, end time.Time
		resource   Resource
		wantErr    error
	}{
		{"inside", t0.Add(time.Hour), t0.Add(2 * time.Hour), CPU, ErrOverlap},
		{"covering", t0.Add(-time.Hour), t0.Add(2 * year), CPU, ErrOverlap},
		{"tail", t0.Add(year - time.Hour), t0.Add(2 * year), CPU, ErrOverlap},
		{"head", t0.Add(-year), t0.Add(time.Hour), CPU, ErrOverlap},
		{"after", t0.Add(year), t0.Add(2 * year), CPU, nil},
		{"before", t0.Add(-year), t0, CPU, nil},
		{"other resource", t0, t0.Add(year), GPU, nil},
		{"empty period", t0.Add(3 * year), t0.Add(3 * year), CPU, ErrInvalid},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := l.CreateAllocation(ctx, Allocation{Project: a.Project, Resource: tc.resource, Start: tc.start, End: tc.end})
			if tc.wantErr == nil {
				require.NoError(t, err)
				return
			}
			require.ErrorIs(t, err, tc.wantErr)
			var oe *OverlapError
			if errors.Is(err, ErrOverlap) {
				require.ErrorAs(t, err, &oe)
				require.Equal(t, a.ID, oe.Existing.ID)
			}
		})
	}
	// An update may not create an overlap either, but may move itself.
	next, err := l.ActiveAllocation(ctx, "lab", CPU, t0.Add(year+time.Hour))
	require.NoError(t, err)
	next.Start = t0.Add(year - time.Hour)
	_, err = l.UpdateAllocation(ctx, next)
	require.ErrorIs(t, err, ErrOverlap)
	a.End = t0.Add(year - 24*time.Hour)
	_, err = l.UpdateAllocation(ctx, a)
	require.NoError(t, err)
	_, err = l.ActiveAllocation(ctx, "lab", CPU, t0.Add(year-time.Hour))
	require.ErrorIs(t, err, ErrNoAllocation)
}

func TestPreDebitRefusesOverdraftAndRecordsFailure(t *testing.T) {
	l, a := fixture(t, nil, 100)
	start := JobStart{Job: 1, UID: 500, Account: "lab", Partition: "standard", Usage: Usage{CPUs: 2}, TimeLimit: 30 * time.Minute}
	j, err := l.PreDebitJob(ctx, start, t0.Add(time.Hour))
	require.NoError(t, err)
	require.Equal(t, int64(60), j.Amount)
	require.Equal(t, Executing, j.Status)

	start.Job = 2 // another 60 SU against 40
	_, err = l.PreDebitJob(ctx, start, t0.Add(time.Hour))
	var ie *InsufficientError
	require.ErrorAs(t, err, &ie)
	require.ErrorIs(t, err, ErrInsufficient)
	require.Equal(t, InsufficientError{Job: 2, Allocation: a.ID, Amount: 60, Balance: 40}, *ie)
	fs, err := l.Failures(ctx)
	require.NoError(t, err)
	require.Len(t, fs, 1)
	require.Equal(t, JobID(2), fs[0].Job)
	require.Equal(t, int64(40), fs[0].Balance)

	// A retry of the refused job is refused again without a second record.
	_, err = l.PreDebitJob(ctx, start, t0.Add(2*time.Hour))
	require.ErrorIs(t, err, ErrInsufficient)
	fs, _ = l.Failures(ctx)
	require.Len(t, fs, 1)
	requireConsistent(t, l)
}

func TestPreDebitNeedsLimitPartitionAndAllocation(t *testing.T) {
	l, _ := fixture(t, nil, 100)
	ok := JobStart{Job: 1, Account: "lab", Partition: "standard", Usage: Usage{CPUs: 1}, TimeLimit: time.Minute}
	for _, tc := range []struct {
		name string
		edit func(*JobStart)
		at   time.Time
		want error
	}{
		{"no time limit", func(j *JobStart) { j.TimeLimit = 0 }, t0, ErrInvalid},
		{"unknown partition", func(j *JobStart) { j.Partition = "debug" }, t0, ErrInvalid},
		{"unknown account", func(j *JobStart) { j.Account = "other" }, t0, ErrNoAllocation},
		{"no GPU allocation", func(j *JobStart) { j.Partition = "gpu-v100" }, t0, ErrNoAllocation},
		{"before the period", func(*JobStart) {}, t0.Add(-time.Second), ErrNoAllocation},
		{"after the period", func(*JobStart) {}, t0.Add(year), ErrNoAllocation},
		{"job id 0", func(j *JobStart) { j.Job = 0 }, t0, ErrInvalid},
	} {
		t.Run(tc.name, func(t *testing.T) {
			j := ok
			tc.edit(&j)
			_, err := l.PreDebitJob(ctx, j, tc.at)
			require.ErrorIs(t, err, tc.want)
		})
	}
	fs, err := l.Failures(ctx)
	require.NoError(t, err)
	require.Empty(t, fs, "only a short balance is a failure")
}

func TestCompleteDebitsActualReturnsRestAndNodeFailBillsZero(t *testing.T) {
	l, a := fixture(t, nil, 1000)
	for id, tc := range []struct {
		elapsed time.Duration
		outcome Outcome
		debited int64
	}{
		{10*time.Minute + time.Second, OutcomeCompleted, 21}, // 2 cores x 601 s = 1202 core-seconds: 20.03 -> 21
		{time.Hour, OutcomeTimeout, 120},
		{2 * time.Hour, OutcomeTimeout, 120}, // past the limit: at most the pre-debit
		{50 * time.Minute, OutcomeNodeFail, 0},
		{0, OutcomeCancelled, 0},
	} {
		jid := JobID(id + 1)
		_, err := l.PreDebitJob(ctx, JobStart{Job: jid, UID: 7, Account: "lab", Partition: "standard", Usage: Usage{CPUs: 2}, TimeLimit: time.Hour}, t0)
		require.NoError(t, err)
		b, _ := l.Balance(ctx, a.ID)
		require.Equal(t, int64(120), b.Pending)
		want := tc.debited
		j, err := l.CompleteJob(ctx, jid, tc.elapsed, tc.outcome, t0.Add(tc.elapsed))
		require.NoError(t, err)
		require.Equal(t, want, j.Debited, "%s %s", tc.elapsed, tc.outcome)
		require.Equal(t, Completed, j.Status)
		b, _ = l.Balance(ctx, a.ID)
		require.Zero(t, b.Pending)
	}
	b, err := l.Balance(ctx, a.ID)
	require.NoError(t, err)
	require.Equal(t, Balance{Allocation: a.ID, Credits: 1000, Debited: 261, Balance: 739}, b)
	ds, err := l.Debits(ctx, a.ID)
	require.NoError(t, err)
	require.Equal(t, []OwnerDebit{{Allocation: a.ID, UID: 7, Amount: 261, Jobs: 5}}, ds)
	requireConsistent(t, l)
}

func TestRetriesChangeNothingTwice(t *testing.T) {
	l, a := fixture(t, nil, 1000)
	start := JobStart{Job: 9, UID: 7, Account: "lab", Partition: "standard", Usage: Usage{CPUs: 4}, TimeLimit: time.Hour}
	first, err := l.PreDebitJob(ctx, start, t0)
	require.NoError(t, err)
	again, err := l.PreDebitJob(ctx, start, t0.Add(time.Minute))
	require.NoError(t, err)
	require.Equal(t, first, again)
	h, _ := l.History(ctx, a.ID)
	require.Len(t, h, 2) // credit, pre-debit

	start.Usage.CPUs = 8
	_, err = l.PreDebitJob(ctx, start, t0)
	require.ErrorIs(t, err, ErrConflict)

	done, err := l.CompleteJob(ctx, 9, 30*time.Minute, OutcomeCompleted, t0.Add(30*time.Minute))
	require.NoError(t, err)
	redo, err := l.CompleteJob(ctx, 9, 30*time.Minute, OutcomeCompleted, t0.Add(31*time.Minute))
	require.NoError(t, err)
	require.Equal(t, done, redo)
	_, err = l.CompleteJob(ctx, 9, 40*time.Minute, OutcomeCompleted, t0.Add(40*time.Minute))
	require.ErrorIs(t, err, ErrConflict)
	_, err = l.PreDebitJob(ctx, JobStart{Job: 9, UID: 7, Account: "lab", Partition: "standard", Usage: Usage{CPUs: 4}, TimeLimit: time.Hour}, t0)
	require.NoError(t, err, "a retried start of a finished job returns its record")
	h, _ = l.History(ctx, a.ID)
	require.Len(t, h, 4) // credit, pre-debit, release, debit
	b, _ := l.Balance(ctx, a.ID)
	require.Equal(t, int64(1000-120), b.Balance)
	_, err = l.CompleteJob(ctx, 404, time.Minute, OutcomeCompleted, t0)
	require.ErrorIs(t, err, ErrNotFound)
	requireConsistent(t, l)
}

// Seed 002: a job straddling two allocation periods pre-debits the earlier
// and its actual debit goes to the same.
func TestJobStraddlingTwoPeriodsBillsTheEarlier(t *testing.T) {
	l, first := fixture(t, nil, 1000)
	second, err := l.CreateAllocation(ctx, Allocation{Project: first.Project, Resource: CPU, Start: t0.Add(year), End: t0.Add(2 * year)})
	require.NoError(t, err)
	_, err = l.Credit(ctx, second.ID, 1000, "renewal", t0.Add(year))
	require.NoError(t, err)
	start := t0.Add(year - time.Hour)
	j, err := l.PreDebitJob(ctx, JobStart{Job: 1, Account: "lab", Partition: "standard", Usage: Usage{CPUs: 1}, TimeLimit: 3 * time.Hour}, start)
	require.NoError(t, err)
	require.Equal(t, first.ID, j.Allocation)
	j, err = l.CompleteJob(ctx, 1, 2*time.Hour, OutcomeCompleted, start.Add(2*time.Hour))
	require.NoError(t, err)
	require.Equal(t, first.ID, j.Allocation)
	b1, _ := l.Balance(ctx, first.ID)
	b2, _ := l.Balance(ctx, second.ID)
	require.Equal(t, int64(1000-120), b1.Balance)
	require.Equal(t, int64(1000), b2.Balance)
}

func TestDeletesRefuseRecordsInUse(t *testing.T) {
	l, a := fixture(t, nil, 10)
	require.ErrorIs(t, l.DeleteProject(ctx, a.Project), ErrConflict)
	require.ErrorIs(t, l.DeleteAllocation(ctx, a.ID), ErrConflict)
	empty, err := l.CreateAllocation(ctx, Allocation{Project: a.Project, Resource: GPU, Start: t0, End: t0.Add(year)})
	require.NoError(t, err)
	require.NoError(t, l.DeleteAllocation(ctx, empty.ID))
	_, err = l.Allocation(ctx, empty.ID)
	require.ErrorIs(t, err, ErrNotFound)
	p2, err := l.CreateProject(ctx, Project{Name: "b", Account: "b"})
	require.NoError(t, err)
	_, err = l.CreateProject(ctx, Project{Name: "c", Account: "b"})
	require.ErrorIs(t, err, ErrConflict, "accounts are unique")
	require.NoError(t, l.DeleteProject(ctx, p2.ID))
	_, err = l.Credit(ctx, a.ID, 0, "", t0)
	require.ErrorIs(t, err, ErrInvalid)
	_, err = l.Credit(ctx, 99, 5, "", t0)
	require.ErrorIs(t, err, ErrNotFound)
}

func TestSiteFactorPrefersCreditAndNearExpiry(t *testing.T) {
	l, _ := fixture(t, nil, 1000)
	// "late" expires in a quarter of the time of "lab"'s allocation.
	p, err := l.CreateProject(ctx, Project{Name: "late", GID: 1002, Account: "late"})
	require.NoError(t, err)
	b, err := l.CreateAllocation(ctx, Allocation{Project: p.ID, Resource: CPU, Start: t0, End: t0.Add(year / 4)})
	require.NoError(t, err)
	_, err = l.Credit(ctx, b.ID, 1000, "", t0)
	require.NoError(t, err)
	_, err = l.PreDebitJob(ctx, JobStart{Job: 1, Account: "lab", Partition: "standard", Usage: Usage{CPUs: 10}, TimeLimit: 75 * time.Minute}, t0) // 750 of 1000
	require.NoError(t, err)

	sf, err := l.SiteFactors(ctx, PowerRule{NCredit: 1, NTemporal: 1}, t0)
	require.NoError(t, err)
	lab := sf.Factor(queueJob("lab", "standard"), t0)
	late := sf.Factor(queueJob("late", "standard"), t0)
	require.Equal(t, 0.0, lab, "lab's allocation expires last: f_temporal 0")
	require.InDelta(t, 0.75, late, 1e-9, "full credit, f_temporal 3/4")
	mid := t0.Add(year / 8)
	require.InDelta(t, 6.0/7, sf.Factor(queueJob("late", "standard"), mid), 1e-9, "f_temporal 1 - (1/8)/(7/8)")
	require.Equal(t, 0.0, sf.Factor(queueJob("lab", "gpu-v100"), t0), "no GPU allocation")
	require.Equal(t, 0.0, sf.Factor(queueJob("lab", "nowhere"), t0))
	require.Equal(t, 0.0, sf.Factor(queueJob("late", "standard"), t0.Add(year/2)), "expired")
}
