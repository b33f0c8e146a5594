package queue

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/hpcsched/hpcsched/selectnodes"
)

// Planner decides a whole window of pending jobs at once, as an auction
// does, instead of Schedule's one-job-at-a-time loop.
type Planner interface {
	// Plan returns which jobs of window (eligible, in queue order) to
	// start now and where. snap is a copy of the cluster's load at the
	// start of the pass: the planner may try placements on it (or on
	// clones of it) freely; it never sees the live cluster. An error
	// starts nothing this pass (an EventPlanFailed reports it).
	Plan(ctx context.Context, snap *selectnodes.Snapshot, window []Job, now time.Time) ([]Decision, error)
}

// Decision starts Job. With Layout, on exactly those per-node CPUs,
// memory and GRES (an auction bid's layout), which the pipeline validates
// with selectnodes PlaceExact and honours exactly; with Nodes, on exactly
// those nodes, the pipeline choosing each node's share; with neither,
// where the pipeline chooses. A decision the pipeline refuses (the job is
// no longer pending, the layout does not suit the request, or the load
// changed) starts nothing and is reported as an EventRefused whose
// payload carries the error (a *selectnodes.Error naming the node and the
// resource).
type Decision struct {
	Job    JobID
	Nodes  []string
	Layout []selectnodes.NodeUse
}

// plan hands the eligible window to the Planner and applies its decisions
// in the order given.
func (s *Scheduler) plan(ctx context.Context, now time.Time) []Started {
	var window []Job
	for _, j := range s.ordered() {
		if len(window) == s.opts.plannerWindow {
			break
		}
		if s.eligible(j, now) {
			window = append(window, j.public())
		}
	}
	if len(window) == 0 {
		return nil
	}
	decisions, err := s.opts.planner.Plan(ctx, s.c.Snapshot(), window, now)
	if err != nil {
		s.emit(Event{Kind: EventPlanFailed, Time: now, Detail: err.Error(), Payload: &PlanFailedPayload{Err: err}})
		return nil
	}
	var out []Started
	for _, d := range decisions {
		st, err := s.decide(d, now)
		if err == nil {
			out = append(out, st)
		}
	}
	return out
}

// decide applies one decision, reporting a refusal as an event (a
// ReservePlugin's refusal is reported by start itself).
func (s *Scheduler) decide(d Decision, now time.Time) (Started, error) {
	j, ok := s.jobs[d.Job]
	var err error
	switch {
	case !ok:
		err = fmt.Errorf("%w %d", ErrUnknownJob, d.Job)
	case j.State != Pending:
		err = stateErr(j, "start")
	}
	if err != nil {
		s.emit(Event{Kind: EventRefused, Time: now, Job: d.Job, Detail: err.Error(), Payload: &RefusedPayload{Err: err}})
		return Started{}, err
	}
	var st Started
	if len(d.Layout) > 0 {
		st, err = s.startExact(j, d.Layout, now)
	} else {
		st, err = s.startOn(j, d.Nodes, now)
	}
	var refused *StatusError
	if err != nil && !errors.As(err, &refused) {
		s.jobEventWith(EventRefused, j, now, err.Error(), &RefusedPayload{Err: err})
	}
	return st, err
}

// startExact starts j on exactly layout, validated by the pipeline.
func (s *Scheduler) startExact(j *job, layout []selectnodes.NodeUse, now time.Time) (Started, error) {
	p, err := s.c.PlaceExact(&j.Request, layout)
	if err != nil {
		return Started{}, err
	}
	return s.start(j, p, now)
}
