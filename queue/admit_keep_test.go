package queue

import (
	"context"
	"testing"
	"time"

	"github.com/hpcsched/hpcsched/selectnodes"
	"github.com/stretchr/testify/require"
)

// keepingAdmit keeps every Spec it admits (an audit log) and adds an
// exclusion of its own.
type keepingAdmit struct{ kept []*Spec }

func (*keepingAdmit) Name() string { return "audit" }
func (k *keepingAdmit) Admit(_ context.Context, spec *Spec, _ time.Time) *Status {
	k.kept = append(k.kept, spec)
	spec.Request.Excluded = append(spec.Request.Excluded, "n7")
	return nil
}

// What an AdmitPlugin keeps of the Spec it saw is its own: changing it
// later changes no job.
func TestAdmitPluginKeepingTheSpecChangesNoJob(t *testing.T) {
	k := &keepingAdmit{}
	s := simple(t, WithPlugins(k))
	id := submit(t, s, Spec{Request: selectnodes.Request{MinNodes: 1, Required: []string{"n0"}}, TimeLimit: time.Hour}, t0)
	before, _ := s.Job(id)
	require.Equal(t, []string{"n7"}, before.Request.Excluded, "the plugin's rewrite is taken")
	for _, sp := range k.kept {
		sp.Request.Required[0] = "n1"
		sp.Request.Excluded[0] = "n0"
	}
	after, _ := s.Job(id)
	require.Equal(t, before.Request, after.Request)
}

// UpdatePartition keeps a copy of the partition: the caller's slices stay
// the caller's.
func TestUpdatePartitionKeepsNoCallerSlice(t *testing.T) {
	s := simple(t)
	p := selectnodes.Partition{Name: "batch", Nodes: []string{"n0", "n1"}, Default: true,
		Access: selectnodes.Access{AllowGroups: []string{"staff"}, AllowQOS: []string{"normal"}}}
	require.NoError(t, s.UpdatePartition(p, t0))
	p.Nodes[0] = "n5"
	p.Access.AllowGroups[0] = "nobody"
	p.Access.AllowQOS[0] = "none"
	got, _ := s.Cluster().Partition("batch")
	require.Equal(t, "n0", got.Nodes[0])
	require.Equal(t, []string{"staff"}, got.Access.AllowGroups)
	require.Equal(t, []string{"normal"}, got.Access.AllowQOS)
	spec := nodes(1, time.Hour)
	spec.Request.Groups = []string{"staff"}
	submit(t, s, spec, t0) // the group the partition was given may still submit
}
