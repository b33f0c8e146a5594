package sbatch

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The task-layout options are sbatch 22.05's words, in every spelling.
func TestLayoutOptions(t *testing.T) {
	for _, tc := range []struct {
		line string
		want Layout
	}{
		{"--hint=nomultithread", Layout{Hint: "nomultithread"}},
		{"--hint Compute_Bound", Layout{Hint: "compute_bound"}},
		{"--ntasks-per-socket=2 -n5", Layout{TasksPerSocket: 2}},
		{"--ntasks-per-core 1", Layout{TasksPerCore: 1}},
		{"--threads-per-core=1", Layout{ThreadsPerCore: 1}},
		{"--hint=multithread --threads-per-core=2 --ntasks-per-core=2", Layout{Hint: "multithread", ThreadsPerCore: 2, TasksPerCore: 2}},
	} {
		o, err := Parse(strings.Fields(tc.line))
		require.NoError(t, err, tc.line)
		assert.Equal(t, tc.want, o.Layout, tc.line)
	}
	for _, bad := range []string{"--hint=fast", "--hint=", "--ntasks-per-socket=0", "--ntasks-per-core=-1", "--threads-per-core=x", "--threads-per-core"} {
		_, err := Parse(strings.Fields(bad))
		assert.Error(t, err, bad)
	}
}

// With -n, --ntasks-per-node is a most per node: at least ceil(n / per
// node) nodes (recorded on Slurm 22.05.8: -n2 --ntasks-per-node=1 takes
// two nodes, -n20 --ntasks-per-node=8 three).
func TestNTasksPerNodeWithNTasks(t *testing.T) {
	for _, tc := range []struct {
		line     string
		minNodes int
	}{
		{"-n2 --ntasks-per-node=1", 2},
		{"-n20 --ntasks-per-node=8", 3},
		{"-n16 --ntasks-per-node=4", 4},
		{"-N5 -n16 --ntasks-per-node=4", 5},
		{"-N2 --ntasks-per-node=4", 2},
	} {
		o, err := Parse(strings.Fields(tc.line))
		require.NoError(t, err)
		r, err := o.Request("")
		require.NoError(t, err)
		assert.Equal(t, tc.minNodes, r.MinNodes, tc.line)
	}
}

// --mem=0 asks for the whole memory of each node; any other --mem does not.
func TestMemZeroIsWholeMemory(t *testing.T) {
	for _, tc := range []struct {
		line  string
		whole bool
	}{{"--mem=0", true}, {"--mem 0G", true}, {"--mem=1", false}, {"--mem=0 --mem=4G", false}, {"-n2", false}} {
		o, err := Parse(strings.Fields(tc.line))
		require.NoError(t, err)
		r, err := o.Request("")
		require.NoError(t, err)
		assert.Equal(t, tc.whole, r.WholeMemory, tc.line)
	}
}

// The layout options map to whole cores and a per-socket bound.
func TestLayoutRequest(t *testing.T) {
	for _, tc := range []struct {
		line      string
		cores     bool
		perSocket int
	}{
		{"-n8 --hint=nomultithread", true, 0},
		{"-n8 --threads-per-core=1", true, 0},
		{"-n8 --ntasks-per-core=1", true, 0},
		{"-n8 --hint=multithread", false, 0},
		{"-n8 --ntasks-per-core=2", false, 0},
		{"-n5 --ntasks-per-socket=2", false, 2},
		{"-n5 -c3 --ntasks-per-socket=2", false, 6},
	} {
		o, err := Parse(strings.Fields(tc.line))
		require.NoError(t, err)
		r, err := o.Request("")
		require.NoError(t, err)
		assert.Equal(t, tc.cores, r.CoreTasks, tc.line)
		assert.Equal(t, tc.perSocket, r.MaxCPUsPerSocket, tc.line)
	}
}
