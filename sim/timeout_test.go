package sim

import (
	"testing"
	"time"

	"github.com/hpcsched/hpcsched/queue"
	"github.com/hpcsched/hpcsched/selectnodes"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A job that runs exactly its time limit completes then; only one that
// would run longer is killed at its limit (TIMEOUT). Every generated job
// of the AUCSCHED3 paper's workloads runs its limit, and each was
// recorded as killed.
func TestRunningExactlyTheLimitCompletes(t *testing.T) {
	c, err := selectnodes.New([]selectnodes.Node{{Name: "n1", CPUs: 4}, {Name: "n2", CPUs: 4}, {Name: "n3", CPUs: 4}},
		[]selectnodes.Partition{{Name: "p", Nodes: []string{"n1", "n2", "n3"}, Default: true, State: selectnodes.PartitionUp}})
	require.NoError(t, err)
	job := func(run time.Duration) Job {
		return Job{Run: run, Cores: 1, Spec: queue.Spec{Name: "j", User: "u",
			Request: selectnodes.Request{MinNodes: 1, CPUs: 1}, TimeLimit: time.Hour}}
	}
	w := Workload{Name: "limits", Jobs: []Job{job(30 * time.Minute), job(time.Hour), job(2 * time.Hour)}}
	res, err := Run(c, &w, Options{Record: true})
	require.NoError(t, err)
	require.Len(t, res.Records, 3)
	var states []queue.State
	var runs []time.Duration
	for _, r := range res.Records {
		states = append(states, r.State)
		runs = append(runs, r.End.Sub(r.Start))
	}
	assert.Equal(t, []queue.State{queue.Complete, queue.Complete, queue.Timeout}, states)
	assert.Equal(t, []time.Duration{30 * time.Minute, time.Hour, time.Hour}, runs)
	assert.Equal(t, 1, res.Timeouts)
}
