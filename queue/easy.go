package queue

import (
	"context"
	"slices"
	"time"

	"github.com/bits-and-blooms/bitset"
	"github.com/hpcsched/hpcsched/selectnodes"
)

// EASY is EASY backfilling (Lifka's "aggressive" backfill, as the KTH SP2
// and the ANL SP ran it; the Novotný thesis §1.2.1 contrasts it with the
// conservative Backfill). Only the queue head is protected: walking the
// queue in order, jobs start while they fit; the first eligible job that
// does not fit is the head and gets a reservation — its shadow time (the
// earliest moment enough nodes are free, when running jobs end by their
// limits) and the nodes it will take then. Every later job starts now if
// it fits and either ends by the shadow time or keeps off the head's
// nodes. No reservation is published, and later jobs may be delayed (EASY's
// trade against conservative backfill).
//
// On a cluster of several partitions the pass locks partitions as
// Schedule's does: the head's, and that of any later job left waiting for
// resources. A start in a partition not locked yet, on no node of a locked
// one, is an in-order start, as Schedule's pass would make it; the others
// are backfills. BackfillDepth bounds how many jobs a pass considers
// beside its in-order starts: past it the pass still makes the in-order
// starts, within the head's plan, until every partition that has a job
// left to walk is locked (at once on a cluster of one partition).
//
// Like Backfill's profile, the plan counts whole nodes: a node is free
// from the end of the last job on it. Among the nodes free at the shadow
// time the head takes as few of the nodes idle now as a selection allows,
// so the most idle nodes stay open to jobs running past the shadow time
// (one probe with the fewest idle nodes the count bound allows; if the
// selection needs more, the nodes it first found are kept). On identical
// nodes this is the classic rule that such jobs may use the
// "extra" processors left at the shadow time.
//
// An EASY value keeps the head's plan between passes and recomputes it
// only when the head changes or a job it counted on ends. Create it with
// NewEASY; it is not safe for concurrent use (the Scheduler is).
type EASY struct {
	s    *Scheduler
	plan easyPlan
	// scratch reused between passes and plans: the pass's queue, the
	// request a probe reads (a local copy would escape), the shadow's
	// per-node ends, distinct ends and node masks
	order      []*job
	was        []int // a start's nodes' free CPUs before it (consider)
	req        selectnodes.Request
	until      []time.Duration // per node, when its last job ends (from now); idleNode when idle
	allIdle    []time.Duration // idleNode for every node: until's starting value
	held       []heldAlloc     // the running jobs' nodes and ends, latest end first (busy)
	marked     bool            // until is made from held (markNodes)
	ends       []time.Duration
	freedBy    []int
	idle       *bitset.BitSet
	exclude    *bitset.BitSet
	found      *bitset.BitSet // the nodes of the last probe that fit
	fewest     *bitset.BitSet // a probe's nodes, until it fits
	countedID  []JobID
	lazyNext   easyLazy  // a counted plan's node inputs, from shadow to headPlan (easy_counted.go)
	mark       easyMark  // where the last pass left off (easy_incremental.go)
	resumed    int       // passes that went on from the last one (tests)
	pivot      *job      // the last pass's last queued key, to search the queue by
	noCounted  bool      // tests: plan every head by probes
	ids        []JobID   // the caller's list of started jobs, during a pass (passIDs)
	locks      easyLocks // the last walk's locked partitions (easy_parts.go)
	noCrowd    bool      // tests: choose a counted plan's nodes before any count
	noCover    bool      // tests: lock no partition for its nodes being withheld
	crowded    int       // tests: jobs refused by headCrowdsOut
	lockMemo   lockMemo  // busy answers of locksAsBusy (easy_lockmemo.go)
	noLockMemo bool      // tests: ask every lock's selection
	tail       easyTail  // where a walk past the depth ends (easy_stop.go)
	walkedPast int       // tests: jobs walkParts read past the depth
	noWalkEnd  bool      // tests: walk past the depth to the end of the queue
}

