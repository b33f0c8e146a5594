package check

import (
	"strings"
	"testing"
	"time"

	"github.com/hpcsched/hpcsched/selectnodes"
	"github.com/hpcsched/hpcsched/slurmconf"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func smallSite(t *testing.T) *Site {
	t.Helper()
	cfg, err := slurmconf.Parse(strings.NewReader("NodeName=n[1-4] CPUs=4\nPartitionName=p Nodes=ALL Default=YES\n"))
	require.NoError(t, err)
	s, err := NewSite(cfg, Options{})
	require.NoError(t, err)
	return s
}

// A nil or zero Site answers every method with an error naming NewSite
// instead of a nil-pointer panic deep in the cluster; a nil Answer has no
// class and no explanation.
func TestSiteNotMadeByNewSite(t *testing.T) {
	for name, s := range map[string]*Site{"nil": nil, "zero": {}, "cluster only": {Cluster: smallSite(t).Cluster}} {
		_, err := s.Ask("-N1")
		assert.ErrorContains(t, err, "NewSite", name)
		_, err = s.WillRun("-N1")
		assert.ErrorContains(t, err, "NewSite", name)
		assert.ErrorContains(t, s.Run("n1"), "NewSite", name)
		assert.ErrorContains(t, s.SetState("n1", selectnodes.NodeDown), "NewSite", name)
		assert.ErrorContains(t, s.Reserve("n1", time.Time{}, time.Time{}.Add(time.Hour)), "NewSite", name)
		assert.Nil(t, s.Explain(&Answer{}), name)
	}
	s := smallSite(t)
	_, err := s.AskOptions(nil, selectnodes.RunNow)
	assert.ErrorContains(t, err, "nil *sbatch.Options")
	assert.Nil(t, s.Explain(nil))
	var a *Answer
	assert.Empty(t, a.Class())
}

// A hostlist naming a node the site lacks changes no node: the ones
// before it in the list stay as they were.
func TestSetStateIsAllOrNothing(t *testing.T) {
	s := smallSite(t)
	err := s.SetState("n[1-2],nosuch", selectnodes.NodeDown)
	assert.ErrorContains(t, err, "nosuch")
	a, err := s.Ask("-N4")
	require.NoError(t, err)
	assert.Equal(t, "n[1-4]", a.Nodes, "n1 and n2 are still up")
}

// A case that could not run is recorded with the expectation it had,
// after a comment saying why, so the recording reads back as a table.
func TestLineOfACaseThatCouldNotRun(t *testing.T) {
	res := Result{Case: Case{Line: 3, Conf: "a.conf", Load: "-", Request: "-N1", Expected: "n[1-2]"},
		Got: "ERROR: a.conf: no such file\nor directory"}
	line := res.Line()
	assert.True(t, strings.HasPrefix(line, "# could not run: ERROR: a.conf: no such file or directory\n"), line)
	cases, err := ReadTable(strings.NewReader(line+"\n"), "rec.tsv")
	require.NoError(t, err)
	require.Len(t, cases, 1)
	assert.Equal(t, Case{Line: 2, Conf: "a.conf", Load: "-", Request: "-N1", Expected: "n[1-2]"}, cases[0])
}

// An expected hostlist that names a node twice means the same set of
// nodes: "n[1-2],n1" matches a placement on n[1-2].
func TestExpectedHostlistIsASet(t *testing.T) {
	a := &Answer{Nodes: "n[1-2]", Names: []string{"n1", "n2"}}
	assert.True(t, matches("n[1-2],n1", a))
	assert.True(t, matches("n2,n1", a))
	assert.False(t, matches("n[1-3],n1", a))
	assert.False(t, matches("n1,n1", a))
}

// A request for no time limit (-t INFINITE, or 0) is above a partition's
// finite MaxTime: Slurm holds it (PartitionTimeLimit), a part_config
// answer here; a partition without MaxTime runs it.
func TestNoTimeLimitAgainstMaxTime(t *testing.T) {
	cfg, err := slurmconf.Parse(strings.NewReader("NodeName=n[1-4] CPUs=4\n" +
		"PartitionName=short Nodes=n[1-2] Default=YES MaxTime=2:00:00\nPartitionName=open Nodes=n[3-4]\n"))
	require.NoError(t, err)
	s, err := NewSite(cfg, Options{})
	require.NoError(t, err)
	for _, line := range []string{"-t INFINITE", "-t 0", "-t UNLIMITED -N1"} {
		a, err := s.Ask(line)
		require.NoError(t, err, line)
		assert.Equal(t, "part_config", a.Class(), line)
		assert.ErrorContains(t, a.Err, "time limit UNLIMITED is above partition short MaxTime 2:00:00", line)
		a, err = s.Ask(line + " -p open")
		require.NoError(t, err, line)
		assert.NoError(t, a.Err, line)
	}
	a, err := s.Ask("-N1")
	require.NoError(t, err)
	assert.NoError(t, a.Err, "no -t: the partition's default")
}
