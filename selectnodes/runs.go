package selectnodes

import (
	"errors"
	"maps"
	"math"
	"slices"

	"github.com/bits-and-blooms/bitset"
	"github.com/hpcsched/hpcsched/topology"
)

// run is a maximal stretch [start, end) of consecutive candidate nodes.
type run struct{ start, end int }

func (r run) len() int { return r.end - r.start }

// runsOf lists the runs of b's nodes in [lo, n), all of b's nodes lying
// below n.
func runsOf(b *bitset.BitSet, lo, n int) []run {
	var out []run
	for i, ok := b.NextSet(uint(lo)); ok && int(i) < n; {
		j, more := b.NextClear(i)
		if !more || int(j) > n {
			j = uint(n)
		}
		out = append(out, run{int(i), int(j)})
		if int(j) >= n {
			break
		}
		i, ok = b.NextSet(j)
	}
	return out
}

// picker chooses whole nodes by the consecutive-node rule of the Slurm Programmer's Guide:
// the single run that suffices and leaves the fewest nodes unused, else
// runs largest first so the job spans the fewest runs. cpuOf is what each
// node counts towards the job's CPU total.
type picker struct {
	n     int // nodes in the cluster
	cpuOf func(i int) int
	// prefer holds nodes to take right after the required ones (the lower
	// weights when byWeight widened the candidates); nil for none.
	prefer *bitset.BitSet
	// slurm completes required nodes as Slurm 22.05 does (compat_linear.go);
	// mixed: the candidates differ in CPU count (compat_linear.go);
	// nodeCount: the job gave one (-N).
	slurm, mixed, nodeCount bool
	// the candidates lie in the nodes [lo, hi) and count nodes of them
	// when known (newPicker): runs are looked for there only
	lo, hi int
	count  int // -1: count the candidates
	sc     *scratch
}

// newPicker is a picker over cand. When cand is the bitmap accumulate
// filled, its nodes lie in the words accumulate wrote and their count is
// known: a selection that stopped at its first node sets does not read
// the rest of the cluster.
func newPicker(v View, cand *bitset.BitSet, cpuOf func(int) int, prefer *bitset.BitSet) picker {
	pk := picker{n: len(v.c.nodes), cpuOf: cpuOf, prefer: prefer, hi: len(v.c.nodes), count: -1, sc: v.sc}
	if sc := v.sc; sc != nil && cand == sc.maps[bmAvail] {
		pk.lo, pk.hi = min(sc.availSpan.lo*64, pk.n), min(sc.availSpan.hi*64, pk.n)
		pk.count = 0
		for _, k := range sc.availRec {
			pk.count += k
		}
	}
	return pk
}

// candCount is how many nodes cand has (cand is the picker's).
func (pk picker) candCount(cand *bitset.BitSet) int {
	if pk.count >= 0 {
		return pk.count
	}
	return int(cand.Count())
}

// want is the node count to aim for: the desired count, at least the
// minimum and the required nodes.
func want(n Counts, required int) int { return max(n.Desired, n.Min, required, 1) }

func limit(n Counts, avail int) int {
	if n.Max <= 0 || n.Max > avail {
		return avail
	}
	return n.Max
}

// pick returns the chosen nodes, or false.
func (pk picker) pick(cand, required *bitset.BitSet, n Counts, contiguous bool) ([]int, bool) {
	if contiguous {
		if sel, ok := pk.compatContiguousTotal(cand, required, n); ok {
			return sel, true // compat_linear.go
		}
		return pk.contiguous(cand, required, n)
	}
	if pk.slurm && (required == nil || !required.Any()) {
		return pk.compatPick(cand, n) // compat_linear.go
	}
	var sel []int
	cpus := 0
	if required != nil {
		for i, ok := required.NextSet(0); ok; i, ok = required.NextSet(i + 1) {
			sel = append(sel, int(i))
			cpus += pk.cpuOf(int(i))
		}
	}
	maxN := limit(n, pk.candCount(cand))
	if len(sel) > maxN {
		return nil, false
	}
	needNodes, needCPU := want(n, len(sel))-len(sel), n.CPUs-cpus
	taken := required
	if pk.prefer != nil && (needNodes > 0 || needCPU > 0) {
		for i, ok := pk.prefer.NextSet(0); ok && (needNodes > 0 || needCPU > 0) && len(sel) < maxN; i, ok = pk.prefer.NextSet(i + 1) {
			if required != nil && required.Test(i) || !cand.Test(i) {
				continue
			}
			sel = append(sel, int(i))
			needNodes--
			needCPU -= pk.cpuOf(int(i))
		}
		taken = pk.prefer
		if required != nil {
			taken = pk.prefer.Union(required)
		}
	}
	if (needNodes > 0 || needCPU > 0) && pk.slurm && required != nil && required.Any() {
		sel = pk.fillAroundRequired(sel, cand, required, needNodes, needCPU, maxN-len(sel))
	} else if needNodes > 0 || needCPU > 0 {
		rest := cand
		if taken != nil {
			rest = cand.Difference(taken)
		}
		sel = pk.fillFrom(sel, rest, needNodes, needCPU, maxN-len(sel)) // rest is within cand
	}
	if pk.meets(sel, n) {
		return sel, true
	}
	if n.CPUs <= 0 {
		return nil, false // too few nodes, in any order
	}
	if pk.slurm && (required == nil || !required.Any()) {
		return pk.fromRunEnd(cand, n) // compat_linear.go
	}
	return largestFirst(cand, required, n, pk.cpuOf)
}

