package queue

import (
	"fmt"
	"slices"
	"testing"
	"time"
)

// scanTimedOut is Tick's old rule: every running job, by the map of
// running jobs, whose limit has passed, in ID order.
func scanTimedOut(s *Scheduler, now time.Time) []JobID {
	var out []JobID
	for id, j := range s.active {
		if timedOut(j, now) {
			out = append(out, id)
		}
	}
	slices.Sort(out)
	return out
}

// checkRunList holds the running list to the map of running jobs: the
// same jobs, each knowing its place, and the same jobs due at now.
func checkRunList(s *Scheduler, now time.Time) error {
	if len(s.running.jobs) != len(s.active) {
		return fmt.Errorf("the list holds %d jobs, the map %d", len(s.running.jobs), len(s.active))
	}
	for i, j := range s.running.jobs {
		if s.active[j.ID] != j {
			return fmt.Errorf("job %d is listed but not running", j.ID)
		}
		if j.runIx != i+1 {
			return fmt.Errorf("job %d is at %d of the list but says %d", j.ID, i+1, j.runIx)
		}
	}
	for _, j := range s.jobs {
		if s.active[j.ID] == nil && j.runIx != 0 {
			return fmt.Errorf("job %d (%s) is not running but says it is at %d of the list", j.ID, j.State, j.runIx)
		}
	}
	if got, want := s.timedOutIDs(now), scanTimedOut(s, now); !slices.Equal(got, want) {
		return fmt.Errorf("due at %v: %v, the scan says %v", now, got, want)
	}
	return nil
}

// Over random submits, starts, ends, suspensions, requeues, time limit
// updates, ticks and restores, the running list Tick walks holds exactly
// the running jobs, and finds the jobs due the scan of the map finds.
func TestTickRunListMatchesTheRunningJobs(t *testing.T) {
	r := seeded(t, 7)
	runs := 20
	if testing.Short() {
		runs = 6
	}
	due, totalRestores := 0, 0
	for run := range runs {
		conf := run % len(restoreConfs)
		s := New(cluster(t, restoreConfs[conf]))
		o := opRunner{t: t, conf: conf}
		restores := 0
		for step := range 300 {
			now := at(step)
			if r.IntN(40) == 0 {
				s = restoreFrom(t, s, restoreConfs[conf])
				restores++
			}
			what := o.step(s, r, now, len(s.jobs))
			later := now.Add(time.Duration(r.IntN(90)) * time.Minute)
			due += len(scanTimedOut(s, later))
			for _, when := range []time.Time{now, later} {
				if err := checkRunList(s, when); err != nil {
					t.Fatalf("run %d, step %d (%s): %v", run, step, what, err)
				}
			}
		}
		totalRestores += restores
	}
	if due == 0 || totalRestores == 0 {
		t.Fatalf("the runs found %d jobs due and made %d restores: they test nothing", due, totalRestores)
	}
}
