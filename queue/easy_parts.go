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
// the selection keeps off those nodes, as Schedule's does. A partition
// all of whose nodes the locked ones withhold is locked with them: no job
// of it can start in order (Schedule's selection fails it for want of
// nodes), and locking it withholds no more nodes. So on a site whose
// partitions all span every node (a replayed trace's queues) the head
// locks them all, and the pass is walked as on a cluster of one.

// easyLocks is a walk's locked partitions, kept until the next walk (an
// incremental pass goes on with them), and what consider does with their
// nodes for the job it considers.
type easyLocks struct {
	names []string // in the order they were locked
	all   bool     // every partition of the cluster is locked
	// parts are the cluster's partitions and their nodes, copied at the
	// scheduler's partGen partsOf-1; lockedAt[k] is whether parts[k] is
	// in names
	parts    []easyPart
	partsOf  uint64
	lockedAt []bool
	// withheld is the union of the nodes of the first withheldOf names,
	// built when a job needs it; partNodes is one partition's nodes
	withheld, partNodes *bitset.BitSet
	withheldOf          int
	// for consider: keep off these nodes (past the depth), or report in
	// touched whether the start took one of those
	keepOff, touch *bitset.BitSet
	touched        bool
}

// some reports whether some partitions are locked, but not all.
func (lk *easyLocks) some() bool {
	return len(lk.names) > 0 && !lk.all
}

// easyPart is a partition's name and nodes.
type easyPart struct {
	name  string
	nodes *bitset.BitSet
}

// reset unlocks every partition, for a whole walk.
func (lk *easyLocks) reset() {
	lk.names, lk.all, lk.withheldOf = lk.names[:0], false, 0
	clear(lk.lockedAt)
}

// has reports whether partition name is locked.
func (lk *easyLocks) has(name string) bool {
	return len(lk.names) > 0 && slices.Contains(lk.names, name)
}

// lock locks partition name, not locked yet, and the partitions all of
// whose nodes the locked ones then withhold.
func (e *EASY) lock(name string) {
	c, lk := e.s.c, &e.locks
	lk.names = append(lk.names, name)
	if lk.all = len(lk.names) >= c.PartitionCount(); lk.all || e.noCover || e.s.opts.backfillDepth <= 0 {
		return
	}
	e.copyParts()
	withheld := e.withheldNodes()
	for k := range lk.parts {
		switch p := &lk.parts[k]; {
		case lk.lockedAt[k]:
		case p.name == name:
			lk.lockedAt[k] = true
		case withheld.IsSuperSet(p.nodes):
			lk.lockedAt[k] = true
			lk.names = append(lk.names, p.name)
		}
	}
	lk.all = len(lk.names) >= c.PartitionCount()
}

// copyParts copies the cluster's partitions and their nodes, unless
// they are copied since the last UpdatePartition: a walk of a cluster of
// several partitions reads them at every lock.
func (e *EASY) copyParts() {
	s, lk := e.s, &e.locks
	if lk.partsOf == s.partGen+1 && len(lk.parts) == s.c.PartitionCount() {
		return
	}
	lk.parts, lk.partsOf = lk.parts[:0], s.partGen+1
	for _, name := range s.c.PartitionNames() {
		nodes, _ := s.c.PartitionNodes(name)
		lk.parts = append(lk.parts, easyPart{name: name, nodes: nodes})
	}
	lk.lockedAt = make([]bool, len(lk.parts))
	for k := range lk.parts {
		lk.lockedAt[k] = lk.has(lk.parts[k].name)
	}
}

// considerBeside is consider for job j of a partition not locked while
// others are: past the depth it keeps off the locked partitions' nodes, as
// Schedule's selection does; before it, a start that takes one of them is
// a backfill. It reports whether j started, and whether as a backfill.
func (e *EASY) considerBeside(w *easyWalk, j *job, past bool) (started, backfill bool) {
	lk := &e.locks
	if past {
		lk.keepOff = e.withheldNodes()
	} else {
		lk.touch = e.withheldNodes()
	}
	started = e.consider(w, j)
	backfill = started && lk.touched
	lk.keepOff, lk.touch, lk.touched = nil, nil, false
	return started, backfill
}