// easyPlan is the head's reservation and the running jobs it counted on.
type easyPlan struct {
	head    JobID
	shadow  time.Time
	nodes   *bitset.BitSet
	counted []JobID // running when planned; one ending invalidates the plan
	// started are the starts EASY made since, which respect the plan; a
	// running job started by anyone else (Schedule, Start) invalidates
	// the plan. allocSeq is the scheduler's allocation count at the plan,
	// so that a start EASY did not make shows without a scan.
	started  []easyStart
	allocSeq uint64
	// lazy: a counted plan's nodes are chosen when a job first needs them
	// (nodes is nil until then; easy_counted.go)
	lazy easyLazy
}

// easyStart is one start EASY made under a plan: the job and its
// allocation's number. A job requeued and started again is another
// start, so its first one no longer runs: the number tells them apart.
type easyStart struct {
	id  JobID
	seq uint64
}

// NewEASY returns EASY backfilling for s.
func NewEASY(s *Scheduler) *EASY {
	if s == nil {
		panic("queue.NewEASY: s is nil")
	}
	return &EASY{s: s}
}

// Backfill runs one EASY pass at now and returns the jobs it started.
func (e *EASY) Backfill(now time.Time) []Started {
	s := e.s
	if s == nil {
		panic("queue.EASY: the zero EASY is not usable: create it with NewEASY")
	}
	s.lock(context.Background())
	defer s.unlock()
	return e.pass(now, nil)
}

// BackfillIDs is Backfill for a caller that needs only which jobs started
// (a replay): it appends their IDs to dst and returns it, and builds no
// hostlist for a start unless a subscriber receives its event. dst is the
// caller's.
func (e *EASY) BackfillIDs(now time.Time, dst []JobID) []JobID {
	return e.passIDs(now, dst, false)
}

// passIDs is BackfillIDs, or with resume BackfillSubmittedIDs: a pass
// under the lock that appends the started jobs' IDs to dst, with no
// hostlist built for a start nobody subscribes to.
func (e *EASY) passIDs(now time.Time, dst []JobID, resume bool) []JobID {
	s := e.s
	if s == nil {
		panic("queue.EASY: the zero EASY is not usable: create it with NewEASY")
	}
	s.lock(context.Background())
	defer s.unlock()
	defer s.quiet()()
	// the IDs go through a field: a pointer to dst would move it to the
	// heap at every pass
	e.ids = dst
	defer func() { e.ids = nil }() // hold none of the caller's
	if !resume || !e.resume(now, &e.ids) {
		e.pass(now, &e.ids)
	}
	return e.ids
}

// pass is one EASY pass, under the lock. It returns the jobs it started,
// or, when ids is given, appends their IDs to it and returns nil.
func (e *EASY) pass(now time.Time, ids *[]JobID) []Started {
	s := e.s
	e.mark.valid = false
	now, ok := s.passTime(now)
	if !ok {
		return nil
	}
	s.recalc(now)
	// bounds: no start can use more CPUs than are free, or more nodes than
	// have a free CPU
	w := easyWalk{now: now, ids: ids}
	e.locks.reset()
	w.freeCPUs, w.freeNodes = s.c.FreeTotals()
	e.order = s.appendOrdered(e.order[:0])
	e.walk(&w, e.order)
	clear(e.order) // hold no finished job
	e.req = selectnodes.Request{}
	e.remember(&w)
	return w.started
}

// easyWalk is a pass's state as it walks the queue.
type easyWalk struct {
	now     time.Time
	ids     *[]JobID // where the started jobs' IDs go, or nil for started
	started []Started
	head    *easyPlan
	// the free CPUs and nodes with a free CPU, and the same outside the
	// head's nodes (once they are chosen)
	freeCPUs, freeNodes, outCPUs, outNodes int
	considered                             int
	starts                                 int  // jobs it started
	countedStarts                          int  // of them, the backfills (counted against the depth)
	full                                   bool // the walk reached BackfillDepth
	// unsure: the walk met a job that a later pass could decide otherwise
	// with nothing but submissions in between (not eligible, with a
	// dependency, refused by a selection or a plugin rather than by the
	// free counts, or without a head plan): the next pass is a whole one
	unsure bool
}

