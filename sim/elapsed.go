package sim

import "time"

// wallSub is t.Sub(u) for two times of one replay: each is the epoch
// moved by Add, so the monotonic clock readings they may carry (an epoch
// from time.Now) moved as their wall clocks did, and the difference of
// the wall clocks is Sub's. It is read from the Unix seconds and
// nanoseconds, where Sub adds the difference back to u to check it; far
// apart (over 2^33 s, where the nanoseconds could overflow) Sub answers.
// The measures take two differences for every job.
func wallSub(t, u time.Time) time.Duration {
	if ds := t.Unix() - u.Unix(); ds > -1<<33 && ds < 1<<33 {
		return time.Duration(ds)*time.Second + time.Duration(t.Nanosecond()-u.Nanosecond())
	}
	return t.Sub(u)
}

// wallBefore is t.Before(u) for two times of one replay (as wallSub: the
// order of their wall clocks is the order of their monotonic readings),
// read from the Unix seconds and nanoseconds without a call. The end
// events are ordered by it.
func wallBefore(t, u time.Time) bool {
	ts, us := t.Unix(), u.Unix()
	return ts < us || ts == us && t.Nanosecond() < u.Nanosecond()
}
