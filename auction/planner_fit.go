package auction

// runLimits bounds what any bid can take on a load: a bid is a stretch
// of one run of consecutive nodes each with a free core and at least its
// GPU count free (bid generation's runs), of exactly the job's node
// count when it has one, and takes at most the free cores of its nodes.
// So a job asking more cores than any such stretch has free is known to
// get no bid without asking what each node offers it (in a replay of the
// AUCSCHED3 paper's workloads about three in four of a window's jobs get
// no bid in an auction: jobs of half the machine while a fifth is free).
type runLimits struct {
	load  Load
	most  map[[2]int]int // (GPUs per node, nodes or 0) -> most free cores of a stretch
	total map[int]int    // GPUs per node -> free cores of the nodes with a free core and those GPUs
	runs  map[int][]run  // GPUs per node -> the runs of nodes with a free core and those GPUs
	sums  []int          // sums[i]: the free cores of nodes 0..i-1 (all of them)
}

// run is the nodes [start, end) of a run.
type run struct{ start, end int }

func newRunLimits(load Load) *runLimits {
	return &runLimits{load: load, most: map[[2]int]int{}, total: map[int]int{}, runs: map[int][]run{}}
}

// mayBid reports whether job could get a bid on the load: false only
// when no stretch of its node count (any, when it has none) at its
// fewest GPUs per node has its cores free, and then bid generation finds
// no stretch for it.
func (rl *runLimits) mayBid(job WindowJob) bool {
	// A stretch holds no more than all such nodes: most jobs too big for
	// the free part of the machine need no scan of their node count.
	total, ok := rl.total[job.GPUsMin]
	if !ok {
		total = rl.freeWith(job.GPUsMin)
		rl.total[job.GPUsMin] = total
	}
	if total < job.Cores {
		return false
	}
	key := [2]int{job.GPUsMin, job.Nodes}
	most, ok := rl.most[key]
	if !ok {
		most = rl.stretchesOfRuns(job.GPUsMin, job.Nodes)
		rl.most[key] = most
	}
	return most >= job.Cores
}

// stretches is the most free cores of a stretch of n consecutive nodes
// (of a whole run when n is 0) each with a free core and g free GPUs; -1
// when no run has n nodes. A scan of every node, kept for the tests of
// stretchesOfRuns, which mayBid asks.
func (rl *runLimits) stretches(g, n int) int {
	cpus := rl.load.CPUs
	most, start, sum := -1, 0, 0 // the stretch is cpus[start:i+1]
	for i, c := range cpus {
		if c <= 0 || rl.load.GPUs[i] < g {
			start, sum = i+1, 0
			continue
		}
		sum += c
		if n > 0 && i-start+1 > n {
			sum -= cpus[start]
			start++
		}
		if n == 0 || i-start+1 == n {
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
func (rl *runLimits) stretchesOfRuns(g, n int) int {
	if n < 0 {
		return -1 // as stretches: no stretch of a negative count
	}
	runs, ok := rl.runs[g]
	if !ok {
		runs = rl.runsWith(g)
		rl.runs[g] = runs
	}
	most := -1
	for _, r := range runs {
		if n == 0 {
			most = max(most, rl.sums[r.end]-rl.sums[r.start])
			continue
		}
		for i := r.start + n; i <= r.end; i++ {
			most = max(most, rl.sums[i]-rl.sums[i-n])
		}
	}
	return most
}

// runsWith lists the runs of nodes with a free core and g free GPUs, and
// makes the running sums of free cores on first use.
func (rl *runLimits) runsWith(g int) []run {
	cpus := rl.load.CPUs
	if rl.sums == nil {
		rl.sums = make([]int, len(cpus)+1)
		for i, c := range cpus {
			rl.sums[i+1] = rl.sums[i] + c
		}
	}
	runs := []run{}
	for i := 0; i < len(cpus); {
		if cpus[i] <= 0 || rl.load.GPUs[i] < g {
			i++
			continue
		}
		start := i
		for i < len(cpus) && cpus[i] > 0 && rl.load.GPUs[i] >= g {
			i++
		}
		runs = append(runs, run{start, i})
	}
	return runs
}

// freeWith is the free cores of the nodes with a free core and g free
// GPUs: no stretch of them has more.
func (rl *runLimits) freeWith(g int) int {
	sum := 0
	for i, c := range rl.load.CPUs {
		if c > 0 && rl.load.GPUs[i] >= g {
			sum += c
		}
	}
	return sum
}