// walk considers jobs in order, as a pass does after the jobs before them,
// with the partitions locked before them in e.locks. A start is an
// in-order one, as Schedule's pass makes it, when no job of its partition
// was left waiting before it (the partition is not locked) and it takes no
// node of a locked partition; any other start is a backfill, and counts
// against BackfillDepth. Past the depth only in-order starts are made: the
// walk goes on over the jobs of partitions not locked yet, until no job
// of one is left (easy_stop.go; at once on a cluster of one).
//
// While no partition is locked, or every one (on a cluster of one, before
// the head and after it), the loop here decides: a start is in order
// exactly when nothing is locked. Once some but not all are, walkParts
// goes on, unless there is no depth: then the locks decide nothing.
func (e *EASY) walk(w *easyWalk, jobs []*job) {
	s, lk := e.s, &e.locks
	if lk.some() && s.opts.backfillDepth > 0 {
		e.walkParts(w, jobs)
		return
	}
	for i, j := range jobs {
		if s.opts.backfillDepth > 0 && w.considered >= s.opts.backfillDepth {
			w.full = true
			if !lk.all {
				e.walkParts(w, jobs[i:]) // nothing locked: the in-order starts go on
			}
			return
		}
		if !j.deps.empty() {
			w.unsure = true
		}
		if !s.eligible(j, w.now) {
			w.unsure = true
			continue
		}
		if e.consider(w, j) {
			if w.head != nil {
				// every partition is locked (the head locked one): a
				// backfill. Before the head, starts are Schedule's
				// in-order ones, which no depth bounds.
				w.backfilled()
			}
			continue
		}
		// refused for resources, unless its partition's limits hold it
		// (written out: this loop is every pass's on a cluster of one
		// partition, and a call cost 0.5 % of a KTH-SP2 replay). A job
		// held so never fits: it counts against no depth and is no head.
		if m := s.partOf(j); m.limited && e.heldByPartition(j, m) {
			w.unsure = true
			continue
		}
		w.considered++
		j.Reason = ReasonResources
		if w.head != nil {
			continue
		}
		if e.takeHead(w, j) && lk.some() && s.opts.backfillDepth > 0 {
			e.walkParts(w, jobs[i+1:])
			return
		}
	}
}

// backfilled counts a start the walk made as a backfill, against
// BackfillDepth.
func (w *easyWalk) backfilled() {
	w.considered++
	w.countedStarts++
}

// takeHead makes job j, the first left waiting, the walk's head, locking
// its partition, and reports whether it has a plan (no plan: no head, and
// the walk is unsure).
func (e *EASY) takeHead(w *easyWalk, j *job) bool {
	if w.head = e.headPlan(j, w.now); w.head == nil {
		w.unsure = true
		return false
	}
	if e.lock(j.Partition); !w.head.lazy.pending {
		w.outCPUs, w.outNodes = e.freeOutside(w.head.nodes)
	}
	return true
}

// consider starts eligible job j if it fits now and respects the head's
// plan, reporting whether it did.
func (e *EASY) consider(w *easyWalk, j *job) bool {
	s, head := e.s, w.head
	cpus, nodes := j.Request.CPUs, j.Request.MinNodes
	fits := cpus <= w.freeCPUs && nodes <= w.freeNodes
	avoid := fits && head != nil && j.expectedEnd(w.now).After(head.shadow)
	if avoid && head.lazy.pending {
		if e.headCrowdsOut(w, head, cpus, nodes) {
			return false // by the counts, as it would be with the nodes chosen
		}
		e.chooseNodes(head)
		w.outCPUs, w.outNodes = e.freeOutside(head.nodes)
	}
	if avoid {
		// it must keep off the head's nodes: the same bounds outside them
		fits = cpus <= w.outCPUs && max(nodes, 1) <= w.outNodes
	}
	if !fits {
		return false
	}
	e.req = j.Request
	if avoid {
		e.req.ExcludeNodes = withheldToo(e.req.ExcludeNodes, head.nodes)
	}
	if lk := &e.locks; lk.keepOff != nil {
		e.req.ExcludeNodes = withheldToo(e.req.ExcludeNodes, lk.keepOff)
	}
	p, ok := s.c.Probe(&e.req, selectnodes.RunNow)
	if !ok {
		// the counts allowed it, the selection did not: not a count's
		// answer, which fewer free nodes later would give again
		w.unsure = true
		return false
	}
	if lk := &e.locks; lk.touch != nil {
		lk.touched = takesAny(p, lk.touch)
	}
	// each node's free CPUs before the start, for the counts after it
	e.was = s.c.AppendFreeCPUsOn(e.was[:0], p)
	changes := s.c.Changes()
	st, err := s.start(j, p, w.now)
	if err != nil {
		w.unsure = true // a plugin refused: it may not later
		return true     // a refused start is not a head
	}
	w.starts++
	if w.ids != nil {
		*w.ids = append(*w.ids, st.Job)
	} else {
		w.started = append(w.started, st)
	}
	if e.plan.head != 0 {
		e.plan.started = append(e.plan.started, easyStart{id: j.ID, seq: j.allocSeq})
	}
	w.freeCPUs -= p.TotalCPUs
	// when the allocation was the start's only change to the cluster, each
	// node has its CPUs fewer free: no need to ask the cluster again
	alone := s.c.Changes() == changes+1
	for k := range p.Alloc {
		a := &p.Alloc[k]
		was := e.was[k]
		free := was - a.CPUs
		if !alone {
			free = s.c.FreeCPUs(a.Node)
		}
		if free <= 0 {
			w.freeNodes--
		}
		if head != nil && !head.lazy.pending && !head.nodes.Test(uint(a.Node)) {
			// what freeOutside(head.nodes) would now count differently
			w.outCPUs += max(free, 0) - max(was, 0)
			w.outNodes += btoi(free > 0) - btoi(was > 0)
		}
	}
	return true
}

