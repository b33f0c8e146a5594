package auction

import (
	"cmp"
	"math"
	"slices"
)

// quickSearch is the exact search of the quick path: jobs decided by best
// value, best first, each on each of its bids that fits the nodes left
// (best value first), then left out. A node is cut when the open jobs
// cannot beat the incumbent even in the aggregate: the fractional
// knapsack of the open jobs that still fit alone in the free cores and
// GPUs left in all (job values at their best, weights their smallest
// bid's), by value per core and by value per GPU, the smaller of the two.
type quickSearch struct {
	p       *Problem
	jobs    []int      // problem jobs with a bid worth something, by best value
	bids    [][]int    // per job of jobs: its bids worth something, best first
	sums    [][]item   // per job of jobs and bid of bids: the bid's cores and GPUs in all
	miss    [][]int32  // per job of jobs and bid of bids: the use where it last did not fit
	items   []item     // per job of jobs: its aggregate
	byCores *openOrder // indices of jobs by value per core, best first
	byGPUs  *openOrder // the same per GPU
	free    []uint64   // per node: its free cores and GPUs (packAmount)
	cur     []int      // per depth: chosen bid or -1
	best    float64    // the incumbent's value
	sel     Selection
	tol     float64
	nodes   int
	limit   int
	stopped bool // the node limit cut the search: nothing proven
	// firstDone: the search of the selections with jobs[0] completed, and
	// none is worth more than firstBest+tol.
	firstDone bool
	firstBest float64
	// noTotals tries every bid on the nodes, even one whose cores or
	// GPUs in all are more than is free: the slow path, for tests.
	noTotals bool
}

// item is a job in the aggregate: its best value, and the fewest cores
// and GPUs any of its bids worth something takes in all.
type item struct {
	value       float64
	cores, gpus int
}

func (q *quickSearch) dfs(d int, val float64, cores, gpus int) {
	q.nodes++
	if q.nodes > q.limit {
		q.stopped = true
		return
	}
	if d == len(q.jobs) {
		if val > q.best+q.tol {
			q.best = val
			for k, j := range q.jobs {
				q.sel[j] = q.cur[k]
			}
		}
		return
	}
	if !q.mayBeat(d, val, cores, gpus) {
		return
	}
	// Below d, job d is decided: the bounds there walk the jobs after it
	// only.
	q.byCores.remove(d)
	q.byGPUs.remove(d)
	q.children(d, val, cores, gpus)
	q.byGPUs.restore(d)
	q.byCores.restore(d)
}

// children searches depth d's job on each of its bids that fits, then
// left out (dfs).
func (q *quickSearch) children(d int, val float64, cores, gpus int) {
	job := &q.p.Jobs[q.jobs[d]]
	for x, i := range q.bids[d] {
		sum := q.sums[d][x]
		if (sum.cores > cores || sum.gpus > gpus) && !q.noTotals {
			continue // more than is free in all: it fits no nodes
		}
		b := &job.Bids[i]
		if !q.tryTake(b, &q.miss[d][x]) {
			continue
		}
		q.cur[d] = i
		q.dfs(d+1, val+q.p.Value(q.jobs[d], i), cores-sum.cores, gpus-sum.gpus)
		q.take(b, -1)
		if q.stopped {
			return
		}
	}
	if d == 0 {
		q.firstDone = true // every selection with jobs[0] is now at most best+tol
		q.firstBest = q.best
	}
	q.cur[d] = -1
	q.dfs(d+1, val, cores, gpus)
}

// mayBeat reports whether the open jobs (depth d on) may still take val
// above the incumbent. The cut keeps a margin for rounding (1e-9
// relative), so only what surely cannot beat it is cut.
func (q *quickSearch) mayBeat(d int, val float64, cores, gpus int) bool {
	target := q.best + q.tol - 1e-9*max(1, math.Abs(q.best))
	if val+q.fractional(q.byCores, d, cores, gpus, true, val, target) <= target {
		return false
	}
	return val+q.fractional(q.byGPUs, d, cores, gpus, false, val, target) > target
}

// fractional is the fractional knapsack, in order, of the open jobs
// (depth d on) that fit alone in the cores and GPUs left, on the cores
// (byCores) or the GPUs. It may stop early, at a partial sum s with
// base+s > target: the whole sum adds values that are not negative, and
// rounding keeps that order, so base plus it would be above target too.
func (q *quickSearch) fractional(order *openOrder, d, cores, gpus int, byCores bool, base, target float64) float64 {
	room := gpus
	if byCores {
		room = cores
	}
	sum := 0.0
	for x := order.next[order.head()]; x != order.head(); x = order.next[x] {
		k := order.order[x]
		it := q.items[k]
		if k < d || it.cores > cores || it.gpus > gpus {
			continue
		}
		w := it.gpus
		if byCores {
			w = it.cores
		}
		if w <= room {
			room -= w
			sum += it.value
			if base+sum > target {
				return sum
			}
			continue
		}
		return sum + it.value*float64(room)/float64(w)
	}
	return sum
}

// byDensity orders the items by value per unit of weight, best first (no
// weight first of all).
func byDensity(items []item, weight func(item) int) []int {
	idx := make([]int, len(items))
	for k := range idx {
		idx[k] = k
	}
	density := func(it item) float64 {
		if weight(it) == 0 {
			return math.Inf(1)
		}
		return it.value / float64(weight(it))
	}
	slices.SortStableFunc(idx, func(a, b int) int { return cmp.Compare(density(items[b]), density(items[a])) })
	return idx
}

// openOrder is an order of the search's jobs as a list the search takes
// decided jobs out of and puts back (last out, first back): the bound at
// depth d walks the jobs from d on, in the order's order, without
// stepping over the decided ones (most of the order deep in the search).
type openOrder struct {
	order      []int   // job indices, the order
	pos        []int32 // pos[k]: job k's place in order
	next, prev []int32 // the list over places; place len(order) is its head
}

func newOpenOrder(order []int) *openOrder {
	n := len(order)
	o := &openOrder{order: order, pos: make([]int32, n), next: make([]int32, n+1), prev: make([]int32, n+1)}
	for x, k := range order {
		o.pos[k] = int32(x)
	}
	for x := range n + 1 {
		o.next[x], o.prev[x] = int32((x+1)%(n+1)), int32((x+n)%(n+1))
	}
	return o
}

func (o *openOrder) head() int32 { return int32(len(o.order)) }

// remove takes job k out of the list.
func (o *openOrder) remove(k int) {
	x := o.pos[k]
	o.next[o.prev[x]], o.prev[o.next[x]] = o.next[x], o.prev[x]
}

// restore puts job k back where remove took it from: the jobs taken out
// after it must be back already.
func (o *openOrder) restore(k int) {
	x := o.pos[k]
	o.next[o.prev[x]], o.prev[o.next[x]] = x, x
}
