package queue

import (
	"math"
	"slices"
	"time"

	"github.com/bits-and-blooms/bitset"
	"github.com/hpcsched/hpcsched/selectnodes"
)

// The running jobs as EASY's head plan reads them: when each ends and on
// which nodes, and, for the probes, each node's last end.

// idleNode marks an idle node in EASY.until.
const idleNode = time.Duration(math.MinInt64)

// heldAlloc is a running job's nodes and when it ends (from now).
type heldAlloc struct {
	at    time.Duration
	alloc []selectnodes.NodeAlloc
}

// busy records, from the running jobs, when each of them ends (relative
// to now, so ends sort as integers; a job whose limit is past now ends at
// a negative time) and on which nodes, the idle nodes and the running
// jobs' IDs, and returns the distinct ends in order and freedBy:
// freedBy[k] is how many busy nodes are free after the first k ends. All
// of it lives in e's buffers until the next call.
//
// A node is free from the end of its last job. When no node runs two jobs
// (the jobs' node counts add up to the busy nodes), each job frees its
// own nodes, and the per-node ends (until) are left to mark, for the
// probes that read them: a counted plan needs only the counts. Otherwise
// the nodes are marked here, from the latest end down.
func (e *EASY) busy(now time.Time) (ends []time.Duration, freedBy []int) {
	c := e.s.c
	n := c.NodeCount()
	if len(e.allIdle) != n {
		e.allIdle = slices.Repeat([]time.Duration{idleNode}, n)
	}
	e.countedID = slices.Grow(e.countedID[:0], len(e.s.active)) // kept by the plan
	if e.idle == nil || e.idle.Len() != uint(n) {
		e.idle, e.exclude = bitset.New(uint(n)), bitset.New(uint(n))
		e.found, e.fewest = bitset.New(uint(n)), bitset.New(uint(n))
	}
	held, total := e.held[:0], 0
	nowN, plain := now.UnixNano(), now == now.Round(0) // no monotonic reading (see subUnix)
	c.DescendAllocations(func(id selectnodes.JobID, end time.Time, p *selectnodes.Placement) bool {
		e.countedID = append(e.countedID, id)
		d, ok := subUnix(end, nowN)
		if !ok || !plain {
			d = end.Sub(now)
		}
		held = append(held, heldAlloc{at: max(d, idleNode+1), alloc: p.Alloc})
		total += len(p.Alloc)
		return true
	})
	e.held = held
	c.IdleInto(e.idle)
	// from the latest end down, the ends come out in order without a
	// sort, equal ones together (counted in freed meanwhile)
	ends, freed := e.ends[:0], e.freedBy[:0]
	add := func(at time.Duration, got int) {
		if k := len(ends) - 1; k >= 0 && ends[k] == at {
			freed[k] += got
		} else if got > 0 {
			ends, freed = append(ends, at), append(freed, got)
		}
	}
	e.marked = total != n-int(e.idle.Count())
	if e.marked {
		// shared nodes: a node's first end seen is its last one
		e.until = append(e.until[:0], e.allIdle...) // one copy, not a store per node
		e.idle.SetAll()
		idle := e.idle.Words() // a busy node's bit is cleared as it is met
		for _, h := range held {
			add(h.at, markBusy(e.until, idle, h.alloc, h.at))
		}
	} else {
		for _, h := range held {
			add(h.at, len(h.alloc))
		}
	}
	slices.Reverse(ends)
	slices.Reverse(freed)
	// freedBy[k]: the nodes the first k distinct ends free, in place
	freedBy = append(freed, 0)
	for k := len(ends); k > 0; k-- {
		freedBy[k] = freedBy[k-1]
	}
	freedBy[0] = 0
	for k := 1; k < len(freedBy); k++ {
		freedBy[k] += freedBy[k-1]
	}
	e.ends, e.freedBy = ends, freedBy
	return ends, freedBy
}

// markNodes makes until, the nodes' last ends, from the jobs busy found, when
// busy left it to be made.
func (e *EASY) markNodes() {
	if !e.marked {
		e.until = untilOf(e.until, e.allIdle, e.held)
		e.marked = true
	}
}

// untilOf is each node's last end under the running jobs held (latest end
// first), idleNode for a node none holds, in dst's memory.
func untilOf(dst, allIdle []time.Duration, held []heldAlloc) []time.Duration {
	dst = append(dst[:0], allIdle...)
	for _, h := range held {
		for k := range h.alloc {
			if i := h.alloc[k].Node; dst[i] == idleNode {
				dst[i] = h.at
			}
		}
	}
	return dst
}

// markBusy marks the nodes of alloc not marked yet as busy until at: their
// entry in until and their bit cleared in the idle words. It returns how
// many it marked. The loop is apart from busy's closure so that it works
// on locals, not on variables the closure shares: it runs once per node of
// every running job at every head plan.
func markBusy(until []time.Duration, idle []uint64, alloc []selectnodes.NodeAlloc, at time.Duration) int {
	marked := 0
	for k := range alloc {
		i := alloc[k].Node // not copied whole: a NodeAlloc is 48 bytes
		if until[i] != idleNode {
			continue
		}
		until[i] = at
		idle[i>>6] &^= 1 << (i & 63)
		marked++
	}
	return marked
}
