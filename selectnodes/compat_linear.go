package selectnodes

import (
	"slices"

	"github.com/bits-and-blooms/bitset"
)

// Slurm 22.05's select/linear around required nodes, as observed on a
// real controller (../shared/slurm2205 vectors 46, 48, 51, 52); used in
// SlurmCompat mode only. No Slurm code was used.
//
// When a job has required nodes (its own -w, or the counted terms'
// picks), Slurm scans the consecutive runs of candidates in node order
// (compatBestRun): the run holding required nodes is completed from its
// first required node up to the run's end, then down to its start, unless
// a later run that suffices and is smaller displaces it; then the next
// run by the same scan. So `-N3 -C r3*1&ib*2` on c64.conf,
// whose terms pick n[033-034], takes n032 below them, not n035 above; the
// default picker takes the best-fitting free run instead.

// compatRun is one consecutive run of candidates and required nodes.
type compatRun struct {
	run
	firstReq int // the first required node in it, or -1
	free     int // candidates in it that are not required
	freeCPUs int // their CPUs
}

// fillAroundRequired adds nodes to sel (which holds the required ones)
// until needNodes and needCPU are met or room runs out, Slurm's way.
func (pk picker) fillAroundRequired(sel []int, cand, required *bitset.BitSet, needNodes, needCPU, room int) []int {
	all := cand.Union(required)
	taken := bitset.New(uint(pk.n))
	for _, i := range sel {
		taken.Set(uint(i))
	}
	var runs []compatRun
	for _, r := range runsOf(all, 0, pk.n) {
		cr := compatRun{run: r, firstReq: -1}
		for i := r.start; i < r.end; i++ {
			switch {
			case required.Test(uint(i)):
				if cr.firstReq < 0 {
					cr.firstReq = i
				}
			case !taken.Test(uint(i)) && cand.Test(uint(i)):
				cr.free++
				cr.freeCPUs += pk.cpuOf(i)
			}
		}
		runs = append(runs, cr)
	}
	more := func() bool { return room > 0 && (needNodes > 0 || needCPU > 0) }
	add := func(i int) {
		if !cand.Test(uint(i)) || taken.Test(uint(i)) || !more() {
			return
		}
		taken.Set(uint(i))
		sel = append(sel, i)
		needNodes--
		needCPU -= pk.cpuOf(i)
		room--
	}
	for more() {
		k := pk.compatBestRun(runs, needNodes, needCPU)
		if k < 0 {
			break
		}
		r := &runs[k]
		if r.firstReq >= 0 {
			for i := r.firstReq; i < r.end; i++ {
				add(i)
			}
			for i := r.firstReq - 1; i >= r.start; i-- {
				add(i)
			}
		} else {
			for i := r.start; i < r.end; i++ {
				add(i)
			}
		}
		r.free = 0
	}
	return sel
}

// compatBestRun picks the next run to take nodes from, scanning the runs
// in node order: the one held is replaced by a run holding required nodes
// when it holds none, by one that suffices when it does not, or by a
// better fit (both suffice and it has fewer free nodes, neither does and
// it has more). So a later run that suffices and is smaller displaces the
// required nodes' run: -p small -N2 -w av08 with av07 and av[13-14] busy
// takes av15, not av09 (blind12/recorded.tsv:111). -1 when no run has
// free nodes left.
func (pk picker) compatBestRun(runs []compatRun, needNodes, needCPU int) int {
	best, bestFits := -1, false
	for k, r := range runs {
		if r.free == 0 {
			continue
		}
		fits := r.free >= needNodes && r.freeCPUs >= needCPU
		if best < 0 || (r.firstReq >= 0 && runs[best].firstReq < 0) || (fits && !bestFits) ||
			(fits && r.free < runs[best].free) || (!fits && r.free > runs[best].free) {
			best, bestFits = k, fits
		}
	}
	return best
}

// fromRunEnd is Slurm's select/linear for a CPU total over candidates
// of several CPU counts (mixedSizes): the nodes with the most CPUs first, the last ones
// first among equals (part_lin.conf: -p low -n40 with MaxNodes=4 gets
// p[10-12], not p[09-11]; -n100 gets p[04-12]; t2_lin.conf: -n90 gets
// a[1-3], and with a1 and m07 busy a[2-3],m[06,08-10]).
func (pk picker) fromRunEnd(cand *bitset.BitSet, n Counts) ([]int, bool) {
	maxN := limit(n, int(cand.Count()))
	w := min(want(n, 0), maxN)
	var nodes []int
	for i, ok := cand.PreviousSet(cand.Len()); ok; {
		nodes = append(nodes, int(i))
		if i == 0 {
			break
		}
		i, ok = cand.PreviousSet(i - 1)
	}
	slices.SortStableFunc(nodes, func(a, b int) int { return pk.cpuOf(b) - pk.cpuOf(a) })
	var sel []int
	cpus := 0
	for _, i := range nodes {
		if len(sel) >= maxN || (len(sel) >= w && cpus >= n.CPUs) {
			break
		}
		sel = append(sel, i)
		cpus += pk.cpuOf(i)
	}
	return sel, len(sel) >= max(n.Min, 1) && cpus >= n.CPUs
}

