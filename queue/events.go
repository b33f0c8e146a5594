package queue

import (
	"slices"
	"time"

	"github.com/hpcsched/hpcsched/selectnodes"
)

// EventKind names a change.
type EventKind string

const (
	EventSubmit     EventKind = "submit"
	EventStart      EventKind = "start"
	EventFinish     EventKind = "finish" // COMPLETE, FAILED, TIMEOUT or NODE_FAIL; State says which
	EventCancel     EventKind = "cancel" // pending or running
	EventRequeue    EventKind = "requeue"
	EventSuspend    EventKind = "suspend"
	EventResume     EventKind = "resume"
	EventHold       EventKind = "hold"
	EventRelease    EventKind = "release"
	EventUpdate     EventKind = "update"
	EventPriority   EventKind = "priority"    // a job's priority changed
	EventRefused    EventKind = "refused"     // a plugin or the pipeline refused a start (the job stays pending)
	EventPlanFailed EventKind = "plan_failed" // the Planner returned an error
	EventNodeDown   EventKind = "node_down"   // Node payload
	EventNodeDrain  EventKind = "node_drain"  // Node payload
	EventNodeResume EventKind = "node_resume" // Node payload
	EventPartition  EventKind = "partition"   // a partition was added or changed
)

// Event is one change. Seq numbers events from 1 without gaps.
type Event struct {
	Seq       uint64
	Kind      EventKind
	Time      time.Time
	Job       JobID  // 0 for node and partition events
	State     State  // the job's state after the change
	Node      string // node events
	Partition string // partition events, and the job's partition
	// Detail is a human-readable summary (the nodes started on, an exit
	// code, what changed); Payload carries the same as data.
	Detail string
	// Payload is the typed detail of the change: *StartPayload,
	// *EndPayload, *PriorityPayload, *UpdatePayload, *RefusedPayload,
	// *PlanFailedPayload or *NodePayload; nil for kinds without one
	// (submit, suspend, resume, hold, release, partition).
	Payload Payload
}

// Payload is the typed detail of an event. The set of payload types is
// closed: switch on the concrete types listed on Event.Payload.
type Payload interface{ payload() }

// StartPayload: where a job started.
type StartPayload struct{ Placement *selectnodes.Placement }

// EndPayload: how a started job's allocation ended (finish, cancel of a
// running job, timeout, node failure, requeue).
type EndPayload struct{ End JobEnd }

// PriorityPayload: a priority change.
type PriorityPayload struct{ Old, New int64 }

// UpdatePayload: the fields an Update changed, by name ("TimeLimit",
// "Request", "Partition", "Priority", "Nice", "Dependency", "Begin").
type UpdatePayload struct{ Fields []string }

// RefusedPayload: a start that did not happen. Plugin names the
// ReservePlugin that refused ("" when the pipeline refused a Planner's
// decision); Status is its answer; Err the pipeline's error, if any.
type RefusedPayload struct {
	Plugin string
	Status *Status
	Err    error
}

// PlanFailedPayload: the Planner's error; the pass started nothing.
type PlanFailedPayload struct{ Err error }

// NodePayload: a node's new state.
type NodePayload struct {
	State selectnodes.NodeState
	// Ended are the jobs a node going down ended or requeued.
	Ended []JobID
}

func (*StartPayload) payload()      {}
func (*EndPayload) payload()        {}
func (*PriorityPayload) payload()   {}
func (*UpdatePayload) payload()     {}
func (*RefusedPayload) payload()    {}
func (*PlanFailedPayload) payload() {}
func (*NodePayload) payload()       {}

// Subscribe registers f for every later event and returns a function
// that unsubscribes it. f runs after the change, outside the scheduler's
// lock; it may call the scheduler. A subscriber that panics does not stop
// delivery: the panic is recovered, handed to the WithPanicHandler
// function if one is set, and the other subscribers still get the event.
func (s *Scheduler) Subscribe(f func(Event)) (unsubscribe func()) {
	if f == nil {
		panic("queue.Scheduler.Subscribe: f is nil")
	}
	s.enterRead()
	defer s.mu.Unlock()
	id := s.nextSub
	s.nextSub++
	s.subs = append(s.subs, subscriber{id, f})
	return func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		s.subs = slices.DeleteFunc(s.subs, func(x subscriber) bool { return x.id == id })
	}
}

