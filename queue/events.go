package queue

import (
	"slices"
	"time"
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
	EventPriority   EventKind = "priority" // a job's priority changed
	EventNodeDown   EventKind = "node_down"
	EventNodeDrain  EventKind = "node_drain"
	EventNodeResume EventKind = "node_resume"
	EventPartition  EventKind = "partition" // a partition was added or changed
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
	Detail    string // e.g. the nodes started on, an exit code, what changed
}

// Subscribe registers f for every later event and returns a function
// that unsubscribes it. f runs after the change, outside the scheduler's
// lock; it may call the scheduler.
func (s *Scheduler) Subscribe(f func(Event)) (unsubscribe func()) {
	s.mu.Lock()
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

type subscriber struct {
	id int
	f  func(Event)
}

// emit queues an event; callers hold the lock.
func (s *Scheduler) emit(e Event) {
	s.eventSeq++
	e.Seq = s.eventSeq
	s.outbox = append(s.outbox, e)
}

func (s *Scheduler) jobEvent(kind EventKind, j *job, now time.Time, detail string) {
	s.emit(Event{Kind: kind, Time: now, Job: j.ID, State: j.State, Partition: j.Partition, Detail: detail})
}

// unlock releases the lock and delivers queued events in order. A
// subscriber calling back only queues more; the first deliverer drains.
func (s *Scheduler) unlock() {
	if s.delivering || len(s.outbox) == 0 {
		s.mu.Unlock()
		return
	}
	s.delivering = true
	for len(s.outbox) > 0 {
		evs, subs := s.outbox, slices.Clone(s.subs)
		s.outbox = nil
		s.mu.Unlock()
		for _, e := range evs {
			for _, sub := range subs {
				sub.f(e)
			}
		}
		s.mu.Lock()
	}
	s.delivering = false
	s.mu.Unlock()
}
