package queue

import (
	"slices"

	"github.com/bits-and-blooms/bitset"
	"github.com/hpcsched/hpcsched/selectnodes"
)

// EASY's partition locks. Schedule's pass (selectOne) locks a job's
// partition when its selection fails as busy, and withholds the locked
// partitions' nodes from every later job, which may still start in order
// on the rest. An EASY pass keeps the same locks so that BackfillDepth
// bounds only its backfills: the head locks its partition (its plan holds
// it), and a later job left waiting locks its own when Schedule's
// selection would fit it or fail as busy. A job held by its partition's
// limits, or that fails for another class (nodes down or drained, a
// configuration it never runs on), locks nothing, as in Schedule.
//
// On nodes shared by partitions, a start of a partition not locked yet
// that takes a node of a locked one is one Schedule's pass would not make
// (it withholds those nodes): it counts as a backfill, and past the depth
// the selection keeps off those nodes, as Schedule's does.

// easyLocks is what consider does with the locked partitions' nodes: keep
// off them (past the depth), or report whether the start takes one.
type easyLocks struct {
	keepOff, touch *bitset.BitSet
}

// isLocked reports whether a job of partition name was left waiting
// before in the walk.
func (w *easyWalk) isLocked(name string) bool {
	return len(w.locked) > 0 && slices.Contains(w.locked, name)
}

// locksFor is consider's easyLocks for a job of a partition locked or not
// (inOrder), before or past the depth: none for a backfill, or before any
// lock.
func (e *EASY) locksFor(w *easyWalk, inOrder, past bool) easyLocks {
	if !inOrder || len(w.locked) == 0 {
		return easyLocks{}
	}
	if past {
		return easyLocks{keepOff: e.withheldNodes(w)}
	}
	return easyLocks{touch: e.withheldNodes(w)}
}

// withheldNodes is the union of the locked partitions' nodes, brought up
// to date with the partitions locked since it was last read.
func (e *EASY) withheldNodes(w *easyWalk) *bitset.BitSet {
	c := e.s.c
	for ; w.withheldOf < len(w.locked); w.withheldOf++ {
		if w.withheldOf == 0 {
			if n := uint(c.NodeCount()); e.withheld == nil || e.withheld.Len() != n {
				e.withheld = bitset.New(n)
			}
			e.withheld.ClearAll()
			w.withheld = e.withheld
		}
		if nodes, ok := c.PartitionNodesInto(w.locked[w.withheldOf], e.partNodes); ok {
			e.partNodes = nodes
			w.withheld.InPlaceUnion(nodes)
		}
	}
	return w.withheld
}

// leftWaiting records that walk w leaves job j (refused, not held by its
// partition's limits) waiting: the first such job with a possible start
// is the head, and locks its partition; a later one locks its own, when
// it was not locked (inOrder), as Schedule's pass would.
func (e *EASY) leftWaiting(w *easyWalk, j *job, inOrder bool) {
	if w.head == nil {
		if w.head = e.headPlan(j, w.now); w.head == nil {
			w.unsure = true
			return
		}
		w.locked = append(w.locked, j.Partition)
		if !w.head.lazy.pending {
			w.outCPUs, w.outNodes = e.freeOutside(w.head.nodes)
		}
		return
	}
	if inOrder && e.locksAsBusy(w, j) {
		w.locked = append(w.locked, j.Partition)
	}
}

// locksAsBusy reports whether Schedule's selection of j, refused here,
// would lock its partition: with the locked partitions' nodes withheld it
// fits now (the head's plan refused it) or fails as busy. Another class
// locks nothing; the walk is then unsure, since a later pass with fewer
// free nodes could classify it otherwise.
func (e *EASY) locksAsBusy(w *easyWalk, j *job) bool {
	e.req = j.Request
	e.req.ExcludeNodes = withheldToo(e.req.ExcludeNodes, e.withheldNodes(w))
	_, err := e.s.c.Try(&e.req, selectnodes.RunNow)
	if err == nil || isSelectClass(err, selectnodes.ErrBusy) {
		return true
	}
	w.unsure = true
	return false
}

// takesAny reports whether placement p takes a node of nodes.
func takesAny(p *selectnodes.Placement, nodes *bitset.BitSet) bool {
	for k := range p.Alloc {
		if nodes.Test(uint(p.Alloc[k].Node)) {
			return true
		}
	}
	return false
}
