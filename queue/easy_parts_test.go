package queue

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// partsConf is a random cluster of two to four partitions on random node
// ranges, which may overlap, now and then one down or with a MaxTime;
// it returns the partitions' names too.
func partsConf(r *rand.Rand) (string, []string) {
	var b strings.Builder
	n := 2 + r.IntN(30)
	if r.IntN(2) == 0 {
		b.WriteString("SelectType=select/cons_res\nSelectTypeParameters=CR_CPU\n")
	}
	fmt.Fprintf(&b, "NodeName=n[1-%d] CPUs=%d\n", n, []int{1, 2, 8}[r.IntN(3)])
	k := 2 + r.IntN(3)
	names := []string{""} // the default, by no name
	for i := range k {
		lo := 1 + r.IntN(n)
		hi := lo + r.IntN(n-lo+1)
		fmt.Fprintf(&b, "PartitionName=p%d Nodes=n[%d-%d]", i, lo, hi)
		switch {
		case i == 0:
			b.WriteString(" Default=YES")
		case r.IntN(6) == 0:
			b.WriteString(" State=DOWN")
		case r.IntN(4) == 0:
			fmt.Fprintf(&b, " MaxTime=%d", 30+r.IntN(90))
		}
		b.WriteString("\n")
		names = append(names, fmt.Sprintf("p%d", i))
	}
	return b.String(), names
}

// On random clusters of several partitions (overlapping or not, some down
// or limited) at random depths, an incremental EASY pass starts what a
// whole pass starts, on the same nodes: the partition locks and the
// in-order starts past the depth go on from one pass to the next as a
// whole pass would make them.
func TestEASYIncrementalOnPartitions(t *testing.T) {
	r := seeded(t, 23)
	rounds := twinIterations(60, 8, 3)
	resumed, starts := 0, 0
	for k := range rounds {
		conf, parts := partsConf(r)
		depth := []int{0, 1, 1, 2, 3, 5}[r.IntN(6)]
		tw := newEASYTwins(t, conf, WithBackfillDepth(depth))
		tw.parts = parts
		tw.replay(r, 200, 4, fmt.Sprintf("round %d depth %d (%q)", k, depth, conf))
		resumed, starts = resumed+tw.ei.resumed, starts+tw.starts
		require.NoError(t, tw.incr.Cluster().CheckInvariants())
	}
	require.Positive(t, resumed, "no pass went on from the last one")
	t.Logf("%d passes went on from the last one; %d starts", resumed, starts)
}

// An incremental pass goes on past the depth in the partitions not locked
// yet: the head locked main at the depth, and a debug job submitted after
// starts in order, in the incremental pass as in a whole one.
func TestEASYIncrementalPastDepth(t *testing.T) {
	tw := newEASYTwins(t, twoParts, WithBackfillDepth(1))
	sub := func(part string, n, limit int, now time.Time) {
		spec := nodes(n, time.Duration(limit)*time.Minute)
		spec.Request.Partition = part
		tw.both("submit", func(s *Scheduler) error { _, err := s.Submit(spec, now); return err })
	}
	sub("", 2, 60, at(0))
	sub("debug", 1, 60, at(0))
	require.Len(t, tw.pass(at(0), "first"), 2)
	sub("", 2, 60, at(1)) // the head: no node is free in main
	sub("", 1, 60, at(1)) // past the depth, main is locked: it waits
	require.Empty(t, tw.pass(at(1), "head"))
	sub("", 1, 60, at(2))      // so does this one
	sub("debug", 1, 30, at(2)) // debug is not locked: it starts on the last node
	require.Len(t, tw.pass(at(2), "past the depth"), 1)
	require.Equal(t, 2, tw.ei.resumed, "the passes after the first went on from the last one")
}

// Locking the partitions whose nodes the locked ones all withhold changes
// no start: random clusters of several partitions (nested and overlapping
// ones among them) at random depths, a pass with it and one without after
// the same calls, compared (the one without goes on from the last pass
// when it can).
func TestEASYCoverLockStartsTheSame(t *testing.T) {
	r := seeded(t, 29)
	rounds := twinIterations(60, 8, 3)
	for k := range rounds {
		conf, parts := partsConf(r)
		depth := []int{0, 1, 1, 2, 3, 5}[r.IntN(6)]
		tw := newEASYTwins(t, conf, WithBackfillDepth(depth))
		tw.ei.noCover = true
		tw.parts = parts
		tw.replay(r, 150, 4, fmt.Sprintf("round %d depth %d (%q)", k, depth, conf))
	}
}

// Keeping the busy class of a refused job's selection (whether it locks
// its partition) from pass to pass changes no start: random clusters of
// several partitions at random depths, nodes drained, downed and resumed
// now and then (the kept answers go with each change), passes that ask
// every selection against passes that keep the answers.
func TestEASYLockMemoStartsTheSame(t *testing.T) {
	r := seeded(t, 31)
	rounds := twinIterations(60, 8, 2)
	hits := 0
	for k := range rounds {
		conf, parts := partsConf(r)
		depth := []int{1, 1, 2, 3, 5}[r.IntN(5)]
		tw := newEASYTwins(t, conf, WithBackfillDepth(depth))
		tw.ew.noLockMemo = true
		tw.parts, tw.nodeStates = parts, true
		tw.replay(r, 150, 4, fmt.Sprintf("round %d depth %d (%q)", k, depth, conf))
		hits += tw.ei.lockMemo.hits
	}
	if !raceEnabled { // (two rounds under the race detector may keep none)
		require.Positive(t, hits, "no kept answer was used")
	}
	t.Logf("%d kept answers used", hits)
}

// A walk cut by the depth whose starts were all in order (they count
// against no depth) is gone on from by the next incremental pass: a
// whole pass would count the same jobs before the cut. main is filled
// and a debug job started in order; main's next job, too large for the
// free counts, is the head at depth 1; past the depth another debug job
// starts in order. A debug job submitted later waits, locking debug, in
// the incremental pass as in a whole one.
func TestEASYIncrementalAfterInOrderStartsPastTheDepth(t *testing.T) {
	tw := newEASYTwins(t, twoParts, WithBackfillDepth(1))
	sub := func(part string, n int, now time.Time) {
		spec := nodes(n, time.Hour)
		spec.Request.Partition = part
		tw.both("submit", func(s *Scheduler) error { _, err := s.Submit(spec, now); return err })
	}
	sub("", 2, at(0))      // fills main, in order
	sub("debug", 1, at(0)) // in order
	sub("", 2, at(0))      // the head, at the depth
	sub("debug", 1, at(0)) // past the depth, in order
	require.Len(t, tw.pass(at(0), "first"), 3)
	sub("debug", 1, at(1))
	require.Empty(t, tw.pass(at(1), "after a submission"))
	require.Equal(t, 1, tw.ei.resumed, "the second pass went on from the first")
	require.Equal(t, []string{"main", "debug"}, tw.ei.locks.names)
}
