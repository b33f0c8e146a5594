package queue

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestShortScanMatchesShort: on random profiles, for starts visited in
// increasing order with random jumps (as earliest visits them: one by
// one, or past a short slot), shortScan.at answers what short does.
func TestShortScanMatchesShort(t *testing.T) {
	for seed := uint64(1); seed <= 60; seed++ {
		t.Logf("seed %d", seed)
		r := rand.New(rand.NewPCG(seed, 23))
		n := []int{3, 20, 64, 130}[seed%4]
		freeAt := make([]time.Time, n)
		for i := range freeAt {
			if r.IntN(4) > 0 {
				freeAt[i] = t0.Add(time.Duration(r.IntN(900)) * time.Minute)
			}
		}
		p := newProfile(t0, freeAt, randomNodes(r, n, r.IntN(2)), time.Minute, nil, &bfBuffers{})
		for range 10 { // reservations, so counts fall as well as rise
			start := p.times[r.IntN(len(p.times))]
			d := time.Duration(1+r.IntN(400)) * time.Minute
			w := randomNodes(r, n, 1+r.IntN(n))
			p.take(w, start, start.Add(d))
		}
		for range 20 {
			d := time.Duration(r.IntN(600)) * time.Minute
			if r.IntN(5) == 0 {
				d = 0
			}
			need := 1 + r.IntN(n)
			sc := p.shortScan(d, need)
			for i := r.IntN(3); i < len(p.times); {
				want := p.short(i, d, need)
				require.Equal(t, want, sc.at(i), "seed %d start %d d %v need %d", seed, i, d, need)
				switch {
				case want >= 0 && r.IntN(2) == 0:
					i = want + 1 // as earliest skips past a short slot
				default:
					i += 1 + r.IntN(2)
				}
			}
		}
	}
}

// laterAt is later in Unix nanoseconds, up to and past EndOfTime.
func TestLaterAtIsLater(t *testing.T) {
	require.Equal(t, EndOfTime.UnixNano(), int64(endOfTimeAt))
	r := rand.New(rand.NewPCG(4, 4))
	starts := []time.Time{t0, EndOfTime, EndOfTime.Add(-time.Nanosecond), EndOfTime.Add(-time.Hour),
		time.Date(MinYear, 1, 1, 0, 0, 0, 0, time.UTC)}
	for range 200 {
		starts = append(starts, t0.Add(time.Duration(r.Int64N(int64(200*365*24*time.Hour)))))
	}
	ds := []time.Duration{-time.Second, 0, 1, time.Minute, time.Hour, 1<<63 - 1, EndOfTime.Sub(t0)}
	for _, s := range starts {
		for _, d := range append(ds, time.Duration(r.Int64N(1<<62))) {
			require.Equal(t, later(s, d).UnixNano(), laterAt(s.UnixNano(), d), "%v + %v", s, d)
		}
	}
}
