package queue

// Where a walk past the depth ends. Past BackfillDepth the walk passes
// over the jobs of locked partitions and makes the in-order starts of the
// others; once no job of a partition not locked is left to walk, the rest
// would all be passed over, and the walk ends there. A partition that no
// queued job names never locks (nothing is left waiting in it), so
// without this the walk read the queue to its end whenever one did.
//
// The jobs left to walk are all queued (a walk removes from the queue
// only the job it is at), so a partition with no queued job has none of
// them. For the others, the jobs left are read once, from the last back,
// until the last job of each is found.

// easyTail is, for the jobs of one walkParts call, the index of the last
// job of each partition (in the order of easyLocks.parts; -1 for none)
// among the jobs from scannedFrom on, and the index after which no job of
// a partition not locked is left, as of lockedN locked partitions.
type easyTail struct {
	last        []int
	scanned     bool
	never       bool // a job names a partition the cluster does not list: walk to the end
	lockedN     int
	stop        int
	scannedFrom int
}

// walkEnds reports whether, past the depth at jobs[i], every job from i
// on is of a locked partition.
func (e *EASY) walkEnds(jobs []*job, i int) bool {
	t, lk := &e.tail, &e.locks
	if e.noWalkEnd {
		return false
	}
	if !t.scanned {
		e.scanTail(jobs, i)
		t.lockedN = -1
	}
	if t.never {
		return false
	}
	if t.lockedN != len(lk.names) {
		t.lockedN, t.stop = len(lk.names), -1
		for k := range lk.parts {
			if t.last[k] > t.stop && !lk.has(lk.parts[k].name) {
				t.stop = t.last[k]
			}
		}
	}
	return i > t.stop
}

// scanTail finds the last job of each partition among jobs[from:],
// reading back from the end until it has found that of every partition
// that is not locked and has queued jobs.
func (e *EASY) scanTail(jobs []*job, from int) {
	e.copyParts()
	t, lk, queued := &e.tail, &e.locks, e.s.queuedCounts()
	t.scanned, t.never, t.scannedFrom = true, false, from
	t.last = t.last[:0]
	if len(lk.parts) == 0 { // (no partition: nothing is locked either)
		t.never = true
		return
	}
	need := 0
	for k := range lk.parts {
		t.last = append(t.last, -1)
		if !lk.has(lk.parts[k].name) && queued.count(lk.parts[k].name) > 0 {
			need++
		}
	}
	at := 0 // the partition found last: a replay's jobs name few
	for i := len(jobs) - 1; i >= from && need > 0; i-- {
		name := jobs[i].Partition
		if lk.parts[at].name != name {
			if at = e.partIndex(name); at < 0 {
				t.never = true
				return
			}
		}
		if t.last[at] < 0 {
			t.last[at] = i
			if !lk.has(name) && queued.count(name) > 0 {
				need-- // (a job left to walk is queued: always so)
			}
		}
	}
}

// partIndex is the index of partition name in easyLocks.parts, or -1.
func (e *EASY) partIndex(name string) int {
	for k := range e.locks.parts {
		if e.locks.parts[k].name == name {
			return k
		}
	}
	return -1
}
