package queue

import (
	"math/bits"
	"slices"
	"time"

	"github.com/bits-and-blooms/bitset"
	"github.com/hpcsched/hpcsched/selectnodes"
)

// A counted head plan. When the head's request fits the idle cluster and
// selectnodes.Cluster.CountedNeed says that fitting it on free nodes is a
// count, the shadow time is the count bound itself (the probes would find
// the same k), and the head's nodes matter only to a later job that runs
// past the shadow time and must keep off them. So the plan keeps what the
// node choice is a function of — each node's last end when it was made,
// the k-th end and how many idle nodes the head may take — and the
// selection runs when such a job first comes, in that pass or a later
// one, on the same inputs: the nodes are those the eager plan would have
// chosen. Most plans are replaced before any job needs their nodes. A job
// that could not fit outside any choice, by the free counts and the idle
// nodes every choice takes (headCrowdsOut), is refused without one.
//
// The nodes are chosen ignoring the load, on the nodes' states as they are
// when chosen: a node drained or resumed while no job runs on it, between
// the plan and the choice, may be chosen differently than a plan made at
// once would have (no running job changes, so the plan is kept either way).

// easyLazy is what a counted plan keeps to choose the head's nodes later.
type easyLazy struct {
	pending   bool
	req       selectnodes.Request // the head's, when planned (nothing in it is withheld)
	held      []heldAlloc         // the running jobs when planned: their nodes and ends (busy)
	nodes     int                 // the cluster's nodes when planned
	until     []time.Duration     // per node, its last end when planned (made from held when the nodes are chosen)
	idle      []int               // the nodes idle when planned, in order (headCrowdsOut)
	threshold time.Duration       // the k-th distinct end: nodes free by then count
	least     int                 // idle nodes the head may take beyond the freed ones
	// full is how many of idle have no free CPU, counted when the
	// cluster's change count was fullAt (fullKnown): a walk asks again for
	// every job it considers, mostly with nothing started in between
	full      int
	fullAt    uint64
	fullKnown bool
}

// countedShadow returns the head's shadow time by counting, and records
// in e.lazyNext what choosing its nodes needs, when the counted path holds
// for j: its request fits the idle cluster, its need is the count bound's,
// and the bound needs some running job to end (k > 0).
func (e *EASY) countedShadow(j *job, now time.Time, ends []time.Duration, freedBy []int, k, need int) (time.Time, bool) {
	if e.noCounted || k <= 0 || k > len(ends) {
		return time.Time{}, false
	}
	if n, ok := e.s.c.CountedNeed(&j.Request); !ok || n != need || !e.fitsIdle(&j.Request) {
		return time.Time{}, false
	}
	idle := appendSetBits(e.lazyNext.idle[:0], e.idle.Words())
	e.lazyNext = easyLazy{pending: true, req: j.Request, held: append(e.lazyNext.held[:0], e.held...),
		nodes: e.s.c.NodeCount(), until: e.lazyNext.until[:0], idle: idle, threshold: ends[k-1],
		least: max(0, need-freedBy[k])}
	return now.Add(ends[k-1]), true
}

// fitsIdle reports whether req fits the idle cluster, from the admission
// memo when Submit saw its shape, else by one probe (remembered).
func (e *EASY) fitsIdle(req *selectnodes.Request) bool {
	s := e.s
	if s.admittedBefore(req) {
		return true
	}
	if s.c.ProbeInto(req, selectnodes.TestOnly, e.fewest) {
		s.noteAdmitted(req)
		return true
	}
	return false
}

