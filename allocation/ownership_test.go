package allocation_test

import (
	"testing"
	"time"

	"github.com/hpcsched/hpcsched/allocation"
	"github.com/stretchr/testify/require"
)

// The partitions a Ledger bills by are its own: the Weights given to
// WithPartitions and those Partition hands out are copies, so changing
// them afterwards changes no bill.
func TestPartitionWeightsAreNotShared(t *testing.T) {
	w := &allocation.Weights{CPU: 1}
	in := map[string]allocation.Partition{"p": {Resource: allocation.CPU, Weights: w}}
	l := allocation.New(nil, allocation.WithPartitions(in))
	start := allocation.JobStart{Job: 1, Account: "lab", Partition: "p", Usage: allocation.Usage{CPUs: 2}, TimeLimit: time.Hour}
	before, err := l.Charge(start)
	require.NoError(t, err)

	w.CPU = 100
	in["p"] = allocation.Partition{Resource: allocation.GPU}
	got, err := l.Partition("p")
	require.NoError(t, err)
	got.Weights.CPU = 55

	after, err := l.Charge(start)
	require.NoError(t, err)
	require.Equal(t, before, after)
	again, err := l.Partition("p")
	require.NoError(t, err)
	require.Equal(t, allocation.Partition{Resource: allocation.CPU, Weights: &allocation.Weights{CPU: 1}}, again)
}

// A nil Option panics naming itself, not with a nil function call.
func TestNewPanicsNamingANilOption(t *testing.T) {
	require.PanicsWithValue(t, "allocation.New: option 1 is nil", func() {
		allocation.New(nil, allocation.WithPartitions(nil), nil)
	})
}
