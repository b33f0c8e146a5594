package allocation_test

import (
	"context"
	"testing"
	"time"

	"github.com/hpcsched/hpcsched/allocation"
	"github.com/hpcsched/hpcsched/allocation/storetest"
	"github.com/hpcsched/hpcsched/queue"
	"github.com/stretchr/testify/require"
)

var (
	ctx  = context.Background()
	t0   = storetest.T0
	year = 365 * 24 * time.Hour
)

// fixture is a ledger (over store, a MemStore when nil) with partitions
// "standard" (CPU) and "gpu-v100" (GPU) and project "lab" (gid 1001)
// holding a CPU allocation for 2026 credited with credit SU.
func fixture(t *testing.T, store allocation.Store, credit int64) (*allocation.Ledger, allocation.Allocation) {
	t.Helper()
	l := allocation.New(store, allocation.WithPartitions(map[string]allocation.Partition{
		"standard": {Resource: allocation.CPU},
		"gpu-v100": {Resource: allocation.GPU},
	}))
	return l, storetest.Fixture(t, l, "lab", 1001, credit)
}

func queueJob(account, partition string) *queue.Job {
	return &queue.Job{Account: account, Partition: partition}
}

// requireWholeFile checks that CheckFile finds the closed file store at
// path intact.
func requireWholeFile(t *testing.T, path string) {
	t.Helper()
	rep, err := allocation.CheckFile(path)
	require.NoError(t, err)
	require.Empty(t, rep.Damage)
}