// headCrowdsOut reports whether a job of cpus CPUs on nodes nodes cannot
// fit outside the nodes of counted plan p, whose nodes are not chosen
// yet, by the free counts of walk w: a bound that holds for every choice.
// The choice takes at least lz.least nodes idle when planned (it takes at
// least need nodes, of which only the freed ones are not idle), and those
// of them still free now hold at least a CPU each; so outside it there are
// at most that many fewer free nodes and CPUs than in all. The job would
// then be refused after the choice too, and the choice is left to the
// next job that may fit (on the same inputs: the same nodes).
func (e *EASY) headCrowdsOut(w *easyWalk, p *easyPlan, cpus, nodes int) bool {
	lz := &p.lazy
	if e.noCrowd || lz.least <= 0 || lz.nodes != e.s.c.NodeCount() {
		return false
	}
	if cpus <= w.freeCPUs-lz.least && max(nodes, 1) <= w.freeNodes-lz.least {
		return false // it fits beside even the most the choice can take (sure <= least)
	}
	// idle when planned, taken by every choice, free now (less those busy
	// since: jobs EASY started that end in time)
	if c := e.s.c; !lz.fullKnown || lz.fullAt != c.Changes() {
		lz.full, lz.fullAt, lz.fullKnown = c.CountFull(lz.idle), c.Changes(), true
	}
	sure := lz.least - lz.full
	if sure > 0 && (cpus > w.freeCPUs-sure || max(nodes, 1) > w.freeNodes-sure) {
		e.crowded++
		return true
	}
	return false
}

// chooseNodes chooses a counted plan's nodes as shadow would have when
// the plan was made: the nodes free by the threshold, then, when that
// choice takes more idle nodes than it needs, the choice among the freed
// nodes and only as many idle ones.
func (e *EASY) chooseNodes(p *easyPlan) {
	lz := &p.lazy
	if len(e.allIdle) != lz.nodes { // not expected: busy made it the cluster's size
		e.allIdle = slices.Repeat([]time.Duration{idleNode}, lz.nodes)
	}
	lz.until = untilOf(lz.until, e.allIdle, lz.held)
	if !e.probeUntil(&lz.req, lz.until, lz.threshold, -1) {
		// not expected (the count said it fits): hold every node, so no
		// job may run past the shadow time
		n := uint(len(lz.until))
		p.nodes = bitset.New(n).Complement()
		lz.pending = false
		return
	}
	idle := 0
	for i, ok := e.found.NextSet(0); ok; i, ok = e.found.NextSet(i + 1) {
		if lz.until[i] == idleNode {
			idle++
		}
	}
	if idle > lz.least {
		e.probeUntil(&lz.req, lz.until, lz.threshold, lz.least) // found stays as it was when this fails
	}
	p.nodes = e.found.Clone()
	lz.pending = false
}

// probeUntil selects req's nodes among those free by threshold under the
// per-node ends until — the idle ones, all of them when idleAllowed < 0,
// else only the first idleAllowed, and the busy ones ending by threshold —
// ignoring the load, into e.found; it reports false, leaving e.found as it
// was, when req does not fit there.
func (e *EASY) probeUntil(req *selectnodes.Request, until []time.Duration, threshold time.Duration, idleAllowed int) bool {
	if e.exclude.Len() < uint(len(until)) {
		e.exclude = bitset.New(uint(len(until)))
	}
	x := e.exclude
	excludeUntil(x.Words(), until, threshold, idleAllowed)
	e.req = *req
	e.req.ExcludeNodes = withheldToo(e.req.ExcludeNodes, x)
	if !e.s.c.ProbeInto(&e.req, selectnodes.TestOnly, e.fewest) {
		return false
	}
	e.found, e.fewest = e.fewest, e.found
	return true
}

// appendSetBits appends the indices of the set bits of words to dst, in
// order, a word at a time: a counted plan lists the idle nodes of the
// whole cluster at every plan.
func appendSetBits(dst []int, words []uint64) []int {
	for k, w := range words {
		for ; w != 0; w &= w - 1 {
			dst = append(dst, k*64+bits.TrailingZeros64(w))
		}
	}
	return dst
}

// excludeUntil fills the words of a node mask with the nodes probeUntil
// withholds: busy past threshold, and the idle ones past the first
// idleAllowed (all of them when it is 0, none when it is negative). The
// mask is built a word at a time: it covers every node at every probe.
func excludeUntil(words []uint64, until []time.Duration, threshold time.Duration, idleAllowed int) {
	clear(words)
	for i, t := range until {
		out := t > threshold
		if t == idleNode {
			out = idleAllowed == 0
			if idleAllowed > 0 {
				idleAllowed--
			}
		}
		if out {
			words[i>>6] |= 1 << (i & 63)
		}
	}
}
