package auction

import "math"

// The reservation's losing head. With Planner.ReserveHead the first solve
// of an auction decides one thing when the head (the problem's first
// job) loses: that it loses; the head then starts on its cheapest bid and
// the others bid again (planner_reserve.go), whatever that solve chose.
// So that solve may stop as soon as its selection is worth more than
// every selection with the head: the solver never gives up value it
// holds once stopped (solver.checkCut), so its answer leaves the head
// out, as the whole solve's would, and the pass decides the same.

// headCut is a value above which a selection of q's problem surely leaves
// out the head, job 0: the least of two bounds on the selections with
// it, plus a margin for the tolerance and rounding. +Inf when job 0 is
// not the first the search decides (priorities that tie, say).
func (q *quickSearch) headCut() float64 {
	if len(q.jobs) == 0 || q.jobs[0] != 0 {
		return math.Inf(1)
	}
	bound := q.headAggregate()
	if q.firstDone {
		bound = min(bound, q.firstBest+q.tol)
	}
	return bound + 2*q.tol + 1e-9*max(1, math.Abs(bound))
}

// headAggregate bounds the selections with job 0 in the aggregate: the
// most, over its bids worth something, of the bid's value plus the
// fractional knapsack of the other jobs that fit alone in the cores and
// GPUs it leaves free in all (the lesser of the knapsack by cores and by
// GPUs, as in quickSearch.mayBeat).
func (q *quickSearch) headAggregate() float64 {
	cores, gpus := totalCores(q.p), totalGPUs(q.p)
	best := math.Inf(-1)
	for _, i := range q.bids[0] {
		b := &q.p.Jobs[0].Bids[i]
		c, g := 0, 0
		for _, u := range b.Uses {
			c += u.Cores
			g += u.GPUs
		}
		byCores := q.fractional(q.byCores, 1, cores-c, gpus-g, true, 0, math.Inf(1))
		byGPUs := q.fractional(q.byGPUs, 1, cores-c, gpus-g, false, 0, math.Inf(1))
		rest := min(byCores, byGPUs)
		best = max(best, q.p.Value(0, i)+rest)
	}
	return best
}
