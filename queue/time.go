package queue

import (
	"fmt"
	"math"
	"time"
)

// The times a Scheduler accepts. Backfill's profile and the reservations
// are kept as Unix nanoseconds, which an int64 holds from 1677-09-21 to
// 2262-04-11; so every time a caller passes (now, Spec.Begin,
// Update.Begin) must fall in the years MinYear to MaxYear, and a time the
// scheduler derives from one (an expected end, a reservation) saturates at
// EndOfTime. Restore holds a saved state to the same rule, so whatever
// Snapshot writes, Restore reads.
const (
	// MinYear is the earliest year of a time the scheduler accepts.
	MinYear = 1678
	// MaxYear is the latest year of a time the scheduler accepts.
	MaxYear = 2261
)

// EndOfTime is where derived times saturate: a job planned to end after
// it (a century's time limit from 2200, say) is planned to end then.
// No call's now reaches it, so nothing ends there early.
var EndOfTime = time.Date(MaxYear+1, 1, 1, 0, 0, 0, 0, time.UTC)

// The Unix seconds of MinYear's first instant and of the first after
// MaxYear, in UTC (TestYearBoundsInUnixSeconds checks them).
const (
	minYearUnix     = -9_214_560_000 // 1678-01-01T00:00:00Z
	pastMaxYearUnix = 9_214_646_400  // 2262-01-01T00:00:00Z
)

// CheckTime returns an error matching ErrTime when t is outside the years
// MinYear to MaxYear (the zero Time is: it is in year 1). Schedule,
// Backfill and Tick, which return no error, do nothing at such a time; a
// caller may ask CheckTime first.
func CheckTime(t time.Time) error {
	// a UTC time (a replay's, say) by its Unix seconds: the years'
	// bounds are fixed instants there, and Year is a calendar computation
	if t.Location() == time.UTC {
		if u := t.Unix(); u >= minYearUnix && u < pastMaxYearUnix {
			return nil
		}
	}
	if y := t.Year(); y < MinYear || y > MaxYear {
		return fmt.Errorf("%w: %s is outside the years %d to %d", ErrTime, t.Format(time.RFC3339Nano), MinYear, MaxYear)
	}
	return nil
}

// later is t+d, saturating at EndOfTime.
func later(t time.Time, d time.Duration) time.Time {
	if d <= 0 {
		return t
	}
	// the usual case by the Unix seconds (a compare of times, and a
	// second after the Add, cost more): t+d is before EndOfTime when the
	// gap from t to it, in nanoseconds, exceeds d
	if u := t.Unix(); u >= minYearUnix && u < pastMaxYearUnix && d < 1<<62 {
		gap := pastMaxYearUnix - u // seconds, >= 1
		if gap >= 1<<33 || d < time.Duration(gap*1e9-int64(t.Nanosecond())) {
			return t.Add(d) // (1<<33 s exceed every d < 1<<62 ns)
		}
		return EndOfTime
	}
	if !t.Before(EndOfTime) {
		return EndOfTime
	}
	if d < math.MaxInt64 {
		// t+d reaches EndOfTime exactly when EndOfTime.Sub(t) <= d: where
		// Sub saturates the gap is more than d. One Add and one compare
		// instead of Sub's (an Add and a compare of its own, besides).
		if e := t.Add(d); e.Before(EndOfTime) {
			return e
		}
		return EndOfTime
	}
	return laterSlow(t, d)
}

// laterSlow is later by EndOfTime.Sub, for the largest d, where Sub's
// saturation says EndOfTime even from a t more than d before it.
func laterSlow(t time.Time, d time.Duration) time.Time {
	if EndOfTime.Sub(t) <= d {
		return EndOfTime
	}
	return t.Add(d)
}

// notBefore returns an ErrTime error when now precedes the job's own
// time at (its submit, start or suspension), named what.
func notBefore(j *job, now, at time.Time, what string) error {
	if now.Before(at) {
		return fmt.Errorf("%w: %s of job %d is after %s", ErrTime, what, j.ID, now.Format(time.RFC3339Nano))
	}
	return nil
}

// since is the time a job-level call acts at: now, unless it precedes the
// job's latest own time (submit, start, suspension), which is an ErrTime
// error. It also checks now's range.
func (j *job) since(now time.Time) error {
	if err := CheckTime(now); err != nil {
		return err
	}
	switch j.State {
	case Running:
		return notBefore(j, now, j.Start, "the start")
	case Suspended:
		return notBefore(j, now, j.suspendedAt, "the suspension")
	}
	return notBefore(j, now, j.Submit, "the submission")
}

// passTime is the time a pass (Schedule, Backfill, Tick, WillRun) or a
// cluster-wide change (SetNodeState, UpdatePartition) acts at: never
// earlier than the latest time the scheduler has been given, so that no
// job starts before it was submitted or ends before it started; ok is
// false when now is outside the accepted years.
func (s *Scheduler) passTime(now time.Time) (time.Time, bool) {
	if CheckTime(now) != nil {
		return now, false
	}
	if now.Before(s.clock) {
		return s.clock, true
	}
	s.clock = now
	return now, true
}

// saw advances the scheduler's clock to now (a call accepted at now).
func (s *Scheduler) saw(now time.Time) {
	if now.After(s.clock) {
		s.clock = now
	}
}

// addDurations is a+b for non-negative durations, saturating.
func addDurations(a, b time.Duration) time.Duration {
	if b > 0 && a > math.MaxInt64-b {
		return math.MaxInt64
	}
	return a + b
}

// unixNanoSecs bounds the Unix seconds of a time whose UnixNano is exact
// (the seconds times 1e9, plus the nanoseconds, fit an int64).
const unixNanoSecs = 9_223_372_035

// subUnix is t.Sub(u) for u given as u.UnixNano(), neither with a
// monotonic clock reading, by one subtraction of nanoseconds; ok is false
// (and the caller calls Sub) where that could differ from Sub: t outside
// the years UnixNano can hold, or a difference within a second or so of
// where Sub saturates (its seconds times 1e9 could overflow there). An
// EASY plan reads every running job's end this way.
func subUnix(t time.Time, uN int64) (time.Duration, bool) {
	if s := t.Unix(); s <= -unixNanoSecs || s >= unixNanoSecs {
		return 0, false
	}
	tN := t.UnixNano()
	d := tN - uN
	if (tN^uN)&(tN^d) < 0 || d <= -1<<62 || d >= 1<<62 {
		return 0, false // overflowed, or far enough to need Sub's care
	}
	return time.Duration(d), true
}
