package queue

import (
	"bytes"
	"testing"
	"time"

	"github.com/hpcsched/hpcsched/selectnodes"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The memory defaults of a partition and a request's memory per CPU and
// --switches survive a snapshot: without them a restored scheduler would
// place the same pending job differently.
func TestSnapshotKeepsMemoryDefaultsAndSwitches(t *testing.T) {
	conf := "SelectType=select/cons_tres\nSelectTypeParameters=CR_Core_Memory\n" +
		"NodeName=n[0-3] CPUs=8 RealMemory=16000\n" +
		"PartitionName=batch Nodes=ALL Default=YES DefMemPerCPU=1000 DefMemPerNode=0\n" +
		"PartitionName=big Nodes=ALL DefMemPerNode=4000\n"
	s := New(cluster(t, conf))
	spec := Spec{Name: "j", User: "u", TimeLimit: time.Hour, Request: selectnodes.Request{
		MinNodes: 1, CPUs: 2, MemPerCPU: 1500, MaxSwitches: 2}}
	id := submit(t, s, spec, at(0))
	var buf bytes.Buffer
	require.NoError(t, s.Snapshot(&buf))
	r, err := Restore(bytes.NewReader(buf.Bytes()), cluster(t, conf))
	require.NoError(t, err)
	for _, name := range []string{"batch", "big"} {
		want, ok := s.Cluster().Partition(name)
		require.True(t, ok)
		got, ok := r.Cluster().Partition(name)
		require.True(t, ok)
		assert.Equal(t, want.DefMemPerCPU, got.DefMemPerCPU, name)
		assert.Equal(t, want.DefMemPerNode, got.DefMemPerNode, name)
	}
	batch, _ := r.Cluster().Partition("batch")
	assert.EqualValues(t, 1000, batch.DefMemPerCPU)
	big, _ := r.Cluster().Partition("big")
	assert.EqualValues(t, 4000, big.DefMemPerNode)
	j, ok := r.Job(id)
	require.True(t, ok)
	assert.EqualValues(t, 1500, j.Request.MemPerCPU)
	assert.Equal(t, 2, j.Request.MaxSwitches)
}
