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
// of their windows holds), and the nodes the start-now attempt could
// count on (outside every other reservation before the job would end).
//
// Since then, a node can only have joined a window, or the start-now
// nodes, through an entry of the change log that frees room on it long
// enough for the job before the end of the windows tried: the last entry
// freeing room on that node inside such a window was logged on a profile
// where the node was already free throughout it (later entries only take
// room there), so that entry's run is at least the job's. The same holds
// for the start-now nodes, which are free on the profile for the job's
// whole length wherever no job runs. And such a node is free now for
// the job's length somewhere before the end of those windows (or, for
// the start-now attempt, runs a job beside which it has CPUs to spare):
// a node the log names that no longer is (a job started on it since, a
// reservation taken) cannot be one. Hence, with gained the nodes of all
// such entries that still are, every start ruled out still has at most
// most + |gained| nodes: if that is short of need, a full plan would rule
// out every one of them again by count, find its reservation still free
// (nothing taken touched it) and keep it. The job keeps its reservation,
// and most grows by |gained| to bound the counts from then on. An entry freeing room on
// nodes it cannot name (a partition changed, a node came back, a shared
// node freed CPUs) still voids the certificate; so does a start ruled out
// by a failed selection rather than by count (most is then unknown).

// most returns the bound a certificate of j keeps for reservation r (its
// job d long), or math.MaxInt when the plan just made gives none: some
// start was ruled out by more than its count, or the start-now attempt
// could count on need nodes.
func (b *bfRun) most(j *job, r reservation, d time.Duration) int {
	need := b.s.minNodes(j)
	if b.pass.most >= need || b.open == nil {
		return math.MaxInt
	}
	if b.s.maxNodeCPUs() == 1 {
		// A node of one CPU running a job has none free, so the nodes a
		// start now could use are free on the profile from now for the
		// job's length: a window's, bounded by the window of the slot
		// holding now, which the plan tried (keep plans in full once now
		// is past the starts it tried).
		return b.pass.most
	}
	// as mayStartAway counts, with r held: an upper bound of the free
	// nodes outside every other reservation before the job would end
	end := later(b.now, d)
	b.resvAt.before(end, b.excl)
	n := int(b.open.DifferenceCardinality(b.excl))
	if r.Start.Before(end) {
		n += int(b.open.IntersectionCardinality(r.nodes))
	}
	if n >= need {
		return math.MaxInt
	}
	return max(b.pass.most, n)
}

// usable counts the nodes of gained that may still serve the job of
// reservation r, d long, at a start whose window ends by horizon: a free
// run of at least d on the profile (r given back) meeting [now,
// horizon), or a running job with CPUs to spare beside it. It stops
// counting past limit.
func (b *bfRun) usable(gained *bitset.BitSet, r *reservation, d time.Duration, horizon int64, limit int) int {
	if c := int(gained.Count()); c <= limit {
		return c // few enough without weighing each
	}
	n := 0
	for i, ok := gained.NextSet(0); ok && n <= limit; i, ok = gained.NextSet(i + 1) {
		x := int(i)
		if b.s.c.JobsOn(x) > 0 && b.s.c.FreeCPUs(x) > 0 {
			n++
			continue
		}
		var own *reservation
		if r.nodes.Test(i) {
			own = r
		}
		if b.pr.hasRun(i, b.nowAt, horizon, d, own) {
			n++
		}
	}
	return n
}

// hasRun reports whether node n is free (or within r's interval, when r
// is not nil) throughout some d-long stretch of slots starting before to,
// from the slot holding from on.
func (p *profile) hasRun(n uint, from, to int64, d time.Duration, r *reservation) bool {
	lo, hi := int64(math.MaxInt64), int64(math.MinInt64)
	if r != nil {
		lo, hi = r.Start.UnixNano(), r.End.UnixNano()
	}
	i := 0
	if from > p.at[0] {
		i, _ = p.find(time.Unix(0, from))
		if i == len(p.at) || p.at[i] > from {
			i-- // the slot holding from
		}
	}
	runStart := int64(math.MinInt64) // none
	for ; i < len(p.at); i++ {
		at := p.at[i]
		if (at >= lo && at < hi) || p.free[i].Test(n) {
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