func (pk picker) meets(sel []int, n Counts) bool {
	if n.CPUs <= 0 {
		return len(sel) >= max(n.Min, 1) // no CPU total to add up
	}
	total := 0
	for _, i := range sel {
		total += pk.cpuOf(i)
	}
	return len(sel) >= max(n.Min, 1) && total >= n.CPUs
}

type nodeCPUs struct{ node, cpus int }

// largestFirst is the fallback when runs of nodes in index order cannot
// reach the CPU total within the node limit: required nodes, then nodes
// with the most CPUs first (index order among equals), which reaches any
// reachable total with the fewest nodes. It counts the candidates per CPU
// count instead of sorting them: a cluster has few distinct counts.
func largestFirst(cand, required *bitset.BitSet, n Counts, cpuOf func(int) int) ([]int, bool) {
	var sel []int
	cpus := 0
	if required != nil {
		for i, ok := required.NextSet(0); ok; i, ok = required.NextSet(i + 1) {
			sel = append(sel, int(i))
			cpus += cpuOf(int(i))
		}
	}
	var rest []nodeCPUs
	perCount := map[int]int{}
	for i, ok := cand.NextSet(0); ok; i, ok = cand.NextSet(i + 1) {
		if required == nil || !required.Test(i) {
			c := cpuOf(int(i))
			rest = append(rest, nodeCPUs{int(i), c})
			perCount[c]++
		}
	}
	maxN := limit(n, int(cand.Count()))
	w := want(n, len(sel))
	// how far down the CPU counts the prefix of the order reaches: every
	// node above last, and lastTake nodes of last
	last, lastTake, count := math.MaxInt, 0, len(sel)
	for _, v := range slices.Backward(slices.Sorted(maps.Keys(perCount))) {
		if count >= maxN || (count >= w && cpus >= n.CPUs) {
			break
		}
		needC := perCount[v]
		if cpus >= n.CPUs {
			needC = 0
		} else if v > 0 {
			needC = (n.CPUs - cpus + v - 1) / v
		}
		t := min(perCount[v], maxN-count, max(w-count, needC))
		count, cpus = count+t, cpus+t*v
		last, lastTake = v, t
	}
	for _, r := range rest {
		if r.cpus > last || (r.cpus == last && lastTake > 0) {
			if r.cpus == last {
				lastTake--
			}
			sel = append(sel, r.node)
		}
	}
	if len(sel) < max(n.Min, 1) || cpus < n.CPUs || len(sel) > maxN {
		return nil, false
	}
	return sel, true
}

// take counts how many nodes from the start of r meet the need, or false.
func (pk picker) take(r run, needNodes, needCPU int) (int, bool) {
	if needCPU <= 0 {
		return max(needNodes, 0), r.len() >= needNodes
	}
	t := 0
	for i := r.start; i < r.end; i++ {
		t++
		needCPU -= pk.cpuOf(i)
		if t >= needNodes && needCPU <= 0 {
			return t, true
		}
	}
	return 0, false
}