// compatContiguousTotal is select/linear's --contiguous for a CPU total
// over candidates of several CPU counts: Slurm 22.05 takes it from the end as
// without --contiguous (fromRunEnd), consecutive or not. With
// gb[07-08,10-11,15-18,29-30] busy, -n342 --contiguous takes the five
// free 48-CPU nodes, the five of 16 and gb[26-28] of 8
// (blind8/recorded.tsv:131; -p short,batch -n196 takes the five of 48,
// line 133). false when it does not apply or does not fit.
func (pk picker) compatContiguousTotal(cand, required *bitset.BitSet, n Counts) ([]int, bool) {
	if !pk.slurm || !pk.mixed || n.CPUs <= 0 || (required != nil && required.Any()) {
		return nil, false
	}
	return pk.fromRunEnd(cand, n)
}

// mixedSizes reports whether the nodes of b differ in CPU count. Only
// then does select/linear take a CPU total from the end (fromRunEnd),
// ignoring --contiguous: with nodes of 32 CPUs on weights 1 and 3, -p
// short -n176 takes zg[02-07] in weight order and -n452 --contiguous
// pends for want of 15 consecutive free nodes (blind10/recorded.tsv:107,
// 114); with nodes of 48 and 32 CPUs of one weight, -p low -n424 takes
// the 48-CPU ones, then the last 32-CPU ones (blind11 30).
func mixedSizes(c *Cluster, b *bitset.BitSet) bool {
	if c.fastSchedule != 0 {
		// the configured sizes, record by record: no walk over the nodes
		cpus := -1
		for r := range c.records {
			rec := &c.records[r]
			if countSpan(b, rec) == 0 {
				continue
			}
			if cpus >= 0 && rec.cpus != cpus {
				return true
			}
			cpus = rec.cpus
		}
		return false
	}
	first, ok := b.NextSet(0)
	if !ok {
		return false
	}
	cpus := c.effective(int(first)).CPUs
	for i, ok := b.NextSet(first + 1); ok; i, ok = b.NextSet(i + 1) {
		if c.effective(int(i)).CPUs != cpus {
			return true
		}
	}
	return false
}

// compatPick is select/linear without required nodes, as recorded
// (part_lin.conf and val_lin.conf, idle and loaded):
//
//   - a CPU total over candidates of several CPU counts (the node sets
//     accumulated up to the weight that holds it) is taken from the end
//     (fromRunEnd): -n100 gets p[04-12]; given a node count (-N), only
//     when the runs cannot reach it: with nb03 nb[10-11] busy, -N4 -n8
//     takes nb[04-07] (blind16/recorded.tsv:36), -N3 -n30 k[10-12] of 20
//     CPUs after k[01-08] of 4 (blind2 c_lin.conf);
//   - otherwise run by run: the smallest run holding what the minimum
//     still needs (any run once it is met), else the largest, taken from
//     its start up to the desired count. -N3-5 with runs p[04-06] and
//     p[08-12] free gets p[04-06,08-09]; -N5 with runs of 4, 2 and 1
//     gets the 4 and the 1;
//   - when that cannot reach the CPU total within the node limit, the end
//     again.
func (pk picker) compatPick(cand *bitset.BitSet, n Counts) ([]int, bool) {
	if pk.mixed && n.CPUs > 0 && !pk.nodeCount {
		if sel, ok := pk.fromRunEnd(cand, n); ok {
			return sel, true
		}
	}
	maxN := limit(n, int(cand.Count()))
	w := min(want(n, 0), maxN)
	runs := runsOf(cand, 0, pk.n)
	used := make([]bool, len(runs))
	var sel []int
	cpus := 0
	for len(sel) < maxN && (len(sel) < w || cpus < n.CPUs) {
		k := pk.nextRun(runs, used, max(n.Min-len(sel), 0), n.CPUs-cpus)
		if k < 0 {
			break
		}
		used[k] = true
		for i := runs[k].start; i < runs[k].end && len(sel) < maxN && (len(sel) < w || cpus < n.CPUs); i++ {
			sel = append(sel, i)
			cpus += pk.cpuOf(i)
		}
	}
	if pk.meets(sel, n) {
		return sel, true
	}
	if n.CPUs <= 0 {
		return nil, false
	}
	return pk.fromRunEnd(cand, n)
}

// nextRun is the unused run holding needNodes nodes and needCPU CPUs
// with the fewest CPUs, else the one with the most CPUs (the first among
// equals); -1 when every run is used. Sized by CPUs: with nb03 busy and
// nb09 not yet among the candidates, -p wide -N5 takes nb[01-02] (2 nodes,
// 48 CPUs) before nb[05-08] (4 nodes, 48 CPUs), then nb[05-07]
// (blind16/recorded.tsv:35).
func (pk picker) nextRun(runs []run, used []bool, needNodes, needCPU int) int {
	best, bestFits, bestCPUs := -1, false, 0
	for k, r := range runs {
		if used[k] {
			continue
		}
		_, fits := pk.take(r, needNodes, needCPU)
		cpus := 0
		for i := r.start; i < r.end; i++ {
			cpus += pk.cpuOf(i)
		}
		switch {
		case best < 0, fits && !bestFits:
			best, bestFits, bestCPUs = k, fits, cpus
		case fits && cpus < bestCPUs, !fits && !bestFits && cpus > bestCPUs:
			best, bestCPUs = k, cpus
		}
	}
	return best
}
