package auction

import "github.com/bits-and-blooms/bitset"

// runLimits bounds what any bid can take on a load: a bid is a stretch
// of one run of consecutive nodes each with a free core and at least its
// GPU count free (bid generation's runs), of exactly the job's node
// count when it has one, and takes at most the free cores of its nodes.
// So a job asking more cores than any such stretch has free is known to
// get no bid without asking what each node offers it (in a replay of the
// AUCSCHED3 paper's workloads about three in four of a window's jobs get
// no bid in an auction: jobs of half the machine while a fifth is free).
// Nodes are consecutive within the job's Span, as bid generation scans
// them: the limits are kept for each Span apart (a few partitions).
type runLimits struct {
	*spanLimits // every node: jobs without a Span
	bySpan      map[*bitset.BitSet]*spanLimits
	// idle, when not nil, gives the limits of the idle machine (a
	// planner's, for jobs that cannot bid now).
	idle func() *runLimits
}

// spanLimits is runLimits over the nodes of one Span, in index order.
// Positions index that sequence: a run is positions [start, end).
type spanLimits struct {
	load  Load
	nodes []int          // the span's nodes; nil: every node, position = node
	most  map[[2]int]int // (GPUs per node, nodes or 0) -> most free cores of a stretch
	total map[int]int    // GPUs per node -> free cores of the nodes with a free core and those GPUs
	runs  map[int][]run  // GPUs per node -> the runs of nodes with a free core and those GPUs
	sums  []int          // sums[p]: the free cores of positions 0..p-1 (all of them)
	// cpus and gpus are the span's nodes' free cores and GPUs by
	// position (values), when nodes is not nil
	cpus, gpus []int
}

// run is the positions [start, end) of a run.
type run struct{ start, end int }

func newRunLimits(load Load) *runLimits {
	return &runLimits{spanLimits: newSpanLimits(load, nil), bySpan: map[*bitset.BitSet]*spanLimits{}}
}

func newSpanLimits(load Load, nodes []int) *spanLimits {
	return &spanLimits{load: load, nodes: nodes, most: map[[2]int]int{}, total: map[int]int{}, runs: map[int][]run{}}
}

// mayBid reports whether job could get a bid on the load: false only
// when no stretch of its node count (any, when it has none) at its
// fewest GPUs per node has its cores free within its Span, and then bid
// generation finds no stretch for it.
func (rl *runLimits) mayBid(job WindowJob) bool {
	if job.Span == nil {
		return rl.spanLimits.mayBid(job)
	}
	sl := rl.bySpan[job.Span]
	if sl == nil {
		nodes := make([]int, 0, job.Span.Count())
		for i, ok := job.Span.NextSet(0); ok && int(i) < len(rl.load.CPUs); i, ok = job.Span.NextSet(i + 1) {
			nodes = append(nodes, int(i))
		}
		sl = newSpanLimits(rl.load, nodes)
		rl.bySpan[job.Span] = sl
	}
	return sl.mayBid(job)
}

func (sl *spanLimits) mayBid(job WindowJob) bool {
	// A stretch holds no more than all such nodes: most jobs too big for
	// the free part of the machine need no scan of their node count.
	total, ok := sl.total[job.GPUsMin]
	if !ok {
		total = sl.freeWith(job.GPUsMin)
		sl.total[job.GPUsMin] = total
	}
	if total < job.Cores {
		return false
	}
	key := [2]int{job.GPUsMin, job.Nodes}
	most, ok := sl.most[key]
	if !ok {
		most = sl.stretchesOfRuns(job.GPUsMin, job.Nodes)
		sl.most[key] = most
	}
	return most >= job.Cores
}

// stretches is the most free cores of a stretch of n consecutive nodes
// (of a whole run when n is 0) each with a free core and g free GPUs; -1
// when no run has n nodes. A scan of every node, kept for the tests of
// stretchesOfRuns, which mayBid asks.
func (sl *spanLimits) stretches(g, n int) int {
	cpus, gpus := sl.values()
	most, start, sum := -1, 0, 0 // the stretch is positions start..p
	for p, c := range cpus {
		if c <= 0 || gpus[p] < g {
			start, sum = p+1, 0
			continue
		}
		sum += c
		if n > 0 && p-start+1 > n {
			sum -= cpus[start]
			start++
		}
		if n == 0 || p-start+1 == n {
			most = max(most, sum)
		}
	}
	return most
}

// stretchesOfRuns is stretches from the runs of nodes with a free core
// and g free GPUs, found once per g: a window asks for many node counts
// of the same few GPU counts, and on a busy machine the runs hold a few
// of its nodes, so each count looks at those alone rather than at every
// node. A stretch's free cores are a difference of the running sums.
func (sl *spanLimits) stretchesOfRuns(g, n int) int {
	if n < 0 {
		return -1 // as stretches: no stretch of a negative count
	}
	runs, ok := sl.runs[g]
	if !ok {
		runs = sl.runsWith(g)
		sl.runs[g] = runs
	}
	most := -1
	for _, r := range runs {
		if n == 0 {
			most = max(most, sl.sums[r.end]-sl.sums[r.start])
			continue
		}
		for i := r.start + n; i <= r.end; i++ {
			most = max(most, sl.sums[i]-sl.sums[i-n])
		}
	}
	return most
}

// runsWith lists the runs of nodes with a free core and g free GPUs, and
// makes the running sums of free cores on first use.
func (sl *spanLimits) runsWith(g int) []run {
	cpus, gpus := sl.values()
	if sl.sums == nil {
		sl.sums = make([]int, len(cpus)+1)
		for p, c := range cpus {
			sl.sums[p+1] = sl.sums[p] + c
		}
	}
	runs := []run{}
	for p := 0; p < len(cpus); {
		if cpus[p] <= 0 || gpus[p] < g {
			p++
			continue
		}
		start := p
		for p < len(cpus) && cpus[p] > 0 && gpus[p] >= g {
			p++
		}
		runs = append(runs, run{start, p})
	}
	return runs
}

// freeWith is the free cores of the nodes with a free core and g free
// GPUs: no stretch of them has more.
func (sl *spanLimits) freeWith(g int) int {
	cpus, gpus := sl.values()
	sum := 0
	for p, c := range cpus {
		if c > 0 && gpus[p] >= g {
			sum += c
		}
	}
	return sum
}

// values is the free cores and GPUs by position: the load's own for every
// node, else the span's nodes' gathered once.
func (sl *spanLimits) values() (cpus, gpus []int) {
	if sl.nodes == nil {
		return sl.load.CPUs, sl.load.GPUs
	}
	if sl.cpus == nil {
		sl.cpus, sl.gpus = make([]int, len(sl.nodes)), make([]int, len(sl.nodes))
		for p, n := range sl.nodes {
			sl.cpus[p], sl.gpus[p] = sl.load.CPUs[n], sl.load.GPUs[n]
		}
	}
	return sl.cpus, sl.gpus
}