// fillFrom adds to sel from the runs of rest in the picker's span: the
// single run that suffices leaving the fewest nodes unused (the earliest
// among equals), else runs largest first. The walk over the runs stops at
// a run that fits exactly (none can fit better; a one-node job on a
// fragmented cluster usually finds one at once); the runs it lists, for
// when no single run suffices, live in the call's scratch.
func (pk picker) fillFrom(sel []int, rest *bitset.BitSet, needNodes, needCPU, room int) []int {
	var runs []run
	if pk.sc != nil {
		runs = pk.sc.runs[:0]
	}
	best, bestT := run{}, 0
	eachRun(rest.Words(), pk.lo, pk.hi, func(start, end int) bool {
		r := run{start, end}
		runs = append(runs, r)
		if t, fits := pk.take(r, needNodes, needCPU); fits && t <= room && t > 0 && (bestT == 0 || r.len()-t < best.len()-bestT) {
			best, bestT = r, t
			return r.len() != t
		}
		return true
	})
	if pk.sc != nil {
		pk.sc.runs = runs[:0]
	}
	if bestT > 0 {
		sel = slices.Grow(sel, bestT)
		for i := best.start; i < best.start+bestT; i++ {
			sel = append(sel, i)
		}
		return sel
	}
	return pk.largestRuns(sel, runs, needNodes, needCPU, room)
}

// largestRuns takes nodes from the runs largest first (the earlier of
// equal runs first), so the job spans the fewest runs.
func (pk picker) largestRuns(sel []int, runs []run, needNodes, needCPU, room int) []int {
	if needCPU <= 0 {
		runs = pk.longestFor(runs, min(needNodes, room))
		sel = slices.Grow(sel, max(min(needNodes, room), 0))
	}
	// runs come in node order: larger first, then the earlier (a total
	// order, so the unstable sort gives the stable one's answer)
	slices.SortFunc(runs, func(a, b run) int {
		if a.len() != b.len() {
			return b.len() - a.len()
		}
		return a.start - b.start
	})
	for _, r := range runs {
		for i := r.start; i < r.end && room > 0 && (needNodes > 0 || needCPU > 0); i++ {
			sel = append(sel, i)
			needNodes--
			if needCPU > 0 { // a met CPU total needs no more counting
				needCPU -= pk.cpuOf(i)
			}
			room--
		}
	}
	return sel
}

// longestFor keeps, in place and in order, the runs that the largest-first
// order takes for count nodes: those at least as long as the shortest run
// it reaches. A planner's probe for a few nodes of a fragmented cluster
// then sorts a handful of runs, not thousands (the sort was most of a
// backfill probe). Run lengths are counted in a histogram, not sorted.
func (pk picker) longestFor(runs []run, count int) []run {
	if count <= 0 || len(runs) == 0 {
		return runs[:0]
	}
	longest := 0
	for _, r := range runs {
		longest = max(longest, r.len())
	}
	var perLen []int
	if pk.sc != nil {
		pk.sc.lens = growTo(pk.sc.lens, longest+1)
		perLen = pk.sc.lens
		clear(perLen)
	} else {
		perLen = make([]int, longest+1)
	}
	for _, r := range runs {
		perLen[r.len()]++
	}
	shortest, nodes := longest, 0
	for ; shortest > 1 && nodes+perLen[shortest]*shortest < count; shortest-- {
		nodes += perLen[shortest] * shortest
	}
	kept := runs[:0]
	for _, r := range runs {
		if r.len() >= shortest {
			kept = append(kept, r)
		}
	}
	return kept
}

// contiguous finds one run holding every required node and a window of
// it with enough nodes and CPUs: the window of the wanted size if any, and
// among those the best fit (fewest nodes of its run left unused), then
// the lowest index. Windows are found with prefix sums, one pass per run.
func (pk picker) contiguous(cand, required *bitset.BitSet, n Counts) ([]int, bool) {
	rlo, rhi, nreq := -1, -1, 0
	if required != nil && required.Any() {
		lo, _ := required.NextSet(0)
		hi, _ := required.PreviousSet(required.Len() - 1)
		rlo, rhi, nreq = int(lo), int(hi), int(required.Count())
	}
	w := want(n, nreq)
	maxN := limit(n, pk.candCount(cand))
	minLen := max(n.Min, 1)
	if rlo >= 0 {
		minLen = max(minLen, rhi-rlo+1)
	}
	type choice struct{ start, length, unused int }
	better := func(a choice, b *choice) bool {
		if b == nil {
			return true
		}
		if aShort, bShort := a.length < w, b.length < w; aShort != bShort {
			return !aShort
		}
		if a.length != b.length && (a.length < w || b.length < w) {
			return a.length > b.length // closer to the wanted size
		}
		return a.unused < b.unused
	}
	var best *choice
	var prefix []int
	for _, r := range runsOf(cand, pk.lo, pk.hi) {
		if rlo >= 0 && (rlo < r.start || rhi >= r.end) {
			continue
		}
		prefix = append(prefix[:0], 0)
		for i := r.start; i < r.end; i++ {
			prefix = append(prefix, prefix[len(prefix)-1]+pk.cpuOf(i))
		}
		lastStart := r.end - 1
		if rlo >= 0 {
			lastStart = rlo
		}
		e := r.start
		for s := r.start; s <= lastStart; s++ {
			// the shortest window from s with the minimum nodes, the
			// required span and the CPUs; e never moves back
			e = max(e, s+minLen)
			if rhi >= 0 {
				e = max(e, rhi+1)
			}
			for e <= r.end && prefix[e-r.start]-prefix[s-r.start] < n.CPUs {
				e++
			}
			if e > r.end {
				break // later starts only have fewer CPUs
			}
			end := min(max(e, s+w), r.end, s+maxN)
			if end < e {
				continue // the CPUs need more nodes than allowed
			}
			ch := choice{start: s, length: end - s, unused: r.len() - (end - s)}
			if better(ch, best) {
				best = &ch
			}
		}
	}
	if best == nil {
		return nil, false
	}
	sel := make([]int, best.length)
	for k := range sel {
		sel[k] = best.start + k
	}
	return sel, true
}

