package queue

import (
	"bytes"
	"testing"

	"github.com/hpcsched/hpcsched/selectnodes"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Under FastSchedule 0 a node counts with what it reported to Register:
// the saved state carries the reports, so the restored scheduler places a
// job on the CPUs the nodes reported (8 where 4 are configured), and a
// node that registered short and was resumed since stays up.
func TestRestoreKeepsRegistrations(t *testing.T) {
	conf := "FastSchedule=0\nNodeName=n[0-3] CPUs=4 RealMemory=1000\nPartitionName=batch Nodes=ALL Default=YES\n"
	c := cluster(t, conf)
	for i := range 3 {
		_, err := c.Register(c.Node(i).Name, selectnodes.Resources{CPUs: 8, RealMemory: 1000})
		require.NoError(t, err)
	}
	down, err := c.Register("n3", selectnodes.Resources{CPUs: 2, RealMemory: 1000})
	require.NoError(t, err)
	require.True(t, down, "a node reporting fewer CPUs than configured is set down")
	require.NoError(t, c.SetNodeState("n3", selectnodes.NodeUp))
	s := New(c)
	var saved bytes.Buffer
	require.NoError(t, s.Snapshot(&saved))

	fresh := cluster(t, conf)
	r, err := Restore(bytes.NewReader(saved.Bytes()), fresh)
	require.NoError(t, err)
	for i := range 4 {
		want, wok := c.Reported(i)
		got, gok := fresh.Reported(i)
		assert.Equal(t, wok, gok, "node %d", i)
		assert.Equal(t, want, got, "node %d", i)
		assert.Equal(t, c.State(i), fresh.State(i), "node %d", i)
	}
	// 24 CPUs fit on the three nodes that reported 8 (configured: 12)
	wide := Spec{Name: "wide", User: "u", Request: selectnodes.Request{CPUs: 24, MinNodes: 3, MaxNodes: 3}, TimeLimit: 3600e9}
	id := submit(t, r, wide, at(0))
	require.Len(t, r.Schedule(at(0)), 1)
	assert.Equal(t, Running, state(t, r, id))
	var again bytes.Buffer
	require.NoError(t, r.Snapshot(&again))
	j, _ := r.Job(id)
	require.NotNil(t, j)
	assert.Contains(t, again.String(), `"reported":{"cpus":8,"real_memory_mb":1000,"tmp_disk_mb":0}`)
}

// A registration the cluster would refuse is refused by Restore, naming
// where it is, and leaves the cluster as it was; a Restore whose
// placements do not fit puts the registrations it made back.
func TestRestoreRegistrationsRefusedOrUndone(t *testing.T) {
	conf := "FastSchedule=0\nNodeName=n[0-3] CPUs=4 RealMemory=1000\nPartitionName=batch Nodes=ALL Default=YES\n"
	bad := `{"version":2,"next_id":1,"seq":0,"alloc_seq":0,"event_seq":0,` +
		`"partitions":[{"name":"batch","nodes":["n0","n1","n2","n3"],"default":true,"max_time":"0s","state":"UP","oversubscribe":"NO"}],` +
		`"nodes":[{"name":"n1","state":"UP","reported":{"cpus":-1,"real_memory_mb":0,"tmp_disk_mb":0}}],"jobs":[]}`
	c := cluster(t, conf)
	_, err := Restore(bytes.NewReader([]byte(bad)), c)
	var re *RestoreError
	require.ErrorAs(t, err, &re)
	assert.Contains(t, err.Error(), "nodes[0].reported")
	_, ok := c.Reported(1)
	assert.False(t, ok)

	// the document's registration gives n1 4 CPUs where its running job
	// holds 8: the placement fails after the registrations were given,
	// and they are taken back
	c = cluster(t, conf)
	_, err = c.Register("n1", selectnodes.Resources{CPUs: 8, RealMemory: 1000})
	require.NoError(t, err)
	s := New(c)
	on1 := Spec{Name: "on1", User: "u", Request: selectnodes.Request{CPUs: 8, Required: []string{"n1"}}, TimeLimit: 3600e9}
	submit(t, s, on1, at(0))
	require.Len(t, s.Schedule(at(0)), 1)
	var saved bytes.Buffer
	require.NoError(t, s.Snapshot(&saved))
	unfit := bytes.Replace(saved.Bytes(), []byte(`"reported":{"cpus":8,`), []byte(`"reported":{"cpus":4,`), 1)
	require.NotEqual(t, saved.Bytes(), unfit)
	c = cluster(t, conf)
	_, err = Restore(bytes.NewReader(unfit), c)
	require.ErrorContains(t, err, "placement")
	_, ok = c.Reported(1)
	assert.False(t, ok, "the registration is taken back")
	assert.Equal(t, selectnodes.NodeUp, c.State(1))
	require.NoError(t, c.CheckInvariants())
}