// withheldNodes is the union of the locked partitions' nodes, brought up
// to date with the partitions locked since it was last read.
func (e *EASY) withheldNodes() *bitset.BitSet {
	c, lk := e.s.c, &e.locks
	for ; lk.withheldOf < len(lk.names); lk.withheldOf++ {
		if lk.withheldOf == 0 {
			if n := uint(c.NodeCount()); lk.withheld == nil || lk.withheld.Len() != n {
				lk.withheld = bitset.New(n)
			}
			lk.withheld.ClearAll()
		}
		if nodes, ok := c.PartitionNodesInto(lk.names[lk.withheldOf], lk.partNodes); ok {
			lk.partNodes = nodes
			lk.withheld.InPlaceUnion(nodes)
		}
	}
	return lk.withheld
}

// walkParts is walk once some partitions are locked, or past the depth
// with none locked: each job's partition decides whether its start is in
// order, and past the depth the jobs of locked partitions are passed over.
func (e *EASY) walkParts(w *easyWalk, jobs []*job) {
	s, lk := e.s, &e.locks
	e.tail.scanned = false // (easy_stop.go)
	for i, j := range jobs {
		inOrder := !lk.all && !lk.has(j.Partition) // (no lock is taken before j's refusal)
		past := false
		if s.opts.backfillDepth > 0 && w.considered >= s.opts.backfillDepth {
			w.full = true
			if lk.all || e.walkEnds(jobs, i) {
				break
			}
			e.walkedPast++
			if !inOrder {
				continue // Schedule's pass starts none of them either
			}
			past = true
		}
		if !j.deps.empty() {
			w.unsure = true
		}
		if !s.eligible(j, w.now) {
			w.unsure = true
			continue
		}
		var started, backfill bool
		if inOrder && len(lk.names) > 0 {
			started, backfill = e.considerBeside(w, j, past)
		} else {
			started, backfill = e.consider(w, j), !inOrder
		}
		if started {
			if backfill {
				w.backfilled()
			}
			continue
		}
		// refused, as in walk (written out: a call was a third of what a
		// walk of several partitions cost beyond walk's loop)
		if m := s.partOf(j); m.limited && e.heldByPartition(j, m) {
			w.unsure = true
			continue
		}
		w.considered++
		j.Reason = ReasonResources
		if w.head == nil || inOrder {
			e.leftWaiting(w, j)
		}
	}
}

// leftWaiting records that walkParts leaves job j waiting (refused, not
// held by its partition's limits), when there is no head yet or j's
// partition is not locked: the first such job with a possible start is
// the head, and locks its partition (as in walk); a later one locks its
// own as Schedule's pass would.
func (e *EASY) leftWaiting(w *easyWalk, j *job) {
	if w.head == nil {
		e.takeHead(w, j)
		return
	}
	if e.locksAsBusy(w, j) {
		e.lock(j.Partition)
	}
}

// locksAsBusy reports whether Schedule's selection of j, refused here,
// would lock its partition: with the locked partitions' nodes withheld it
// fits now (the head's plan refused it) or fails as busy. Another class
// locks nothing; the walk is then unsure, since a later pass with fewer
// free nodes could classify it otherwise.
func (e *EASY) locksAsBusy(w *easyWalk, j *job) bool {
	key, keyed := e.lockKeyOf(j)
	if keyed && e.knownBusy(key) {
		return true // (easy_lockmemo.go)
	}
	e.req = j.Request
	e.req.ExcludeNodes = withheldToo(e.req.ExcludeNodes, e.withheldNodes())
	_, err := e.s.c.Try(&e.req, selectnodes.RunNow)
	if err == nil {
		return true
	}
	if isSelectClass(err, selectnodes.ErrBusy) {
		if keyed {
			e.noteBusy(key)
		}
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