// byWeight tries pick on the lowest-weight nodes of avail first, adding
// the next weight only when that fails, so lower weights are used first
// even when avail spans several.
func byWeight(v View, avail *bitset.BitSet, try func(cand, lower *bitset.BitSet) (Choice, bool)) (Choice, bool) {
	c := v.c
	var weights []int64
	for r := range c.records {
		rec := &c.records[r]
		if (len(weights) == 0 || weights[len(weights)-1] != rec.weight) && v.sc.intersects(avail, r, rec) {
			weights = append(weights, rec.weight)
		}
	}
	if len(weights) <= 1 {
		return try(avail, nil)
	}
	tier := v.sc.bitmap(bmTier, avail.Len())
	var lower *bitset.BitSet
	r := 0
	for _, wt := range weights {
		for ; r < len(c.records) && c.records[r].weight <= wt; r++ {
			orSpan(tier, avail, &c.records[r])
		}
		if p, ok := try(tier, lower); ok {
			return p, true
		}
		if lower == nil {
			lower = v.sc.bitmap(bmLower, avail.Len())
		}
		tier.Copy(lower)
	}
	return Choice{}, false
}

// treeFit places whole nodes with the topology when one is configured and
// the job is not contiguous: the wanted count first, then the minimum.
// handled is false when the cluster has no tree (the caller uses runs).
// Best-fit over leaves takes nodes by weight, not by CPUs, so when it
// cannot reach a CPU total within the node limit, fallback picks with the
// consecutive-run rule inside one root tree at a time.
func treeFit(v View, job *Job, cand *bitset.BitSet, n Counts, cpuOf func(int) int,
	fallback func(cand *bitset.BitSet) ([]int, bool)) (chosen []int, handled bool) {
	c := v.c
	if c.compat {
		return compatTreeFit(v, job, cand, n, cpuOf) // compat_topo.go
	}
	if c.topo == nil || job.Req.Contiguous {
		return nil, false
	}
	nreq := 0
	if job.Required != nil {
		nreq = int(job.Required.Count())
	}
	maxN := limit(n, int(cand.Count())+nreq)
	lo := max(n.Min, nreq, 1)
	hi := min(want(n, nreq), maxN)
	if hi < lo {
		return nil, true
	}
	weight := func(i int) int64 { return c.nodes[i].Weight }
	if c.records[0].weight == c.records[len(c.records)-1].weight {
		// one weight for every node (records are in weight order): no
		// order to keep, and Fit chooses the same without asking
		weight = nil
	}
	spanning := false
	for _, count := range []int{hi, lo} {
		got, err := c.topo.FitWith(v.sc.fitScratch(), cand, topology.Request{Nodes: count, CPUs: n.CPUs, CPUsOf: cpuOf, Required: job.Required, Weight: weight})
		if err == nil && len(got) <= maxN {
			return got, true
		}
		if errors.Is(err, topology.ErrNoSingleTree) {
			spanning = true
			v.Note("topology: no single switch tree can hold %d nodes", count)
		}
	}
	if n.CPUs <= 0 || spanning {
		return nil, true
	}
	for _, r := range c.topo.Roots {
		within := c.topo.Nodes(r)
		within.InPlaceIntersection(cand)
		if got, ok := fallback(within); ok {
			return got, true
		}
	}
	return nil, true
}
