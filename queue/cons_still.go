package queue

import (
	"slices"
	"time"

	"github.com/hpcsched/hpcsched/selectnodes"
)

// Between two passes often nothing happened but submissions: no job
// started or ended, no node or partition changed. The nodes' free times
// and the nodes that can never be used, which a pass reads node by node
// to bring the kept profile up to date, are then what the last pass read,
// but for time: a free time is now once now reaches it. So when the
// cluster counts no change since that read (selectnodes'
// Cluster.Changes), no pass since started a job, and now is before every
// allocation's end the read saw still ahead, the pass keeps what it read
// without reading it again. A free time the read took as now (an
// allocation past its end) is still not after now, which every use of a
// free time treats as free now, whatever the value.

// nodesRead is when the kept free times were read: the cluster's change
// count then and the earliest allocation end after that pass's now
// (math.MaxInt64 for none); ok is false until a read.
type nodesRead struct {
	changes uint64
	nextEnd int64
	ok      bool
}

// nodesStill reports whether the kept free times and unusable nodes are
// still what a read at nowAt would give (see above).
func (k *keptPlan) nodesStill(c *selectnodes.Cluster, nowAt int64) bool {
	r := k.read
	return r.ok && r.changes == c.Changes() && nowAt < r.nextEnd && len(k.started) == 0
}

// readNodes reads each node's free time and whether it can be used at
// now, compares them with the kept ones, notes each change in ch, marks
// the nodes whose columns must be recomputed and counts the boundaries
// the free times name; the kept ones become the ones read.
func (s *Scheduler) readNodes(k *keptPlan, now time.Time, ch *inputChanges) {
	nowAt := now.UnixNano()
	freeFrom, never, read := s.freeFrom(now, k.spare, k.spareNever, &k.ends)
	seen := k.seenFree(len(freeFrom))
	was, is := k.never.Words(), never.Words() // read a word at a time: a node's Test costs a call
	same := slices.Equal(was, is)             // the usual case: no node came or went
	// and usually no start in the last pass: every seen[i] is then
	// math.MinInt64, and a node is passed over on its free time alone
	quick := same && len(k.started) == 0
	old := k.freeFrom[:len(freeFrom)] // (as long: see keptProfile)
	for i, b := range freeFrom {
		a := old[i]
		if a == b && (quick || same && seen[i] <= b) { // (la == b below, and the sets agree)
			continue
		}
		la := max(a, seen[i]) // as the last pass's certificates read it
		wasNever, isNever := wordHas(was, i), wordHas(is, i)
		if a == b && la == b && wasNever == isNever {
			continue
		}
		ch.node(i, la, b, wasNever, isNever)
		if a == b && wasNever == isNever {
			continue // (a start in the pass dirtied the node already)
		}
		if wasNever != isNever || a > nowAt || b > nowAt {
			k.dirty.Set(uint(i))
		}
		if !wasNever {
			k.unref(a, nowAt)
		}
		if !isNever {
			k.ref(b, now, nowAt)
		}
	}
	k.freeFrom, k.never, k.spare, k.spareNever = freeFrom, never, k.freeFrom, k.never
	k.read = read
	k.clearSeen(seen)
}

// wordHas reports whether the set of words w holds i (false past its end).
func wordHas(w []uint64, i int) bool {
	k := i >> 6
	return k < len(w) && w[k]&(1<<(uint(i)&63)) != 0
}
