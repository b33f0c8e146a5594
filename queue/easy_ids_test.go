package queue

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// BackfillIDs starts the same jobs as Backfill, and a subscriber still
// receives each start's hostlist.
func TestEASYBackfillIDsStartsAsBackfill(t *testing.T) {
	full, ids := simple(t), simple(t)
	var rec recorder
	ids.Subscribe(rec.on)
	ef, ei := NewEASY(full), NewEASY(ids)
	specs := []Spec{nodes(6, time.Hour), nodes(7, time.Hour), nodes(2, 2*time.Hour), nodes(1, 2*time.Hour), nodes(1, 30*time.Minute)}
	for k, sp := range specs {
		submit(t, full, sp, at(k))
		submit(t, ids, sp, at(k))
	}
	var want []JobID
	var hosts []string
	for _, st := range ef.Backfill(at(5)) {
		want = append(want, st.Job)
		hosts = append(hosts, st.Nodes)
	}
	got := ei.BackfillIDs(at(5), []JobID{99})
	require.Equal(t, append([]JobID{99}, want...), got, "appended to dst")
	var details []string
	for _, e := range rec.events {
		if e.Kind == EventStart {
			details = append(details, e.Detail)
		}
	}
	require.Equal(t, hosts, details)
	require.NotEmpty(t, hosts[0])
	require.Empty(t, ei.BackfillIDs(at(6), nil))
	// without a subscriber the starts carry no hostlist, and the cluster is the same
	quiet := simple(t)
	eq := NewEASY(quiet)
	for k, sp := range specs {
		submit(t, quiet, sp, at(k))
	}
	require.Equal(t, want, eq.BackfillIDs(at(5), nil))
	for _, id := range want {
		a, _ := full.Job(id)
		b, _ := quiet.Job(id)
		require.Equal(t, a.Placement.Names, b.Placement.Names)
	}
	require.False(t, quiet.quietStarts, "the pass leaves the scheduler as it was")
}

func TestZeroEASYPanicsSayingSo(t *testing.T) {
	var e EASY
	require.PanicsWithValue(t, "queue.EASY: the zero EASY is not usable: create it with NewEASY", func() { e.Backfill(at(0)) })
	require.PanicsWithValue(t, "queue.EASY: the zero EASY is not usable: create it with NewEASY", func() { e.BackfillIDs(at(0), nil) })
}
