package queue

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// passAdmit admits everything unchanged.
type passAdmit struct{ seen int }

func (*passAdmit) Name() string { return "pass" }
func (p *passAdmit) Admit(context.Context, *Spec, time.Time) *Status {
	p.seen++
	return nil
}

// An AdmitPlugin that changes nothing does not turn a time limit update
// into a request update: a running job's time limit may still change, and
// a pending job's update event names only what changed.
func TestUpdateWithAdmitPluginChangesOnlyWhatItSays(t *testing.T) {
	adm := &passAdmit{}
	s := simple(t, WithPlugins(adm))
	var rec recorder
	s.Subscribe(rec.on)
	run := submit(t, s, nodes(8, time.Hour), t0)
	wait := submit(t, s, nodes(2, time.Hour), t0)
	require.Len(t, s.Schedule(t0), 1)
	seen := adm.seen

	require.NoError(t, s.Update(run, Update{TimeLimit: 2 * time.Hour}, at(1)))
	j, _ := s.Job(run)
	require.Equal(t, at(120), j.End)
	require.Equal(t, seen, adm.seen, "a running job's change is not an admission")

	require.NoError(t, s.Update(wait, Update{TimeLimit: 3 * time.Hour}, at(1)))
	require.Equal(t, seen+1, adm.seen, "a pending job's time limit is admitted again")
	last := rec.events[len(rec.events)-1]
	if last.Kind == EventPriority {
		last = rec.events[len(rec.events)-2]
	}
	require.Equal(t, EventUpdate, last.Kind)
	require.Equal(t, []string{"TimeLimit"}, last.Payload.(*UpdatePayload).Fields)
}

// A running job's refused change names the field refused.
func TestUpdateOfARunningJobNamesTheFieldRefused(t *testing.T) {
	s := simple(t)
	id := submit(t, s, nodes(1, time.Hour), t0)
	require.Len(t, s.Schedule(t0), 1)
	begin, dep := at(5), "singleton"
	for field, u := range map[string]Update{
		"partition":  {Partition: "batch"},
		"account":    {Account: "a"},
		"begin time": {Begin: &begin},
		"dependency": {Dependency: &dep},
	} {
		err := s.Update(id, u, at(1))
		require.ErrorIs(t, err, ErrJobState)
		require.ErrorContains(t, err, "cannot change the "+field+" of job 1 in state RUNNING")
	}
}
