package allocation_test

import (
	"strings"
	"testing"
	"time"

	"github.com/hpcsched/hpcsched/allocation"
	"github.com/hpcsched/hpcsched/allocation/storetest"
	"github.com/hpcsched/hpcsched/queue"
	"github.com/hpcsched/hpcsched/selectnodes"
	"github.com/hpcsched/hpcsched/slurmconf"
	"github.com/stretchr/testify/require"
)

// fourNodes is a 4-node, 4-CPU cluster with partitions "standard" and an
// unbilled "debug".
func fourNodes(t testing.TB) *selectnodes.Cluster {
	cfg, err := slurmconf.Parse(strings.NewReader("NodeName=n[1-4] CPUs=4 RealMemory=8192\nPartitionName=standard Nodes=ALL Default=YES\nPartitionName=debug Nodes=ALL\n"))
	require.NoError(t, err)
	c, err := selectnodes.FromConfig(cfg)
	require.NoError(t, err)
	return c
}

// scheduler is a queue with the allocation plugin over a ledger where
// "lab" (user ada's workgroup) has credit SU.
func scheduler(t *testing.T, credit int64, onShort queue.Code) (*queue.Scheduler, *allocation.Ledger, allocation.Allocation) {
	l, a := fixture(t, nil, credit)
	p := &allocation.QueuePlugin{
		Ledger:    l,
		Workgroup: func(u string) (string, bool) { return map[string]string{"ada": "lab"}[u], u == "ada" },
		UID:       func(u string) (uint32, bool) { return 1001, u == "ada" },
		OnShort:   onShort,
		OnError:   func(id queue.JobID, err error) { t.Errorf("job %d: %v", id, err) },
	}
	return queue.New(fourNodes(t), queue.WithPlugins(p)), l, a
}

func TestPluginSubmitFilter(t *testing.T) {
	s, _, _ := scheduler(t, 1000, queue.Hold)
	ok := queue.Spec{User: "ada", Request: selectnodes.Request{Partition: "standard", MinNodes: 1}, TimeLimit: time.Hour}
	id, err := s.Submit(ok, t0)
	require.NoError(t, err)
	j, _ := s.Job(id)
	require.Equal(t, "lab", j.Account, "the account defaults to the workgroup")
	require.Equal(t, time.Hour, j.TimeMin, "--time-min defaults to the time limit")
	short := ok
	short.TimeMin = 10 * time.Minute
	id, err = s.Submit(short, t0)
	require.NoError(t, err)
	j, _ = s.Job(id)
	require.Equal(t, 10*time.Minute, j.TimeMin, "a --time-min given is kept")
	for _, tc := range []struct {
		name string
		edit func(*queue.Spec)
		want string
	}{
		{"no time limit", func(s *queue.Spec) { s.TimeLimit = 0 }, "time limit is required"},
		{"no partition", func(s *queue.Spec) { s.Request.Partition = "" }, "exactly one partition"},
		{"two partitions", func(s *queue.Spec) { s.Request.Partition = "standard,debug" }, "exactly one partition"},
		{"unbilled partition", func(s *queue.Spec) { s.Request.Partition = "debug" }, "bills no allocation"},
		{"other account", func(s *queue.Spec) { s.Account = "other" }, `account "other" is not the workgroup "lab"`},
		{"unknown user", func(s *queue.Spec) { s.User = "bob" }, "an account is required"},
	} {
		spec := ok
		tc.edit(&spec)
		_, err := s.Submit(spec, t0)
		require.ErrorIs(t, err, queue.ErrRefused, tc.name)
		require.ErrorContains(t, err, tc.want, tc.name)
	}
}

func TestPluginPreDebitsOnStartAndDebitsOnEnd(t *testing.T) {
	s, l, a := scheduler(t, 500, queue.Hold)
	spec := queue.Spec{User: "ada", Request: selectnodes.Request{Partition: "standard", MinNodes: 1, CPUs: 4}, TimeLimit: time.Hour}
	first, err := s.Submit(spec, t0)
	require.NoError(t, err)
	second, err := s.Submit(spec, t0) // 240 SU each against 500: the third is short
	require.NoError(t, err)
	third, err := s.Submit(spec, t0)
	require.NoError(t, err)
	started := s.Schedule(t0)
	require.Len(t, started, 2)
	j, _ := s.Job(third)
	require.True(t, j.Held)
	require.Equal(t, "allocation: job 3 needs 240 SU but allocation 1 has 20", j.ReasonDetail)
	fs, _ := l.Failures(ctx)
	require.Len(t, fs, 1)

	require.NoError(t, s.Finish(first, queue.Outcome{Kind: queue.Completed}, t0.Add(10*time.Minute)))
	require.NoError(t, s.SetNodeState(mustJob(t, s, second).Placement.Names[0], selectnodes.NodeDown, t0.Add(20*time.Minute)))
	b, err := l.Balance(ctx, a.ID)
	require.NoError(t, err)
	require.Equal(t, allocation.Balance{Allocation: a.ID, Credits: 500, Debited: 40, Balance: 460}, b,
		"4 cores x 10 min billed, the node failure billed nothing")
	ds, _ := l.Debits(ctx, a.ID)
	require.Equal(t, []allocation.OwnerDebit{{Allocation: a.ID, UID: 1001, Amount: 40, Jobs: 2}}, ds)
	storetest.CheckConsistent(t, l)
}

