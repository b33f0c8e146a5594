package queue

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/hpcsched/hpcsched/internal/testseed"
	"github.com/hpcsched/hpcsched/selectnodes"
	"github.com/stretchr/testify/require"
)

// BackfillStarts makes the same pass as Backfill: the same starts, the
// same standing reservations (read afterwards with Reservations) and the
// same events, pass after pass of random submissions and completions.
func TestBackfillStartsIsBackfill(t *testing.T) {
	seed := testseed.Draw(t)
	r := rand.New(rand.NewPCG(seed, 3))
	a, b := simple(t), simple(t)
	var evA, evB []Event
	a.Subscribe(func(e Event) { evA = append(evA, e) })
	b.Subscribe(func(e Event) { evB = append(evB, e) })
	var running []JobID
	now := t0
	for step := range 300 {
		now = now.Add(time.Duration(1+r.IntN(600)) * time.Second)
		if len(running) > 0 && r.IntN(3) == 0 {
			k := r.IntN(len(running))
			require.NoError(t, a.Finish(running[k], Outcome{}, now))
			require.NoError(t, b.Finish(running[k], Outcome{}, now))
			running = append(running[:k], running[k+1:]...)
		}
		spec := Spec{Request: selectnodes.Request{MinNodes: 1 + r.IntN(4), CPUs: 1 + r.IntN(12)},
			TimeLimit: time.Duration(1+r.IntN(180)) * time.Minute}
		ida, erra := a.Submit(spec, now)
		idb, errb := b.Submit(spec, now)
		require.Equal(t, erra, errb)
		require.Equal(t, ida, idb)
		started, resv := a.Backfill(now)
		require.Equal(t, started, b.BackfillStarts(now), "step %d", step)
		require.Equal(t, resv, b.Reservations(), "step %d", step)
		for _, st := range started {
			running = append(running, st.Job)
		}
	}
	require.Equal(t, evA, evB)
	require.NotEmpty(t, a.Reservations(), "the passes must leave reservations")
}
