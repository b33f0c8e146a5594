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
}

func newRunLimits(load Load) *runLimits {
	return &runLimits{load: load, most: map[[2]int]int{}, total: map[int]int{}}
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
		most = rl.stretches(job.GPUsMin, job.Nodes)
		rl.most[key] = most
	}
	return most >= job.Cores
}

// stretches is the most free cores of a stretch of n consecutive nodes
// (of a whole run when n is 0) each with a free core and g free GPUs; -1
// when no run has n nodes.
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
