package queue

import (
	"bytes"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const partitionFieldsConf = "SelectType=select/cons_res\nSelectTypeParameters=CR_Core_Memory\n" +
	"NodeName=n[0-3] CPUs=8 RealMemory=64000\n" +
	"PartitionName=batch Nodes=n[0-3] Default=YES MaxCPUsPerNode=4 LLN=YES MaxMemPerNode=32000 DefMemPerCPU=1000\n" +
	"PartitionName=plain Nodes=n[0-1]\n"

// TestRestoreKeepsEveryPartitionField: Restore puts the saved partitions
// back on the cluster with UpdatePartition, so each field the saved state
// leaves out would be reset there; MaxCPUsPerNode and LLN, set by the
// configuration or by an update, come back as they were.
func TestRestoreKeepsEveryPartitionField(t *testing.T) {
	s := New(cluster(t, partitionFieldsConf))
	plain, ok := s.Cluster().Partition("plain")
	require.True(t, ok)
	plain.MaxCPUsPerNode, plain.LLN = 2, true
	require.NoError(t, s.UpdatePartition(plain, at(0)))
	submit(t, s, Spec{TimeLimit: time.Hour, Hold: true}, at(0))
	var saved bytes.Buffer
	require.NoError(t, s.Snapshot(&saved))
	fresh := cluster(t, partitionFieldsConf)
	r, err := Restore(bytes.NewReader(saved.Bytes()), fresh)
	require.NoError(t, err)
	assert.Equal(t, s.Cluster().Partitions(), r.Cluster().Partitions())
	var again bytes.Buffer
	require.NoError(t, r.Snapshot(&again))
	assert.Equal(t, saved.String(), again.String())
}

// TestRestoreRefusesANegativeMaxCPUsPerNode: the new partition field is
// checked as the others are.
func TestRestoreRefusesANegativeMaxCPUsPerNode(t *testing.T) {
	s := New(cluster(t, partitionFieldsConf))
	var saved bytes.Buffer
	require.NoError(t, s.Snapshot(&saved))
	text := bytes.Replace(saved.Bytes(), []byte(`"max_cpus_per_node":4`), []byte(`"max_cpus_per_node":-4`), 1)
	require.NotEqual(t, saved.Bytes(), text)
	_, err := Restore(bytes.NewReader(text), cluster(t, partitionFieldsConf))
	var re *RestoreError
	require.ErrorAs(t, err, &re)
	assert.Equal(t, "partitions[0]", re.Path)
}