// appendOrdered appends the pending queue in order to buf, so jobs may
// leave the queue while the slice is walked.
func (s *Scheduler) appendOrdered(buf []*job) []*job {
	s.queue.Ascend(func(j *job) bool {
		buf = append(buf, j)
		return true
	})
	return buf
}

// freeOutside counts the free CPUs, and the nodes with a free CPU, that
// are not in nodes (nil for none): the cluster's totals less the nodes' own.
func (e *EASY) freeOutside(nodes *bitset.BitSet) (cpus, count int) {
	c := e.s.c
	cpus, count = c.FreeTotals() // kept by the cluster: no scan
	if nodes == nil {
		return cpus, count
	}
	for i, ok := nodes.NextSet(0); ok && int(i) < c.NodeCount(); i, ok = nodes.NextSet(i + 1) {
		if f := c.FreeCPUs(int(i)); f > 0 {
			cpus -= f
			count--
		}
	}
	return cpus, count
}

// headPlan returns the plan for head j, reusing the last one when it is
// still sound, or nil when j can start at no time (failing it when it can
// never run here).
func (e *EASY) headPlan(j *job, now time.Time) *easyPlan {
	if e.plan.head == j.ID && e.plan.shadow.After(now) && e.stillSound() {
		return &e.plan
	}
	started := e.plan.started[:0]
	// the old plan's counted list is the next one's buffer (busy fills it)
	e.countedID = e.plan.counted[:0]
	e.lazyNext = easyLazy{until: e.plan.lazy.until[:0], idle: e.plan.lazy.idle[:0], held: e.plan.lazy.held[:0]} // and its node ends
	e.plan = easyPlan{}
	shadow, nodes, counted, ok := e.shadow(j, now)
	if !ok {
		if _, err := e.s.c.Try(&j.Request, selectnodes.TestOnly); err != nil && neverRuns(err) {
			e.s.setFailure(j, err, now)
		}
		return nil
	}
	e.plan = easyPlan{head: j.ID, shadow: shadow, nodes: nodes, counted: counted, started: started, allocSeq: e.s.allocSeq,
		lazy: e.lazyNext}
	e.lazyNext = easyLazy{}
	return &e.plan
}

// stillSound reports whether every job the plan counted on still runs and
// every running job is one the plan knows (counted, or started by EASY
// since).
func (e *EASY) stillSound() bool {
	s := e.s
	alive := 0
	for _, st := range e.plan.started {
		if j, ok := s.active[st.id]; ok && j.allocSeq == st.seq {
			alive++
		}
	}
	if s.allocSeq-e.plan.allocSeq == uint64(len(e.plan.started)) {
		// every start since the plan was EASY's, so the running jobs are
		// the counted ones still running and the started ones: all the
		// counted still run exactly when the numbers add up
		return len(s.active)-alive == len(e.plan.counted)
	}
	slices.Sort(e.plan.counted)
	counted := 0
	for id, j := range s.active {
		switch {
		case e.startedHere(id, j.allocSeq):
		case j.allocSeq <= e.plan.allocSeq && containsSorted(e.plan.counted, id):
			counted++ // (a counted job started again since is a new start)
		default:
			return false // started by someone else
		}
	}
	return counted == len(e.plan.counted)
}

