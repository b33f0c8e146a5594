package queue

import (
	"os"
	"testing"
	"time"

	"github.com/hpcsched/hpcsched/internal/shareddata"
	"github.com/hpcsched/hpcsched/selectnodes"
	"github.com/hpcsched/hpcsched/slurmconf"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A job that gives no time limit gets its partition's DefaultTime (man
// slurm.conf: "Run time limit used for jobs that don't specify a value"),
// MaxTime only when there is no DefaultTime; Backfill plans it with that
// limit.
func TestNoTimeLimitTakesThePartitionsDefaultTime(t *testing.T) {
	s := New(cluster(t, "NodeName=n[0-3] CPUs=4\n"+
		"PartitionName=batch Nodes=ALL Default=YES DefaultTime=01:00:00 MaxTime=03:00:00\n"+
		"PartitionName=long Nodes=ALL MaxTime=05:00:00\n"))
	a := submit(t, s, Spec{Request: selectnodes.Request{MinNodes: 4}}, at(0))
	j, _ := s.Job(a)
	assert.Equal(t, time.Hour, j.TimeLimit, "DefaultTime, not MaxTime")
	assert.Equal(t, time.Hour, j.Request.TimeLimit)
	s.Schedule(at(0))
	require.Equal(t, Running, state(t, s, a))
	b := submit(t, s, Spec{Request: selectnodes.Request{MinNodes: 4}}, at(1))
	_, res := s.Backfill(at(1))
	require.Len(t, res, 1)
	assert.Equal(t, b, res[0].Job)
	assert.Equal(t, at(60), res[0].Start, "job a frees its nodes after its DefaultTime")
	assert.Equal(t, at(120), res[0].End)

	when, _, err := s.WillRunSpec(t.Context(), Spec{Request: selectnodes.Request{MinNodes: 4}}, at(1))
	require.NoError(t, err)
	assert.Equal(t, at(60), when)

	long := submit(t, s, Spec{Request: selectnodes.Request{Partition: "long", MinNodes: 1}}, at(2))
	j, _ = s.Job(long)
	assert.Equal(t, 5*time.Hour, j.TimeLimit, "no DefaultTime: MaxTime")
}

// The same on a real site: UB CCR's partitions default to 24 hours and
// allow 72.
func TestDefaultTimeOnARealSite(t *testing.T) {
	dir := shareddata.Require(t, "slurm_configs")
	cfg, err := slurmconf.ParseFile(os.DirFS(dir), "ubccr_medium_ubhpc.slurm.conf")
	require.NoError(t, err)
	c, err := selectnodes.FromConfig(cfg)
	require.NoError(t, err)
	s := New(c)
	id := submit(t, s, Spec{Request: selectnodes.Request{MinNodes: 1, QOS: "general-compute"}}, at(0))
	j, _ := s.Job(id)
	assert.Equal(t, 24*time.Hour, j.TimeLimit)
	dbg := submit(t, s, Spec{Request: selectnodes.Request{Partition: "debug", MinNodes: 1, QOS: "debug"}}, at(0))
	j, _ = s.Job(dbg)
	assert.Equal(t, 24*time.Hour, j.TimeLimit, "DefaultTime from PartitionName=DEFAULT, though above debug's MaxTime of an hour")
	s.Schedule(at(1))
	j, _ = s.Job(dbg)
	assert.Equal(t, ReasonPartitionTimeLimit, j.Reason)
}

// A job that names no QOS is judged as QOS "normal", Slurm's default:
// on a cluster with accounting, a partition whose AllowQOS lacks it, or
// whose DenyQOS has it, refuses the job as it refuses any QOS it does
// not allow. Without accounting no QOS is checked, and the job runs.
func TestNoQOSIsNormal(t *testing.T) {
	s := New(cluster(t, "AccountingStorageType=accounting_storage/slurmdbd\nNodeName=n[0-3] CPUs=4\n"+
		"PartitionName=high Nodes=n[0-1] Default=YES AllowQos=high\n"+
		"PartitionName=nonormal Nodes=n[2-3] DenyQos=normal\n"+
		"PartitionName=open Nodes=ALL\n"))
	_, err := s.Submit(Spec{Request: selectnodes.Request{MinNodes: 1}, TimeLimit: time.Hour}, at(0))
	assert.ErrorIs(t, err, ErrInvalidSpec)
	assert.ErrorContains(t, err, "partition high allows QOS high; the job's is normal")
	_, err = s.Submit(Spec{Request: selectnodes.Request{Partition: "nonormal", MinNodes: 1}, TimeLimit: time.Hour}, at(0))
	assert.ErrorContains(t, err, "partition nonormal denies QOS normal")
	_, _, err = s.WillRunSpec(t.Context(), Spec{Request: selectnodes.Request{MinNodes: 1}, TimeLimit: time.Hour}, at(0))
	assert.ErrorIs(t, err, ErrInvalidSpec)
	high := submit(t, s, Spec{Request: selectnodes.Request{MinNodes: 1, QOS: "high"}, TimeLimit: time.Hour}, at(0))
	open := submit(t, s, Spec{Request: selectnodes.Request{Partition: "open", MinNodes: 1}, TimeLimit: time.Hour}, at(0))
	j, _ := s.Job(open)
	assert.Equal(t, "normal", j.Request.QOS)
	s.Schedule(at(1))
	assert.Equal(t, Running, state(t, s, high))
	assert.Equal(t, Running, state(t, s, open))

	free := New(cluster(t, "NodeName=n[0-3] CPUs=4\n"+
		"PartitionName=high Nodes=n[0-1] Default=YES AllowQos=high\n"+
		"PartitionName=nonormal Nodes=n[2-3] DenyQos=normal\n"))
	a := submit(t, free, Spec{Request: selectnodes.Request{MinNodes: 1}, TimeLimit: time.Hour}, at(0))
	b := submit(t, free, Spec{Request: selectnodes.Request{Partition: "nonormal", MinNodes: 1, QOS: "normal"}, TimeLimit: time.Hour}, at(0))
	free.Schedule(at(1))
	assert.Equal(t, Running, state(t, free, a))
	assert.Equal(t, Running, state(t, free, b))
}

// A job over its partition's MaxTime pends with reason
// PartitionTimeLimit (squeue's), under Schedule and under Backfill, which
// gives it no reservation.
func TestOverMaxTimePendsWithPartitionTimeLimit(t *testing.T) {
	s := New(cluster(t, "NodeName=n[0-3] CPUs=4\nPartitionName=batch Nodes=ALL Default=YES MaxTime=03:00:00\n"))
	over := submit(t, s, Spec{Request: selectnodes.Request{MinNodes: 1}, TimeLimit: 4 * time.Hour}, at(0))
	s.Schedule(at(0))
	j, _ := s.Job(over)
	assert.Equal(t, ReasonPartitionTimeLimit, j.Reason)
	for step := 1; step <= 3; step++ {
		started, res := s.Backfill(at(step))
		assert.Empty(t, started)
		assert.Empty(t, res)
		j, _ = s.Job(over)
		assert.Equal(t, ReasonPartitionTimeLimit, j.Reason, "pass %d", step)
	}
	// only the job's limit changing lets it run
	require.NoError(t, s.Update(over, Update{TimeLimit: 2 * time.Hour}, at(5)))
	s.Schedule(at(5))
	assert.Equal(t, Running, state(t, s, over))
}
