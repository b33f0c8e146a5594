package queue

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/hpcsched/hpcsched/internal/testseed"
	"github.com/stretchr/testify/require"
)

// subUnix agrees with Sub wherever it answers, and answers for the times a
// replay meets: random pairs across the years the scheduler accepts and
// beyond (where Sub saturates), pairs near the differences where Sub's
// arithmetic overflows, and a table of edges.
func TestSubUnixIsSub(t *testing.T) {
	seed := testseed.Draw(t)
	r := rand.New(rand.NewPCG(seed, 43))
	lo := time.Date(MinYear-5, 1, 1, 0, 0, 0, 0, time.UTC).Unix()
	hi := time.Date(MaxYear+5, 1, 1, 0, 0, 0, 0, time.UTC).Unix()
	at := func() time.Time { return time.Unix(lo+r.Int64N(hi-lo), r.Int64N(1e9)).UTC() }
	check := func(a, b time.Time, what string) bool {
		if b.Unix() <= -unixNanoSecs || b.Unix() >= unixNanoSecs {
			return false // the caller's u must have an exact UnixNano
		}
		got, ok := subUnix(a, b.UnixNano())
		if ok {
			require.Equal(t, a.Sub(b), got, "%s: %v - %v (seed %d)", what, a, b, seed)
		}
		return ok
	}
	answered, pairs := 0, 20000
	if testing.Short() {
		pairs = 4000
	}
	for range pairs {
		a, b := at(), at()
		if check(a, b, "random") {
			answered++
		}
		// near 2^62 ns apart, where the check must decline
		edge := b.Add(time.Duration(1<<62) + time.Duration(r.Int64N(4e9)-2e9))
		check(edge, b, "near 2^62")
		check(b, edge, "near -2^62")
	}
	require.Greater(t, answered, pairs/4, "the fast path should answer pairs less than 146 years apart")
	t0 := time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		a, b time.Time
		ok   bool
	}{
		{t0.Add(time.Hour), t0, true},
		{t0, t0.Add(time.Hour), true},
		{EndOfTime, t0, false},                                             // 262 years: Sub answers
		{EndOfTime, time.Date(MinYear, 1, 1, 0, 0, 0, 0, time.UTC), false}, // Sub saturates
		{time.Date(MinYear, 1, 1, 0, 0, 0, 0, time.UTC), EndOfTime, false},
		{time.Time{}, t0, false}, // year 1: no exact UnixNano
	} {
		d, ok := subUnix(c.a, c.b.UnixNano())
		require.Equal(t, c.ok, ok, "%v - %v", c.a, c.b)
		if ok {
			require.Equal(t, c.a.Sub(c.b), d, "%v - %v", c.a, c.b)
		}
	}
}
