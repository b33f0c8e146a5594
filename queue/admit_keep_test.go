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