func mustJob(t *testing.T, s *queue.Scheduler, id queue.JobID) queue.Job {
	j, ok := s.Job(id)
	require.True(t, ok)
	return j
}

func TestPluginFailsShortJobsWhenConfigured(t *testing.T) {
	s, _, _ := scheduler(t, 100, queue.Fail)
	id, err := s.Submit(queue.Spec{User: "ada", Request: selectnodes.Request{Partition: "standard", MinNodes: 1, CPUs: 4}, TimeLimit: time.Hour}, t0)
	require.NoError(t, err)
	require.Empty(t, s.Schedule(t0))
	j := mustJob(t, s, id)
	require.Equal(t, queue.Failed, j.State)
	require.Equal(t, "allocation: job 1 needs 240 SU but allocation 1 has 100", j.ReasonDetail)
}

// A requeued job pays for its first run and is pre-debited again for the
// next.
func TestPluginRequeueBillsEachRun(t *testing.T) {
	s, l, a := scheduler(t, 1000, queue.Hold)
	id, err := s.Submit(queue.Spec{User: "ada", Request: selectnodes.Request{Partition: "standard", MinNodes: 1, CPUs: 2}, TimeLimit: time.Hour}, t0)
	require.NoError(t, err)
	require.Len(t, s.Schedule(t0), 1)
	require.NoError(t, s.Requeue(id, t0.Add(30*time.Minute)))
	require.Len(t, s.Schedule(t0.Add(31*time.Minute)), 1)
	b, _ := l.Balance(ctx, a.ID)
	// select/linear allocates whole nodes: 4 CPUs are billed, not 2.
	require.Equal(t, allocation.Balance{Allocation: a.ID, Credits: 1000, Debited: 120, Pending: 240, Balance: 640}, b)
	require.NoError(t, s.Finish(id, queue.Outcome{Kind: queue.Completed}, t0.Add(61*time.Minute)))
	b, _ = l.Balance(ctx, a.ID)
	require.Equal(t, int64(1000-120-120), b.Balance)
	storetest.CheckConsistent(t, l)
}

func TestPlacementUsage(t *testing.T) {
	u := allocation.PlacementUsage(&selectnodes.Placement{Alloc: []selectnodes.NodeAlloc{
		{CPUs: 4, Memory: 1024, GRES: []selectnodes.GRESAlloc{{Name: "gpu", Count: 2}, {Name: "nic", Count: 1}}},
		{CPUs: 2, Memory: 512},
	}})
	require.Equal(t, allocation.Usage{CPUs: 6, MemoryMB: 1536, GPUs: 2}, u)
	require.Equal(t, allocation.Usage{CPUs: 8}, allocation.PlacementUsage(&selectnodes.Placement{TotalCPUs: 8}))
}

// The zero QueuePlugin names its missing Ledger instead of a bare nil
// dereference.
func TestZeroQueuePluginNamesTheMissingLedger(t *testing.T) {
	var p allocation.QueuePlugin
	st := p.Admit(t.Context(), &queue.Spec{TimeLimit: time.Hour}, time.Time{})
	require.NotNil(t, st)
	require.Contains(t, st.Message(), "Ledger field is nil")
	st = p.Reserve(t.Context(), &queue.Job{}, &selectnodes.Placement{}, time.Time{})
	require.NotNil(t, st)
	require.Contains(t, st.Message(), "Ledger field is nil")
	require.PanicsWithValue(t, "allocation.QueuePlugin: the Ledger field is nil (the zero value bills nothing; set Ledger)", func() {
		p.Release(t.Context(), &queue.Job{}, queue.JobEnd{}, time.Time{})
	})
	var reported error
	p.OnError = func(_ queue.JobID, err error) { reported = err }
	p.Release(t.Context(), &queue.Job{}, queue.JobEnd{}, time.Time{})
	require.ErrorContains(t, reported, "Ledger field is nil")
}
