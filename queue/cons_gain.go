package queue

import (
	"math"
	"time"
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
// whole length wherever no job runs. Hence, with gained the nodes of all
// such entries, every start ruled out still has at most most + |gained|
// nodes: if that is short of need, a full plan would rule out every one
// of them again by count, find its reservation still free (nothing taken
// touched it) and keep it. The job keeps its reservation, and most grows
// by |gained| to bound the counts from then on. An entry freeing room on
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
