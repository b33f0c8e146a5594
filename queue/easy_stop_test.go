package queue

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// Past the depth, a walk ends once every partition with a job left to
// walk is locked: a partition no queued job names (or whose queued jobs
// are all behind) never locks, and the walk does not read the rest of
// the queue for it. main (n0-n1) is full, its next job the head (locking
// main) at depth 1; behind it, 18 more jobs of main, and debug (n2-n3)
// idle.
func TestEASYWalkEndsPastTheDepth(t *testing.T) {
	for _, tc := range []struct {
		name string
		conf string
		// debug's jobs: before the head (position -1) or at a position
		// among main's 18 (0-17); held by debug's MaxTime when long
		debug      []int
		long       bool
		walked     int // jobs the walk read past the depth
		startsPast int
	}{
		{name: "debug empty", conf: twoParts, walked: 0},
		{name: "a debug job at 9 starts in order, then the walk ends", conf: twoParts, debug: []int{9}, walked: 11, startsPast: 1},
		{name: "two debug jobs at 3 and 12", conf: twoParts, debug: []int{3, 12}, walked: 15, startsPast: 2},
		{name: "debug's only job is before the head, held by its MaxTime", conf: limitParts, debug: []int{-1}, long: true, walked: 0},
		{name: "a held debug job before the head and one at 5", conf: limitParts, debug: []int{-1, 5}, long: true, walked: 7, startsPast: 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := New(cluster(t, tc.conf), WithBackfillDepth(1))
			e := NewEASY(s)
			submit(t, s, nodes(2, time.Hour), at(0))
			require.Len(t, e.BackfillIDs(at(0), nil), 1) // main is full
			debug := func() {
				spec := nodes(1, 20*time.Minute)
				if tc.long {
					spec = nodes(1, time.Hour) // over debug's MaxTime=30 when the first is
				}
				spec.Request.Partition = "debug"
				submit(t, s, spec, at(1))
				tc.long = false // only the first is held
			}
			for _, p := range tc.debug {
				if p < 0 {
					debug()
				}
			}
			submit(t, s, nodes(1, time.Hour), at(1)) // the head
			for k := range 18 {
				submit(t, s, nodes(1, time.Hour), at(1))
				for _, p := range tc.debug {
					if p == k {
						debug()
					}
				}
			}
			started := e.BackfillIDs(at(1), nil)
			require.Len(t, started, tc.startsPast)
			require.Equal(t, tc.walked, e.walkedPast, "jobs read past the depth")
		})
	}
}

// Ending the walk once no job of a partition not locked is left changes
// no start: random clusters of several partitions (the replay's jobs
// name some of them only, so that others stay empty) at random depths,
// a walk that ends so against one that reads the queue to its end.
func TestEASYWalkEndStartsTheSame(t *testing.T) {
	r := seeded(t, 37)
	rounds := twinIterations(60, 8, 3)
	for k := range rounds {
		conf, parts := partsConf(r)
		depth := []int{1, 1, 2, 3, 5}[r.IntN(5)]
		tw := newEASYTwins(t, conf, WithBackfillDepth(depth))
		tw.ew.noWalkEnd = true
		tw.parts = parts[:1+r.IntN(len(parts))]
		tw.nodeStates = r.IntN(2) == 0
		tw.replay(r, 200, 4, fmt.Sprintf("round %d depth %d parts %q (%q)", k, depth, tw.parts, conf))
	}
}
