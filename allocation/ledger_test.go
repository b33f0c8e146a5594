package allocation_test

import (
	"testing"
	"time"

	"github.com/hpcsched/hpcsched/allocation"
	"github.com/hpcsched/hpcsched/allocation/storetest"
	"github.com/hpcsched/hpcsched/queue"
	"github.com/stretchr/testify/require"
)

// Through the Ledger: the SU come from the partition and the time limit.
func TestPreDebitRefusesOverdraftAndRecordsFailure(t *testing.T) {
	l, a := fixture(t, nil, 100)
	start := allocation.JobStart{Job: 1, UID: 500, Account: "lab", Partition: "standard", Usage: allocation.Usage{CPUs: 2}, TimeLimit: 30 * time.Minute}
	j, err := l.PreDebitJob(ctx, start, t0.Add(time.Hour))
	require.NoError(t, err)
	require.Equal(t, int64(60), j.Amount)
	require.Equal(t, allocation.Executing, j.Status)

	start.Job = 2 // another 60 SU against 40
	_, err = l.PreDebitJob(ctx, start, t0.Add(time.Hour))
	var ie *allocation.InsufficientError
	require.ErrorAs(t, err, &ie)
	require.ErrorIs(t, err, allocation.ErrInsufficient)
	require.Equal(t, allocation.InsufficientError{Job: 2, Allocation: a.ID, Amount: 60, Balance: 40}, *ie)
	fs, err := l.Failures(ctx)
	require.NoError(t, err)
	require.Len(t, fs, 1)
	require.Equal(t, allocation.JobID(2), fs[0].Job)
	require.Equal(t, int64(40), fs[0].Balance)

	// A retry of the refused job is refused again without a second record.
	_, err = l.PreDebitJob(ctx, start, t0.Add(2*time.Hour))
	require.ErrorIs(t, err, allocation.ErrInsufficient)
	fs, _ = l.Failures(ctx)
	require.Len(t, fs, 1)
	storetest.CheckConsistent(t, l)
}

func TestPreDebitNeedsLimitPartitionAndAllocation(t *testing.T) {
	l, _ := fixture(t, nil, 100)
	ok := allocation.JobStart{Job: 1, Account: "lab", Partition: "standard", Usage: allocation.Usage{CPUs: 1}, TimeLimit: time.Minute}
	for _, tc := range []struct {
		name string
		edit func(*allocation.JobStart)
		at   time.Time
		want error
	}{
		{"no time limit", func(j *allocation.JobStart) { j.TimeLimit = 0 }, t0, allocation.ErrInvalid},
		{"unknown partition", func(j *allocation.JobStart) { j.Partition = "debug" }, t0, allocation.ErrInvalid},
		{"unknown account", func(j *allocation.JobStart) { j.Account = "other" }, t0, allocation.ErrNoAllocation},
		{"no allocation.GPU allocation", func(j *allocation.JobStart) { j.Partition = "gpu-v100" }, t0, allocation.ErrNoAllocation},
		{"before the period", func(*allocation.JobStart) {}, t0.Add(-time.Second), allocation.ErrNoAllocation},
		{"after the period", func(*allocation.JobStart) {}, t0.Add(year), allocation.ErrNoAllocation},
		{"job id 0", func(j *allocation.JobStart) { j.Job = 0 }, t0, allocation.ErrInvalid},
	} {
		t.Run(tc.name, func(t *testing.T) {
			j := ok
			tc.edit(&j)
			// A job start is refused before the Store: the zero Ledger bills no partition.
			_, err := l.PreDebitJob(ctx, j, tc.at)
			require.ErrorIs(t, err, tc.want)
		})
	}
	fs, err := l.Failures(ctx)
	require.NoError(t, err)
	require.Empty(t, fs, "only a short balance is a failure")
}

func TestSiteFactorPrefersCreditAndNearExpiry(t *testing.T) {
	l, _ := fixture(t, nil, 1000)
	// "late" expires in a quarter of the time of "lab"'s allocation.
	p, err := l.CreateProject(ctx, allocation.Project{Name: "late", GID: 1002, Account: "late"})
	require.NoError(t, err)
	b, err := l.CreateAllocation(ctx, allocation.Allocation{Project: p.ID, Resource: allocation.CPU, Start: t0, End: t0.Add(year / 4)})
	require.NoError(t, err)
	_, err = l.Credit(ctx, b.ID, 1000, "", t0)
	require.NoError(t, err)
	_, err = l.PreDebitJob(ctx, allocation.JobStart{Job: 1, Account: "lab", Partition: "standard", Usage: allocation.Usage{CPUs: 10}, TimeLimit: 75 * time.Minute}, t0) // 750 of 1000
	require.NoError(t, err)

	sf, err := l.SiteFactors(ctx, allocation.PowerRule{NCredit: 1, NTemporal: 1}, t0)
	require.NoError(t, err)
	lab := sf.Factor(queueJob("lab", "standard"), t0)
	late := sf.Factor(queueJob("late", "standard"), t0)
	require.Equal(t, 0.0, lab, "lab's allocation expires last: f_temporal 0")
	require.InDelta(t, 0.75, late, 1e-9, "full credit, f_temporal 3/4")
	mid := t0.Add(year / 8)
	require.InDelta(t, 6.0/7, sf.Factor(queueJob("late", "standard"), mid), 1e-9, "f_temporal 1 - (1/8)/(7/8)")
	require.Equal(t, 0.0, sf.Factor(queueJob("lab", "gpu-v100"), t0), "no allocation.GPU allocation")
	require.Equal(t, 0.0, sf.Factor(queueJob("lab", "nowhere"), t0))
	require.Equal(t, 0.0, sf.Factor(queueJob("late", "standard"), t0.Add(year/2)), "expired")
}

