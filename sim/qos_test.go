package sim

import (
	"testing"
	"time"

	"github.com/hpcsched/hpcsched/queue"
	"github.com/hpcsched/hpcsched/selectnodes"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A trace's jobs name no QOS, and the queue judges them as Slurm's
// default, normal: on a site whose partitions allow only their own QOS
// every job was refused, with no way to replay the trace there.
// Options.QOS submits them under one the site allows, and leaves a job
// that names its own alone.
func TestOptionsQOSIsTheQOSOfJobsThatNameNone(t *testing.T) {
	c, err := selectnodes.New([]selectnodes.Node{{Name: "n1", CPUs: 4}, {Name: "n2", CPUs: 4}},
		[]selectnodes.Partition{{Name: "p", Nodes: []string{"n1", "n2"}, Default: true,
			Access: selectnodes.Access{AllowQOS: []string{"site"}}}})
	require.NoError(t, err)
	job := func(qos string) Job {
		return Job{Run: time.Minute, Cores: 1, Spec: queue.Spec{Name: "j", User: "u", TimeLimit: time.Hour,
			Request: selectnodes.Request{CPUs: 1, QOS: qos}}}
	}
	w := &Workload{Name: "w", Jobs: []Job{job(""), job(""), job("other")}}

	res, err := Run(c, w, Options{})
	require.NoError(t, err)
	assert.Equal(t, 3, res.Rejected, "normal and other are not allowed")

	res, err = Run(c, w, Options{QOS: "site"})
	require.NoError(t, err)
	assert.Equal(t, 1, res.Rejected, "the job naming its own QOS keeps it")
	assert.Equal(t, 2, res.Started)
	assert.Empty(t, w.Jobs[0].Spec.Request.QOS, "the workload is the caller's: the run sets no QOS in it")
}
