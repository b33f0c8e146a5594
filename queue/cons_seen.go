package queue

import (
	"math"

	"github.com/bits-and-blooms/bitset"
)

// A job a pass starts takes its nodes in the kept profile at once, and
// the plans after it in the pass read the profile so; but the kept free
// times (keptPlan.freeFrom) are those of the pass's start, so the next
// pass would compare the cluster with a profile in which those nodes were
// free. Were such a job to end early and another job to start on its
// nodes before the next pass, the room between the new job's end and the
// started one's would never reach the change log, and a certificate that
// could use it would stand where a full plan would move its job. So a
// start in a pass is noted here, and the next pass compares each node's
// free time with the later of the kept one and the ends started on it.

// nodeUntil is a node a pass started a job on, and the job's end.
type nodeUntil struct {
	node int
	end  int64
}

// startedUntil notes that a start in the pass took nodes until end.
func (k *keptPlan) startedUntil(nodes *bitset.BitSet, end int64) {
	for i, ok := nodes.NextSet(0); ok; i, ok = nodes.NextSet(i + 1) {
		k.started = append(k.started, nodeUntil{int(i), end})
	}
}

// seenFree returns, per node of n, the latest end a start in the last
// pass gave it (math.MinInt64 for none), in storage kept with the plan.
func (k *keptPlan) seenFree(n int) []int64 {
	if len(k.seen) != n {
		k.seen = make([]int64, n)
		for i := range k.seen {
			k.seen[i] = math.MinInt64
		}
	}
	for _, s := range k.started {
		k.seen[s.node] = max(k.seen[s.node], s.end)
	}
	return k.seen
}

// clearSeen forgets the starts seenFree read.
func (k *keptPlan) clearSeen(seen []int64) {
	for _, s := range k.started {
		seen[s.node] = math.MinInt64
	}
	k.started = k.started[:0]
}