// WithPanicHandler sets what is done with a subscriber's panic: h gets the
// recovered value and the event being delivered. By default the panic is
// dropped (the library prints nothing); delivery goes on either way.
//
// h also gets the panics of ReservePlugins and ReleasePlugins, which are
// contained too (see ReservePlugin), each with an Event of Seq 0 that is
// not part of the stream: the job, the time, and in Detail the plugin and
// the method. h runs outside the lock, after the call's events; a panic
// of h itself is dropped.
func WithPanicHandler(h func(recovered any, e Event)) Option {
	return func(o *options) { o.onPanic = h }
}

type subscriber struct {
	id int
	f  func(Event)
}

// emit queues an event; callers hold the lock.
// queuesEvents reports whether emit would queue an event now (some
// subscriber would receive it), so that a payload nobody receives need
// not be built.
func (s *Scheduler) queuesEvents() bool { return len(s.subs) > 0 || s.delivering }

func (s *Scheduler) emit(e Event) {
	s.eventSeq++
	if !s.queuesEvents() {
		// unlock would deliver it to nobody: no one can subscribe before
		// unlock takes its list, as the lock is held until then
		return
	}
	e.Seq = s.eventSeq
	e.Payload = own(e.Payload) // nothing of the scheduler's leaves with it
	s.outbox = append(s.outbox, e)
}

func (s *Scheduler) jobEvent(kind EventKind, j *job, now time.Time, detail string) {
	s.jobEventWith(kind, j, now, detail, nil)
}

func (s *Scheduler) jobEventWith(kind EventKind, j *job, now time.Time, detail string, p Payload) {
	s.emit(Event{Kind: kind, Time: now, Job: j.ID, State: j.State, Partition: j.Partition, Detail: detail, Payload: p})
}

// unlock releases the lock and delivers queued events in order, then
// the contained plugin panics to the handler. A subscriber calling back
// only queues more; the first deliverer drains.
func (s *Scheduler) unlock() {
	s.ctx = nil
	s.retain()
	if s.delivering || len(s.outbox) == 0 && len(s.panics) == 0 {
		s.mu.Unlock()
		return
	}
	s.delivering = true
	for len(s.outbox) > 0 || len(s.panics) > 0 {
		evs, subs, pans := s.outbox, slices.Clone(s.subs), s.panics
		s.outbox, s.panics = nil, nil
		s.mu.Unlock()
		s.deliverAll(evs, subs, pans)
		s.mu.Lock()
	}
	s.delivering = false
	s.mu.Unlock()
}

// deliverAll delivers one batch outside the lock. Should delivery stop
// half way (a subscriber ending its goroutine, which no recover stops),
// the scheduler is marked as delivering no more, so that later calls
// deliver their events rather than queue them for ever.
func (s *Scheduler) deliverAll(evs []Event, subs []subscriber, pans []pluginPanic) {
	done := false
	defer func() {
		if !done {
			s.mu.Lock()
			s.delivering = false
			s.mu.Unlock()
		}
	}()
	for _, e := range evs {
		for i, sub := range subs {
			ev := e
			if i < len(subs)-1 {
				ev.Payload = own(e.Payload) // each subscriber's own; the last gets the original
			}
			s.deliver(sub.f, ev)
		}
	}
	for _, p := range pans {
		s.handle(p.v, p.e)
	}
	done = true
}

// deliver calls one subscriber, containing its panic.
func (s *Scheduler) deliver(f func(Event), e Event) {
	defer func() {
		if r := recover(); r != nil {
			s.handle(r, e)
		}
	}()
	f(e)
}
