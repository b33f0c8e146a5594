package slurmstate

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/hpcsched/hpcsched/position"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseNodeLine(t *testing.T) {
	line := "NodeName=n01 Arch=x86_64 CoresPerSocket=1 CPUAlloc=6 CPUEfctv=16 CPUTot=16 CPULoad=0.00 " +
		"AvailableFeatures=a,ib ActiveFeatures=a,ib Gres=(null) RealMemory=32000 AllocMem=6000 FreeMem=N/A " +
		"State=MIXED+DRAIN ThreadsPerCore=1 Partitions=all,low Reason=bad fan [root@2026-11-27T21:00:00]"
	nodes, err := ParseNodes(strings.NewReader(line+"\n"), "nodes.txt", Limits{})
	require.NoError(t, err)
	require.Len(t, nodes, 1)
	n := nodes[0]
	assert.Equal(t, "n01", n.Name)
	assert.Equal(t, "MIXED", n.State)
	assert.Equal(t, []string{"DRAIN"}, n.Flags)
	assert.True(t, n.Drained())
	assert.False(t, n.Down())
	assert.Equal(t, 16, n.CPUTot)
	assert.Equal(t, 6, n.CPUAlloc)
	assert.Equal(t, int64(32000), n.RealMemory)
	assert.Equal(t, int64(6000), n.AllocMem)
	assert.Equal(t, []string{"a", "ib"}, n.Features)
	assert.Equal(t, []string{"all", "low"}, n.Partitions)
	assert.Equal(t, "bad fan [root@2026-11-27T21:00:00]", n.Reason)
	assert.Equal(t, position.Position{File: "nodes.txt", Line: 1}, n.Pos)

	down, err := ParseNodes(strings.NewReader("NodeName=x CPUTot=4 State=IDLE*\nNodeName=y CPUTot=4 State=FUTURE\n"), "", Limits{})
	require.NoError(t, err)
	assert.True(t, down[0].Down(), "not responding")
	assert.True(t, down[1].Down(), "future")

	// FAIL keeps new jobs off a node as DRAIN does
	failed, err := ParseNodes(strings.NewReader("NodeName=x CPUTot=4 State=IDLE+FAIL\nNodeName=y CPUTot=4 State=MIXED+FAIL\n"+
		"NodeName=z CPUTot=4 State=IDLE+POWERED_DOWN\n"), "", Limits{})
	require.NoError(t, err)
	assert.True(t, failed[0].Drained(), "idle, failed")
	assert.True(t, failed[1].Drained(), "mixed, failing")
	assert.False(t, failed[2].Drained(), "powered down: Slurm powers it up for a job")
	assert.False(t, failed[2].Down())
}

func TestParseErrorsArePositioned(t *testing.T) {
	for _, tc := range []struct {
		name, text string
		line, col  int
		parse      func(string) error
	}{
		{"node cpus", "NodeName=a CPUTot=4\nNodeName=b CPUTot=lots\n", 2, 12, nodes},
		{"node without name", "CPUTot=4 State=IDLE\n", 1, 1, nodes},
		{"node alloc above total", "NodeName=a CPUTot=4 CPUAlloc=5\n", 1, 1, nodes},
		{"node state", "NodeName=a CPUTot=4 State=IDLE+dr@in\n", 1, 21, nodes},
		{"words before pairs", "hello NodeName=a\n", 1, 1, nodes},
		{"job fields", "1|all|RUNNING|1|4\n", 1, 1, jobs},
		{"job cpus", "1|all|RUNNING|1|-4|OK|N/A|n1\n", 1, 17, jobs},
		{"job end", "1|all|RUNNING|1|4|OK|tomorrow|n1\n", 1, 22, jobs},
		{"job nodes", "1|all|RUNNING|2|4|OK|N/A|n[3-1]\n", 1, 26, jobs},
		{"job node count", "1|all|RUNNING|3|4|OK|N/A|n[1-2]\n", 1, 15, jobs},
		{"reservation time", "ReservationName=r StartTime=soon EndTime=2026-01-01T00:00:00\n", 1, 19, resvs},
		{"reservation backwards", "ReservationName=r StartTime=2026-01-02T00:00:00 EndTime=2026-01-01T00:00:00\n", 1, 1, resvs},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.parse(tc.text)
			var pe *position.Error
			require.True(t, errors.As(err, &pe), "%v", err)
			assert.Equal(t, tc.line, pe.Pos.Line, err.Error())
			assert.Equal(t, tc.col, pe.Pos.Column, err.Error())
		})
	}
}

