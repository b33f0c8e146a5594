package queue

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/bits-and-blooms/bitset"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// runsProfile is a profile of 2 nodes over slots starting at minutes 0,
// 10, 20, 30, 40: node 0 free in [0,10) and [20,40), busy after 40; node 1
// busy in [10,30), free otherwise (to the end).
func runsProfile() *profile {
	p := &profile{}
	free := [][]uint{{0, 1}, {}, {0}, {0, 1}, {1}}
	for i, f := range free {
		t := at(10 * i)
		p.times = append(p.times, t)
		p.at = append(p.at, t.UnixNano())
		b := bitset.New(2)
		for _, n := range f {
			b.Set(n)
		}
		p.free = append(p.free, b)
	}
	return p
}

func TestLongestRun(t *testing.T) {
	p := runsProfile()
	m := func(min int) int64 { return at(min).UnixNano() }
	for _, c := range []struct {
		name     string
		node     uint
		from, to int64
		want     time.Duration
	}{
		{"the run holding from", 0, m(25), m(26), 20 * time.Minute},
		{"from inside a run starts it where it starts", 0, m(35), m(36), 20 * time.Minute},
		{"a busy instant, the next run meets the interval", 0, m(12), m(21), 20 * time.Minute},
		{"a busy interval meets no run", 0, m(12), m(19), 0},
		{"the longest of two runs met", 0, m(5), m(25), 20 * time.Minute},
		{"an interval before the profile's start", 0, m(-30), m(1), 10 * time.Minute},
		{"a run to the end is unbounded", 1, m(31), m(32), math.MaxInt64},
		{"a run before a busy stretch", 1, m(0), m(5), 10 * time.Minute},
	} {
		assert.Equal(t, c.want, p.longestRun(c.node, c.from, c.to), c.name)
	}
	// node 0 as a job holding [40, 50) on it sees it: free to the end
	r := &reservation{Reservation: Reservation{Start: at(40), End: at(50)}, nodes: bitset.New(2).Set(0)}
	assert.Equal(t, time.Duration(math.MaxInt64), p.longestRunBut(0, m(25), m(26), r))
	e := &skipEntry{freed: true, from: m(25), to: m(26), nodes: bitset.New(2).Set(0).Set(1)}
	assert.Equal(t, time.Duration(math.MaxInt64), ownRun(p, e, r), "node 0 is the reservation's")
	r.nodes = bitset.New(2).Set(1)
	assert.Equal(t, time.Duration(0), ownRun(&profile{at: p.at, times: p.times, free: p.free}, &skipEntry{nodes: bitset.New(2).Set(0)}, r),
		"no node in common")
}

// The change log stays short however long a replay runs: prune drops
// what no certificate needs, and certificates too old to matter.
func TestSkipLogStaysBounded(t *testing.T) {
	c := cluster(t, "NodeName=n[0-15] CPUs=1\nPartitionName=batch Nodes=ALL Default=YES\n")
	s := New(c)
	jobs := 400
	if raceEnabled {
		jobs = 250
	}
	replayTwins(t, s, nil, rand.New(rand.NewPCG(3, 3)), 16, jobs, "bounded")
	require.NotNil(t, s.kept)
	assert.Greater(t, s.kept.skip.seq, uint64(4*pruneAt), "changes logged in all")
	assert.Less(t, len(s.kept.skip.entries), 2*pruneAt)
}

// longestRuns is the most longestRun gives any of the nodes: random
// profiles of up to three words of nodes, intervals starting before,
// at and inside the profile, some ending before it starts.
func TestLongestRunsMatchesLongestRun(t *testing.T) {
	seed := uint64(5300)
	t.Logf("seed %d", seed)
	r := rand.New(rand.NewPCG(seed, 1))
	for iter := 0; iter < 2000; iter++ {
		n := uint(1 + r.IntN(150))
		p := randomSlots(r, n)
		nodes := bitset.New(n)
		for k := uint(0); k < n; k++ {
			if r.IntN(1+r.IntN(8)) == 0 {
				nodes.Set(k)
			}
		}
		from := p.at[0] + int64(r.IntN(400)-100)*int64(time.Minute)
		to := from + int64(1+r.IntN(240))*int64(time.Minute)
		if k := r.IntN(len(p.at)); r.IntN(3) == 0 && p.at[k] > from {
			to = p.at[k] // on a boundary
		}
		var want time.Duration
		for k, ok := nodes.NextSet(0); ok; k, ok = nodes.NextSet(k + 1) {
			want = max(want, p.longestRun(k, from, to))
		}
		require.Equal(t, want, p.longestRuns(nodes, from, to), "iter %d", iter)
		require.Equal(t, want, p.longestRuns(nodes, from, to), "iter %d, buffers reused", iter)
	}
}

// randomSlots is a profile of up to 12 slots over n nodes, the first at
// t0 and the others 1-30 minutes apart, each node free in a slot with
// probability 2/3.
func randomSlots(r *rand.Rand, n uint) *profile {
	p := &profile{}
	for i, m := 0, 0; i < 1+r.IntN(12); i++ {
		m += 1 + r.IntN(30)
		at := t0.Add(time.Duration(m) * time.Minute)
		if i == 0 {
			at = t0
		}
		s := bitset.New(n)
		for k := uint(0); k < n; k++ {
			if r.IntN(3) > 0 {
				s.Set(k)
			}
		}
		p.times, p.at, p.free = append(p.times, at), append(p.at, at.UnixNano()), append(p.free, s)
	}
	return p
}
