package queue

import (
	"math"
	"time"

	"github.com/bits-and-blooms/bitset"
)

// Room freed on too few nodes (narrowed re-planning). A certificate (see
// cons_skip.go) used to be void as soon as any room was freed that a job
// as long as its own could use before the end of the windows its plan
// tried. Yet a plan rejects most starts by counting alone: a start whose
// window holds fewer than the job's need of its partition's nodes free
// throughout is not even selected on. So a full plan also records most,
// the largest such count over every start it ruled out (for starts the
// slot-count bound skipped, the count of the short slot, which every one
// of their windows holds).
//
// Since then, a node can only have joined a window through an entry of
// the change log that frees room on it long enough for the job before
// the end of the windows tried: the last entry freeing room on that node
// inside such a window was logged on a profile where the node was
// already free throughout it (later entries only take room there), so
// that entry's run is at least the job's (for a node of the job's own
// reservation, the run as the job sees it). And such a node is still
// free throughout a window the plan would try now (one starting from now
// to the last start it tried): a node the log names that no longer is (a job started on it since, a
// reservation taken) cannot be one, nor one whose only such stretches
// start after the last start the plan tried, nor one outside the job's
// partition (see usable). Hence, with gained the nodes of all
// such entries that still are, every start ruled out still has at most
// most + |gained| nodes; if that is short of need, a full plan would rule
// out every one of them again by count, find its reservation still free
// (nothing taken touched it) and keep it. The job keeps its reservation,
// and most grows by |gained| to bound the counts from then on.
//
// It is used only where the start-now attempt is a window too (nodes of
// one CPU, see most), and not when an entry frees room on nodes it cannot
// name (a partition changed, a node came back, a shared node freed CPUs)
// or a start was ruled out by a failed selection rather than by count
// (most is then unknown): such a certificate is void as before.

// most returns the bound a certificate of j keeps, or math.MaxInt when
// the plan just made gives none: some start was ruled out by more than
// its count, or nodes have several CPUs. Only on nodes of one CPU is the
// start-now attempt bounded with the windows: such a node running a job
// has no CPU free, so the nodes a start now could use are free on the
// profile from now for the job's length, a window's, bounded by the
// window of the slot holding now, which the plan tried (keep plans in
// full once now is past the starts it tried). A node of several CPUs may
// take a job beside a running one, outside every window.
func (b *bfRun) most(j *job) int {
	if b.pass.most >= b.s.minNodes(j) || b.open == nil || b.s.maxNodeCPUs() != 1 {
		return math.MaxInt
	}
	return b.pass.most
}

// usable counts the nodes of gained that may still serve the job of
// reservation r, d long, in partition part (nil: any node), at a start no
// later than lastStart, the last one its plan tried: nodes of part with a
// free run of at least d on the profile (r given back) that starts from
// now to lastStart. A node free only later joins no window a plan tries
// (each starts by lastStart), and one outside part joins no count a plan
// makes; so neither can turn a start ruled out by count into one worth a
// selection. It weighs none when they are no more than limit, and stops
// counting past limit.
func (b *bfRun) usable(gained *bitset.BitSet, part *bitset.BitSet, r *reservation, d time.Duration, lastStart int64, limit int) int {
	if part != nil {
		gained.InPlaceIntersection(part) // the log's scratch: ours to change
	}
	if c := int(gained.Count()); c <= limit {
		return c // few enough without weighing each
	}
	return b.pr.runsFrom(gained, b.nowAt, lastStart+1, d, r, limit)
}

// hasRun reports whether node n is free (or within r's interval, when r
// is not nil) throughout some d-long stretch of slots starting before to,
// from the slot holding from on: runsFrom's question for one node (the
// tests hold the two equal).
func (p *profile) hasRun(n uint, from, to int64, d time.Duration, r *reservation) bool {
	lo, hi := int64(math.MaxInt64), int64(math.MinInt64)
	if r != nil {
		lo, hi = r.Start.UnixNano(), r.End.UnixNano()
	}
	i := p.slotHolding(from)
	runStart := int64(math.MinInt64) // none
	k, bit := n/64, uint64(1)<<(n%64)
	for ; i < len(p.at); i++ {
		at := p.at[i]
		if (at >= lo && at < hi) || p.free[i].Words()[k]&bit != 0 {
			if runStart == math.MinInt64 {
				if at >= to {
					return false
				}
				runStart = max(at, from)
			}
			if i+1 == len(p.at) || time.Duration(p.at[i+1]-runStart) >= d {
				return true // free to the profile's end, or long enough
			}
			continue
		}
		runStart = math.MinInt64
		if at >= to {
			return false
		}
	}
	return false
}