func nodes(s string) error { _, err := ParseNodes(strings.NewReader(s), "f", Limits{}); return err }
func jobs(s string) error  { _, err := ParseJobs(strings.NewReader(s), "f", nil, Limits{}); return err }
func resvs(s string) error {
	_, err := ParseReservations(strings.NewReader(s), "f", nil, Limits{})
	return err
}

func TestParseJobs(t *testing.T) {
	text := "17|all|RUNNING|2|12|OK|2026-11-27T23:10:00|n[01-02]\n18|big|RUNNING|1|16|NO|N/A|n03\n19|all|PENDING|1|4|OK|N/A|\n"
	loc := time.FixedZone("CET", 3600)
	js, err := ParseJobs(strings.NewReader(text), "jobs.txt", loc, Limits{})
	require.NoError(t, err)
	require.Len(t, js, 3)
	assert.Equal(t, Job{ID: "17", Partition: "all", State: "RUNNING", NodeCount: 2, CPUs: 12,
		End: time.Date(2026, 11, 27, 23, 10, 0, 0, loc), Nodes: []string{"n01", "n02"},
		Pos: position.Position{File: "jobs.txt", Line: 1}}, js[0])
	assert.True(t, js[1].Exclusive)
	assert.True(t, js[1].End.IsZero())
	assert.Empty(t, js[2].Nodes)
}

func TestParseReservations(t *testing.T) {
	text := "ReservationName=maint StartTime=2026-11-27T22:00:00 EndTime=2026-11-28T02:00:00 Duration=04:00:00 " +
		"Nodes=n[01-03] NodeCnt=3 CoreCnt=48 Features=(null) PartitionName=(null) Flags=MAINT,SPEC_NODES " +
		"TRES=cpu=48 Users=root Groups=(null) Accounts=(null) Licenses=(null) State=INACTIVE BurstBuffer=(null) Watts=n/a\n"
	rs, err := ParseReservations(strings.NewReader(text), "r", nil, Limits{})
	require.NoError(t, err)
	require.Len(t, rs, 1)
	assert.Equal(t, "maint", rs[0].Name)
	assert.Equal(t, []string{"n01", "n02", "n03"}, rs[0].Nodes)
	assert.Equal(t, []string{"MAINT", "SPEC_NODES"}, rs[0].Flags)
	assert.Equal(t, time.Date(2026, 11, 28, 2, 0, 0, 0, time.UTC), rs[0].End)
	none, err := ParseReservations(strings.NewReader("No reservations in the system\n"), "r", nil, Limits{})
	require.NoError(t, err)
	assert.Empty(t, none)
}

// Every budget is checked while reading and reported as ErrBudget with the
// line where it was passed.
func TestBudgets(t *testing.T) {
	line := "NodeName=a CPUTot=4\n"
	for _, tc := range []struct {
		name string
		text string
		lim  Limits
	}{
		{"bytes", strings.Repeat(line, 100), Limits{MaxBytes: 200}},
		{"lines", strings.Repeat(line, 100), Limits{MaxLines: 10}},
		{"line length", "NodeName=" + strings.Repeat("a", 5000) + " CPUTot=4\n", Limits{MaxLineBytes: 1000}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseNodes(strings.NewReader(tc.text), "f", tc.lim)
			require.ErrorIs(t, err, ErrBudget)
		})
	}
	_, err := ParseJobs(strings.NewReader("1|a|RUNNING|100|100|OK|N/A|n[1-100]\n"), "f", nil, Limits{MaxHosts: 10})
	require.Error(t, err, "a hostlist past MaxHosts")
}
