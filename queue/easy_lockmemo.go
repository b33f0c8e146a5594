package queue

// A kept lock answer. A job of a partition not locked that an EASY pass
// leaves waiting locks its partition when Schedule's selection, with the
// locked partitions' nodes withheld, fits it now or fails as busy; any
// other class locks nothing. The class of a failed selection is read on
// the empty cluster (selectnodes' classification): it depends on the
// job's class (partition and request), the nodes withheld (the set of
// locked partitions, under the partitions' nodes) and the node states and
// partitions, but not on the load. So once a selection of one class under
// one set of locked partitions failed as busy, every later one of them
// locks too, whether it fits then or fails (as busy again) — until a node
// state or a partition changes (the cluster's ConfigChanges). A blocked
// job is refused pass after pass, and a replay queues many jobs of one
// shape: the answer is kept rather than asked again.
//
// Only busy failures are kept: a fit now says nothing of the class, and
// another class makes the walk unsure (a whole pass follows anyway).

// lockKey is a job's class under a set of locked partitions (a bit per
// partition, in the order of easyLocks.parts).
type lockKey struct {
	class  string
	locked uint64
}

// lockMemo is the busy answers kept, at the cluster's ConfigChanges cfg
// and the scheduler's partGen (easyLocks.partsOf).
type lockMemo struct {
	busy    map[lockKey]struct{}
	cfg     uint64
	partsOf uint64
	hits    int // answers given, for tests
}

// lockMemoSize bounds the answers kept: a replay meets few classes, and
// past this many the memo starts again.
const lockMemoSize = 1 << 12

// lockKeyOf is j's key under the locked partitions, or false when its
// answer cannot be kept: a request that withholds nodes of its own (not
// in its class), more partitions than the key has bits, or a memo
// disabled for tests.
func (e *EASY) lockKeyOf(j *job) (lockKey, bool) {
	if e.noLockMemo || j.Request.ExcludeNodes != nil {
		return lockKey{}, false
	}
	e.copyParts()
	lk, m := &e.locks, &e.lockMemo
	if len(lk.parts) > 64 {
		return lockKey{}, false
	}
	if cfg := e.s.c.ConfigChanges(); m.cfg != cfg || m.partsOf != lk.partsOf || len(m.busy) >= lockMemoSize {
		clear(m.busy)
		m.cfg, m.partsOf = cfg, lk.partsOf
	}
	var locked uint64
	for k := range lk.parts {
		if lk.has(lk.parts[k].name) {
			locked |= 1 << k
		}
	}
	return lockKey{class: j.classOf(), locked: locked}, true
}

// knownBusy reports whether a selection of key's class failed as busy
// under its locks since the last configuration change.
func (e *EASY) knownBusy(key lockKey) bool {
	_, ok := e.lockMemo.busy[key]
	if ok {
		e.lockMemo.hits++
	}
	return ok
}

// noteBusy keeps that a selection of key's class failed as busy.
func (e *EASY) noteBusy(key lockKey) {
	if e.lockMemo.busy == nil {
		e.lockMemo.busy = make(map[lockKey]struct{})
	}
	e.lockMemo.busy[key] = struct{}{}
}
