package queue

import (
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestTickEndsDueJobsInIDOrder checks Tick against its definition on
// random loads: it times out exactly the running jobs whose limit has come
// (not the suspended ones, not those without a limit), in ascending ID
// order, and returns them in that order.
func TestTickEndsDueJobsInIDOrder(t *testing.T) {
	for seed := uint64(1); seed <= 6; seed++ {
		t.Logf("seed %d", seed)
		r := rand.New(rand.NewPCG(seed, 11))
		s := simple(t)
		rec := &recorder{}
		s.Subscribe(rec.on)
		now := at(0)
		for step := 0; step < 60; step++ {
			for k := r.IntN(4); k > 0; k-- {
				spec := Spec{Name: "j", User: "u", TimeLimit: time.Duration(r.IntN(5)) * 10 * time.Minute}
				spec.Request.CPUs = 1 + r.IntN(4)
				submit(t, s, spec, now)
			}
			s.Schedule(now)
			for _, j := range s.Jobs() {
				if j.State == Running && r.IntN(10) == 0 {
					require.NoError(t, s.Suspend(j.ID, now))
				}
			}
			now = now.Add(time.Duration(1+r.IntN(25)) * time.Minute)
			var want []JobID
			for _, j := range s.Jobs() {
				if j.State == Running && j.TimeLimit > 0 && !now.Before(j.End) {
					want = append(want, j.ID)
				}
			}
			slices.Sort(want)
			rec.events = nil
			got := s.Tick(now)
			require.Equal(t, want, got, "step %d", step)
			var ended []JobID
			for _, e := range rec.events {
				if e.Kind == EventFinish {
					ended = append(ended, e.Job)
				}
			}
			require.Equal(t, want, ended, "the end events, step %d", step)
			for _, id := range want {
				require.Equal(t, Timeout, state(t, s, id))
			}
		}
	}
}