// A site's categories: an allocation must name one, and its total credit
// stays within the category's limit.
func TestCategoriesEnforced(t *testing.T) {
	cats, err := allocation.ParseCategories("startup=1000, research=0")
	require.NoError(t, err)
	l := allocation.New(nil, allocation.WithCategories(cats))
	ctx := t.Context()
	p, err := l.CreateProject(ctx, allocation.Project{Name: "lab", Account: "lab"})
	require.NoError(t, err)
	_, err = l.CreateAllocation(ctx, allocation.Allocation{Project: p.ID, Category: "hobby", Resource: allocation.CPU, Start: t0, End: t0.AddDate(1, 0, 0)})
	require.ErrorIs(t, err, allocation.ErrInvalid)
	a, err := l.CreateAllocation(ctx, allocation.Allocation{Project: p.ID, Category: "startup", Resource: allocation.CPU, Start: t0, End: t0.AddDate(1, 0, 0)})
	require.NoError(t, err)
	_, err = l.Credit(ctx, a.ID, 800, "", t0)
	require.NoError(t, err)
	_, err = l.Credit(ctx, a.ID, 201, "", t0)
	require.ErrorContains(t, err, "limit of 1000")
	_, err = l.Credit(ctx, a.ID, 200, "", t0)
	require.NoError(t, err)
	g, err := l.CreateAllocation(ctx, allocation.Allocation{Project: p.ID, Category: "research", Resource: allocation.GPU, Start: t0, End: t0.AddDate(1, 0, 0)})
	require.NoError(t, err)
	_, err = l.Credit(ctx, g.ID, 1<<40, "", t0)
	require.NoError(t, err, "0: no limit")
	for _, bad := range []string{"", "startup", "startup=-1", "=5", "a=1,a=2", "a=1e3", "a=5k", "a=10 SU", "a=0x10", "a=9223372036854775808"} {
		_, err := allocation.ParseCategories(bad)
		require.ErrorIs(t, err, allocation.ErrInvalid, bad)
	}
}

// Zero values: the zero MemStore is an empty store; a nil SiteFactors
// or job has no factor.
func TestZeroValues(t *testing.T) {
	var m allocation.MemStore
	ps, err := m.Projects(ctx)
	require.NoError(t, err)
	require.Empty(t, ps)
	p, err := m.CreateProject(ctx, allocation.Project{Name: "a", Account: "a"})
	require.NoError(t, err)
	require.Equal(t, allocation.ProjectID(1), p.ID)
	var sf *allocation.SiteFactors
	_, ok := sf.Of("a", "standard", t0)
	require.False(t, ok)
	require.Zero(t, sf.Factor(&queue.Job{Account: "a"}, t0))
	l, _ := fixture(t, nil, 10)
	real, err := l.SiteFactors(ctx, nil, t0)
	require.NoError(t, err)
	require.Zero(t, real.Factor(nil, t0))
}

// A Ledger made without New panics naming the method and New, not with a
// bare nil dereference.
func TestZeroLedgerPanicsNamingNew(t *testing.T) {
	var l allocation.Ledger
	for name, call := range map[string]func(){
		"Balances":      func() { l.Balances(ctx) },
		"Credit":        func() { l.Credit(ctx, 1, 1, "", t0) },
		"CreateProject": func() { l.CreateProject(ctx, allocation.Project{}) },
		"Projects":      func() { l.SiteFactors(ctx, nil, t0) },
		"CompleteJob":   func() { l.CompleteJob(ctx, 1, time.Minute, allocation.OutcomeCompleted, t0) },
	} {
		want := "allocation: Ledger." + name + " on a Ledger without a Store: use allocation.New"
		if name == "CompleteJob" {
			want = "allocation: Ledger.Complete on a Ledger without a Store: use allocation.New"
		}
		require.PanicsWithValue(t, want, call, name)
	}
	// A job start is refused before the Store: the zero Ledger bills no partition.
	_, err := l.PreDebitJob(ctx, allocation.JobStart{Job: 1, TimeLimit: time.Hour, Partition: "p"}, t0)
	require.ErrorIs(t, err, allocation.ErrInvalid)
}