// startedHere reports whether the allocation seq of job id is a start
// EASY made under the plan.
func (e *EASY) startedHere(id JobID, seq uint64) bool {
	for _, st := range e.plan.started {
		if st.id == id && st.seq == seq {
			return true
		}
	}
	return false
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

func containsSorted(ids []JobID, id JobID) bool {
	_, ok := slices.BinarySearch(ids, id)
	return ok
}

// withheldToo is the union of a request's own withheld nodes and more.
func withheldToo(own, more *bitset.BitSet) *bitset.BitSet {
	if own == nil || own.Len() != more.Len() {
		return more
	}
	return own.Union(more)
}

// shadow finds when head j can start (the k-th distinct end of the
// running jobs, the fewest that free enough nodes) and on which nodes
// (the fewest idle ones), by probing node masks; a count bound gives the
// first guess of both, which on identical nodes is the answer.
func (e *EASY) shadow(j *job, now time.Time) (time.Time, *bitset.BitSet, []JobID, bool) {
	s := e.s
	ends, freedBy := e.busy(now)
	need := max(j.Request.MinNodes, 1)
	if cpn := s.maxNodeCPUs(); cpn > 0 && j.Request.CPUs > 0 {
		need = max(need, (j.Request.CPUs+cpn-1)/cpn)
	}
	// the count bound: no start before enough nodes are free
	idleCount := int(e.idle.Count())
	bound, _ := smallestTrue(0, len(ends), func(k int) bool { return freedBy[k]+idleCount >= need })
	if at, ok := e.countedShadow(j, now, ends, freedBy, bound, need); ok {
		return at, nil, e.countedID, true
	}
	e.markNodes() // the probes read each node's last end
	probed := -1  // the k of e.found
	k, ok := smallestTrue(bound, len(ends), func(k int) bool {
		if e.probeAfter(j, ends, k, -1) {
			probed = k
			return true
		}
		return false
	})
	if ok && probed != k {
		e.probeAfter(j, ends, k, -1)
	}
	if !ok {
		return now, nil, e.countedID, false
	}
	if k == 0 {
		// it fits on the idle nodes as wholes but not under the current
		// load (shared nodes): hold those nodes from now
		return now, e.found.Clone(), e.countedID, true
	}
	// Prefer the freed nodes: allow only as many idle ones as the count
	// bound says the head needs beyond them. One probe; when the
	// selection needs more (features, topology), keep the nodes found.
	least := max(0, need-freedBy[k])
	if int(e.found.IntersectionCardinality(e.idle)) > least {
		e.probeAfter(j, ends, k, least) // found stays as it was when this fails
	}
	return now.Add(ends[k-1]), e.found.Clone(), e.countedID, true
}

// probeAfter selects j's nodes among those free after the first k
// distinct ends — the idle ones, all of them when idleAllowed < 0, else
// only the first idleAllowed, and the busy ones freed by then — ignoring
// the load (the nodes are free by then), into e.found; it reports false,
// leaving e.found as it was, when j does not fit there.
func (e *EASY) probeAfter(j *job, ends []time.Duration, k, idleAllowed int) bool {
	threshold := idleNode // below every busy node's end: none is free
	if k > 0 {
		threshold = ends[k-1]
	}
	return e.probeUntil(&j.Request, e.until, threshold, idleAllowed)
}

// smallestTrue finds the smallest k in [lo, hi] with f(k), for f
// monotone (false then true) and lo a proven lower bound, trying lo first;
// ok is false when f(hi) is false.
func smallestTrue(lo, hi int, f func(int) bool) (int, bool) {
	lo = min(max(lo, 0), hi)
	if f(lo) {
		return lo, true
	}
	best := -1
	for lo++; lo <= hi; {
		mid := (lo + hi) / 2
		if f(mid) {
			best, hi = mid, mid-1
		} else {
			lo = mid + 1
		}
	}
	return best, best >= 0
}
