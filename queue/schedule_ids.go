package queue

import (
	"context"
	"time"
)

// ScheduleIDs is Schedule for a caller that needs only which jobs started
// (a replay): it appends their IDs to dst, in the order Schedule returns
// them, and returns it. A start builds no hostlist unless a subscriber
// receives its event. dst is the caller's; the scheduler keeps none of it.
func (s *Scheduler) ScheduleIDs(now time.Time, dst []JobID) []JobID {
	s.lock(context.Background())
	defer s.unlock()
	defer s.quiet()()
	started := s.schedule(context.Background(), now)
	return appendIDs(dst, started)
}

// BackfillIDs is BackfillStarts for a caller that needs only which jobs
// started: the same pass, appending their IDs to dst, with no hostlist
// built for a start nobody subscribes to. dst is the caller's.
func (s *Scheduler) BackfillIDs(now time.Time, dst []JobID) []JobID {
	s.lock(context.Background())
	defer s.unlock()
	defer s.quiet()()
	return appendIDs(dst, s.backfill(now))
}

// quiet marks the pass's starts as read by ID only, and returns what
// restores the scheduler as it was.
func (s *Scheduler) quiet() func() {
	s.quietStarts = true
	return func() { s.quietStarts = false }
}

func appendIDs(dst []JobID, started []Started) []JobID {
	for _, st := range started {
		dst = append(dst, st.Job)
	}
	return dst
}
