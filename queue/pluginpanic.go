package queue

import (
	"context"
	"fmt"
	"time"

	"github.com/hpcsched/hpcsched/selectnodes"
)

// A ReservePlugin or ReleasePlugin runs in the middle of a state change
// (a start and its reservation, an end and its debit). Were its panic to
// unwind through the scheduler, the change would be left half made: the
// Reserves before it never undone, an end's event never sent, the
// plugins after it never told. So its panic is contained, as a
// subscriber's is: a Reserve that panics answers Error (the job stays
// pending with the panic as its reason), an Unreserve or Release that
// panics is passed over and the plugins after it still run. The panic
// goes to the WithPanicHandler function, once the lock is released.

// pluginPanic is a contained plugin panic waiting for the handler.
type pluginPanic struct {
	v any
	e Event
}

// pluginPanicked records a plugin's panic for the handler; callers hold
// the lock. The event (Seq 0) is not part of the stream: it names the job
// and, in Detail, the plugin and the method.
func (s *Scheduler) pluginPanicked(v any, name, method string, j *job, now time.Time) string {
	msg := fmt.Sprintf("%s panicked in %s: %v", name, method, v)
	if s.opts.onPanic != nil {
		s.panics = append(s.panics, pluginPanic{v, Event{Time: now, Job: j.ID, State: j.State, Partition: j.Partition, Detail: msg}})
	}
	return msg
}

// callReserve is one ReservePlugin's Reserve, its panic an Error.
func (s *Scheduler) callReserve(ctx context.Context, r ReservePlugin, j *job, p *selectnodes.Placement, now time.Time) (st *Status) {
	defer func() {
		if v := recover(); v != nil {
			st = NewStatus(Error, s.pluginPanicked(v, r.Name(), "Reserve", j, now))
		}
	}()
	view := j.public()
	return r.Reserve(ctx, &view, clonePlacement(p), now)
}

// callUnreserve is one ReservePlugin's Unreserve, its panic contained.
func (s *Scheduler) callUnreserve(ctx context.Context, r ReservePlugin, j *job, p *selectnodes.Placement, now time.Time) {
	defer func() {
		if v := recover(); v != nil {
			s.pluginPanicked(v, r.Name(), "Unreserve", j, now)
		}
	}()
	view := j.public()
	r.Unreserve(ctx, &view, clonePlacement(p), now)
}

// callRelease is one ReleasePlugin's Release, its panic contained.
func (s *Scheduler) callRelease(ctx context.Context, r ReleasePlugin, j *job, end JobEnd, now time.Time) {
	defer func() {
		if v := recover(); v != nil {
			s.pluginPanicked(v, r.Name(), "Release", j, now)
		}
	}()
	view := j.public()
	r.Release(ctx, &view, end, now)
}

// handle passes one panic to the handler, outside the lock. A panic of
// the handler itself has nowhere left to go and is dropped, so that
// delivery goes on.
func (s *Scheduler) handle(v any, e Event) {
	if s.opts.onPanic == nil {
		return
	}
	defer func() { _ = recover() }()
	s.opts.onPanic(v, e)
}
