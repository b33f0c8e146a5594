package slurmstate_test

import (
	"io/fs"
	"testing"
	"testing/fstest"
	"time"

	"github.com/hpcsched/hpcsched/selectnodes"
	"github.com/hpcsched/hpcsched/slurmconf"
	"github.com/hpcsched/hpcsched/slurmstate"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A node's load that no listed job explains is held in the node's first
// partition; when the live cluster names a partition the slurm.conf lacks
// (the conf is older than the cluster), it is held in the default one
// rather than refused, and the node's CPUs still count as used.
func TestUnlistedLoadInAPartitionTheConfLacks(t *testing.T) {
	site := fstest.MapFS{
		"slurm.conf": {Data: []byte("SelectType=select/cons_tres\nNodeName=n[1-2] CPUs=16 RealMemory=32000\n" +
			"PartitionName=batch Nodes=n[1-2] Default=YES\n")},
		"state/nodes.txt": {Data: []byte(
			"NodeName=n1 CPUAlloc=8 CPUTot=16 RealMemory=32000 AllocMem=0 State=MIXED Partitions=newer\n" +
				"NodeName=n2 CPUAlloc=0 CPUTot=16 RealMemory=32000 AllocMem=0 State=IDLE Partitions=batch\n")},
	}
	cfg, err := slurmconf.ParseFile(site, "slurm.conf")
	require.NoError(t, err)
	c, err := selectnodes.FromConfig(cfg)
	require.NoError(t, err)
	state, err := fs.Sub(site, "state")
	require.NoError(t, err)
	st, err := slurmstate.ReadDir(state, time.UTC, slurmstate.Limits{})
	require.NoError(t, err)
	_, err = st.Apply(c, time.Date(2026, 11, 28, 9, 0, 0, 0, time.UTC))
	require.NoError(t, err)
	assert.Equal(t, 8, c.FreeCPUs(0))
	assert.Equal(t, 16, c.FreeCPUs(1))
}
