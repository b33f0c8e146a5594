package selectnodes

import (
	"cmp"
	"slices"

	"github.com/bits-and-blooms/bitset"
)

// Slurm 22.05.8's select/cons_tres choice of nodes without a topology, as
// recorded on a real controller (testdata/slurm2205-own, ct_core.conf, idle
// and with a[1-2],c1 busy); SlurmCompat only. No Slurm code was used.
//
//   - Weight tiers in ascending order; within a tier, runs of consecutive
//     available nodes (in name order): the smallest run that suffices for
//     what is left, else the largest run (in CPUs) and on to the next. A
//     job with required nodes scans runs of every weight at once
//     (compat_required.go). -n1 with a[1-2],c1 busy takes a3 (a[3-4]
//     is the smaller run that suffices); -N2 -n20 takes c2,d1 (no tier-1
//     run suffices: the larger, c[2-4], gives c2).
//   - A node is skipped when it would take the last slot the node limit
//     leaves without reaching the CPU total, so -p low -n40 (MaxNodes=4)
//     takes a[1-3],b1, and -p low -n80 is refused although a[1-2],b[1-2]
//     would hold it; and, wherever it stands, when it is too small to be
//     part of any choice within the limit (cpuFloor).
//   - When the weight order cannot reach a CPU total within the node
//     limit, the selection starts again past the lowest weight, then
//     past the next; for an exact node count, last from the highest
//     weight's last node down (compatConsResPick).
//   - --contiguous (with or without a tree, which it ignores): runs of
//     every available node scanned in node order, each weighed by its
//     last node, the one held replaced by a run that suffices when it does
//     not, a lighter one, or as heavy a better fit (tightestFirst); the
//     run found must suffice in nodes and CPUs or the job pends. A job of
//     one node takes the node of it with the fewest CPUs that hold all
//     its CPUs, the first among equals, whatever its weight (-n20 takes
//     b1; -n3 takes ca07 of 8 CPUs, not ca01 of 24 before it:
//     blind24/recorded.tsv:72; -N1 takes gd08 of 12, not gd05 of 32:
//     blind19 115); else nodes from the run's start with the
//     last-slot rule, then, when that falls short, from the next runs: so
//     -N2 -n40 gets a1,b1, not consecutive nodes.
//
// The default mode takes the lowest weights first and, within them, the
// consecutive run that fits best (runs.go), and never refuses what some
// choice of nodes satisfies.

// consResTake is one compat cons_tres selection in progress.
type consResTake struct {
	cpuOf    func(int) int
	sel      []int
	taken    *bitset.BitSet
	remNodes int // nodes still wanted (the desired count)
	minNodes int // at least this many in all
	remCPUs  int
	slots    int // nodes the limit still allows
	// minCPUs: a node with fewer CPUs is of no use, the node limit's
	// other slots holding too few CPUs however filled (cpuFloor)
	minCPUs int
	// floor: the CPUs below which a node is of no use to any choice
	// within the node limit (cpuFloor, or all of them for one node)
	floor     int
	countCPUs bool
	// noShare, skipped: compatTreeFit's first try for a CPU total within
	// a node limit, and whether a node was passed over for the last slot
	noShare, skipped bool
	// withReq: the job has required nodes (compat_required.go)
	withReq bool
	// inTurn: take every node offered, no node passed over for the
	// last slot or as too small (compat_lln.go)
	inTurn bool
	// slack: the nodes a range (-N3-6) wants beyond its minimum. A run
	// suffices when it holds what the minimum still needs: with
	// mu[02-04,08-09,22-24] busy, -N3-6 takes mu[05-07] (the tightest run
	// holding 3), then mu01, mu25 and mu10, tightest first
	// (blind10/recorded.tsv:121); -N1-5 takes be[01-04] then be17 (73).
	slack int
}

func (t *consResTake) done() bool {
	return t.slots <= 0 || (t.remNodes <= 0 && t.remCPUs <= 0)
}

// add takes node i unless it is taken or would fill the last slot without
// reaching the CPU total.
func (t *consResTake) add(i int) {
	if t.done() || t.taken.Test(uint(i)) {
		return
	}
	c := t.cpuOf(i)
	if t.slots == 1 && t.remCPUs > c && !t.inTurn {
		t.skipped = true
		return
	}
	if c < t.minCPUs && !t.inTurn {
		return
	}
	t.taken.Set(uint(i))
	t.sel = append(t.sel, i)
	t.remNodes--
	t.remCPUs -= c
	t.slots--
}

func (t *consResTake) ok() bool {
	return len(t.sel) >= t.minNodes && t.remCPUs <= 0
}

func newConsResTake(v View, job *Job, avail *bitset.BitSet, n Counts, cpuOf func(int) int) *consResTake {
	t := &consResTake{cpuOf: cpuOf, taken: bitset.New(uint(len(v.c.nodes))), remCPUs: n.CPUs, countCPUs: n.CPUs > 0}
	nreq := 0
	if job.Required != nil {
		nreq = int(job.Required.Count())
	}
	maxN := limit(n, int(avail.Union(orEmpty(job.Required, avail.Len())).Count()))
	t.remNodes, t.minNodes, t.slots = min(want(n, nreq), maxN), max(n.Min, 1), maxN
	t.slack = max(t.remNodes-t.minNodes, 0)
	if job.Required != nil {
		t.withReq = job.Required.Any()
		for i, ok := job.Required.NextSet(0); ok; i, ok = job.Required.NextSet(i + 1) {
			t.taken.Set(i)
			t.sel = append(t.sel, int(i))
			t.remNodes--
			t.remCPUs -= cpuOf(int(i))
			t.slots--
		}
	}
	t.minCPUs = cpuFloor(avail, job.Required, t.slots, t.remCPUs, cpuOf)
	t.floor = t.minCPUs
	if t.slots == 1 {
		t.floor = t.remCPUs
	}
	return t
}

// cpuFloor is the fewest CPUs a node must offer to be part of any choice
// of at most slots available nodes reaching cpus: cpus less the CPUs of
// the slots-1 largest others. Slurm passes smaller nodes over wherever
// they stand: -p lim -n30 with MaxNodes=3 takes g[01-03] of 12 CPUs, not
// the 4-CPU e[01-04] of lower weight (validation 17), and -p cap -n100
// with MaxNodes=2 takes q[1-2] (hold-out 13). A node that could be part
// of one is kept: -p low -n80 is still refused (ct_core.conf:44).
func cpuFloor(avail, required *bitset.BitSet, slots, cpus int, cpuOf func(int) int) int {
	if cpus <= 0 || slots <= 1 {
		return 0
	}
	count := map[int]int{} // nodes by CPUs: few distinct sizes, no sort of the nodes
	for i, ok := avail.NextSet(0); ok; i, ok = avail.NextSet(i + 1) {
		if required == nil || !required.Test(i) {
			count[cpuOf(int(i))]++
		}
	}
	sizes := make([]int, 0, len(count))
	for c := range count {
		sizes = append(sizes, c)
	}
	slices.SortFunc(sizes, func(a, b int) int { return cmp.Compare(b, a) })
	others, left := 0, slots-1
	for _, c := range sizes {
		k := min(count[c], left)
		others, left = others+k*c, left-k
	}
	return cpus - others
}

func orEmpty(b *bitset.BitSet, n uint) *bitset.BitSet {
	if b == nil {
		return bitset.New(n)
	}
	return b
}

// compatConsResPick chooses nodes for job from avail as Slurm 22.05's
// cons_tres does (see above), or reports false. A job that may share
// nodes (OverSubscribe=FORCE, or YES with --oversubscribe) is placed on
// idle nodes when they suffice (topo-share, share_over.conf: -p force -N1
// takes o04, the first idle node, after o01-o03 holding 8, 4 and 12 of 16
// CPUs; -p force -s -N2 -n40 takes o04 and the idle 32-CPU o07).
func compatConsResPick(v View, job *Job, avail *bitset.BitSet, n Counts, cpuOf func(int) int) ([]int, bool) {
	if job.Shared && !job.Exclusive && job.Required == nil {
		if idle := avail.Intersection(v.u.idle); idle.Any() && idle.Count() < avail.Count() {
			if sel, ok := compatConsResPickIn(v, job, idle, n, cpuOf); ok {
				return sel, true
			}
		}
	}
	return compatConsResPickIn(v, job, avail, n, cpuOf)
}

// compatConsResPickIn is compatConsResPick's choice within avail.
func compatConsResPickIn(v View, job *Job, avail *bitset.BitSet, n Counts, cpuOf func(int) int) ([]int, bool) {
	t := newConsResTake(v, job, avail, n, cpuOf)
	if t.slots < 0 {
		return nil, false
	}
	if job.Req.Contiguous {
		return compatContiguous(v, job, avail, n, t)
	}
	if job.Part.LLN {
		return compatLLNPick(v, job, avail, n, cpuOf) // compat_lln.go
	}
	all := avail.Union(orEmpty(job.Required, avail.Len()))
	if t.withReq {
		t.fillRequired(v.c, all, job.Required) // compat_required.go
		return t.sel, t.ok()
	}
	tiers := weightTiers(v.c, all)
	t.fillRuns(tiers)
	if t.ok() || !t.countCPUs || t.withReq {
		return t.sel, t.ok()
	}
	// A CPU total the weight order cannot reach within the node limit
	// starts again past the lowest weight, then the next: -N3 -n40 with
	// 8-CPU nodes of weight 1 and 16-CPU ones of weight 3 takes three of
	// the latter, not two of each (probe3/recorded.tsv:9; blind
	// b_part_ct.conf:152, -p wide -n60, takes p[11-14]); -N4 -n100 takes
	// c[01-03] of weight 4 and c15 of weight 8, none of weight 2 (blind
	// b_ct.conf:115).
	for start := 1; start < len(tiers); start++ {
		t = newConsResTake(v, job, avail, n, cpuOf)
		t.fillRuns(tiers[start:])
		if t.ok() {
			return t.sel, true
		}
	}
	if n.Min < 2 || n.Max != n.Min {
		return t.sel, t.ok() // -p low -n80 (MaxNodes=4) is refused (ct_core.conf:44)
	}
	// an exact node count (-N3) last takes the nodes in reverse, the
	// highest weight's last node first: -N3 -n100 takes c16, c15 and c04
	// (probe3/recorded.tsv:15) and q14, q13 and q12 (blind4/recorded.tsv:100)
	t = newConsResTake(v, job, avail, n, cpuOf)
	for k := len(tiers) - 1; k >= 0; k-- {
		for x := len(tiers[k]) - 1; x >= 0; x-- {
			t.add(tiers[k][x])
		}
	}
	return t.sel, t.ok()
}

// fillRuns is the weight order: tier by tier, runs by bestRun.
func (t *consResTake) fillRuns(tiers [][]int) {
	for _, tier := range tiers {
		runs := tierRuns(tier)
		for !t.done() {
			k := t.bestRun(runs)
			if k < 0 {
				break
			}
			t.takeRun(runs[k])
			runs[k].free = 0
		}
	}
}

// weightTiers splits the nodes of b by weight, ascending, each tier in
// index order. A node's tier comes from its config record's weight (a
// small table, not the node records); a first pass counts each tier's
// nodes, a second writes them in index order into one array cut into the
// tiers: no sort of the nodes and one allocation (sorting and appending
// node by node made a 1-node compat selection on 100,000 nodes cost 9 ms
// and 5 MB).
func weightTiers(c *Cluster, b *bitset.BitSet) [][]int {
	weights := make([]int64, 0, len(c.records))
	for _, r := range c.records {
		weights = append(weights, r.weight)
	}
	slices.Sort(weights)
	weights = slices.Compact(weights)
	tierOf := make([]int, len(c.records))
	for r := range c.records {
		tierOf[r], _ = slices.BinarySearch(weights, c.records[r].weight)
	}
	count := make([]int, len(weights))
	for i, ok := b.NextSet(0); ok; i, ok = b.NextSet(i + 1) {
		count[tierOf[c.recOf[i]]]++
	}
	all := make([]int, b.Count())
	next := make([]int, len(weights)) // where each tier's next node goes
	var out [][]int
	at := 0
	for k, n := range count {
		next[k] = at
		if n > 0 {
			out = append(out, all[at:at+n:at+n])
		}
		at += n
	}
	for i, ok := b.NextSet(0); ok; i, ok = b.NextSet(i + 1) {
		k := tierOf[c.recOf[i]]
		all[next[k]] = int(i)
		next[k]++
	}
	return out
}

// tierNodesRun is a run of consecutive node indices of one tier.
type tierNodesRun struct {
	nodes    []int
	firstReq int // index into nodes of the first required node, or -1
	free     int
	weight   int64 // its free nodes' weight (compat_required.go)
}

func tierRuns(tier []int) []tierNodesRun {
	var runs []tierNodesRun
	for k := 0; k < len(tier); {
		j := k + 1
		for j < len(tier) && tier[j] == tier[j-1]+1 {
			j++
		}
		runs = append(runs, tierNodesRun{nodes: tier[k:j], firstReq: -1, free: j - k})
		k = j
	}
	return runs
}

// size is what a run offers: its free nodes and their CPUs, whatever the
// node limit (-N2 -n20 with a[1-2],c1 busy starts on c[2-4], 24 CPUs,
// rather than a[3-4], although two nodes of either give 16).
func (t *consResTake) size(r tierNodesRun) (nodes, cpus int) {
	for _, i := range r.nodes {
		if !t.taken.Test(uint(i)) {
			nodes++
			cpus += t.cpuOf(i)
		}
	}
	return nodes, cpus
}

// bestRun: the smallest run that suffices, then the largest (in CPUs,
// even for a node count: -N2 takes e[01-02] of 4 CPUs each, not h[01-02]
// of 24); -1 when none has free nodes.
func (t *consResTake) bestRun(runs []tierNodesRun) int {
	best, bestFits, bestSize := -1, false, 0
	for k, r := range runs {
		if r.free == 0 {
			continue
		}
		nodes, cpus := t.size(r)
		fits := nodes >= t.remNodes-t.slack && cpus >= t.remCPUs
		switch {
		case best < 0, fits && !bestFits:
			best, bestFits, bestSize = k, fits, cpus
		case fits && cpus < bestSize, !fits && !bestFits && cpus > bestSize:
			best, bestSize = k, cpus
		}
	}
	return best
}

func (t *consResTake) takeRun(r tierNodesRun) {
	if r.firstReq < 0 && t.remNodes <= 1 && t.slots > 0 {
		// one node more: the one whose CPUs fit best, the first among
		// equals (t2_ct.conf: -n1 takes y1 of 8 CPUs, not x1 of 16; -n12
		// takes x1)
		best := -1
		for _, i := range r.nodes {
			c := t.cpuOf(i)
			if !t.taken.Test(uint(i)) && c >= t.remCPUs && (best < 0 || c < t.cpuOf(best)) {
				best = i
			}
		}
		if best >= 0 {
			t.add(best)
			return
		}
	}
	if r.firstReq < 0 {
		for _, i := range r.nodes {
			t.add(i)
		}
		return
	}
	for x := r.firstReq; x < len(r.nodes); x++ {
		t.add(r.nodes[x])
	}
	for x := r.firstReq - 1; x >= 0; x-- {
		t.add(r.nodes[x])
	}
}

// compatContiguous is cons_tres's --contiguous (see above). Required
// nodes keep the default's rule: one run holding them all.
func compatContiguous(v View, job *Job, avail *bitset.BitSet, n Counts, t *consResTake) ([]int, bool) {
	if job.Required != nil && job.Required.Any() {
		return picker{n: len(v.c.nodes), cpuOf: t.cpuOf, hi: len(v.c.nodes), count: -1}.contiguous(avail, job.Required, n)
	}
	runs := runsOf(avail, 0, len(v.c.nodes))
	if len(runs) == 0 {
		return nil, false
	}
	runs = t.tightestFirst(v.c, runs)
	first := tierNodesRun{firstReq: -1}
	for i := runs[0].start; i < runs[0].end; i++ {
		first.nodes = append(first.nodes, i)
	}
	first.free = len(first.nodes)
	// sufficiency counts the whole run, not the node limit: -N2 -n40
	// then goes on past it (see above)
	total := 0
	for _, i := range first.nodes {
		total += t.cpuOf(i)
	}
	if len(first.nodes) < t.remNodes || total < t.remCPUs {
		return nil, false // the best-ranked run is too small: Slurm pends
	}
	if t.remNodes <= 1 {
		best := -1
		for _, i := range first.nodes {
			if t.cpuOf(i) < max(t.remCPUs, 1) {
				continue
			}
			if best < 0 || t.cpuOf(i) < t.cpuOf(best) {
				best = i
			}
		}
		if best >= 0 {
			t.add(best)
			return t.sel, t.ok()
		}
	}
	for _, r := range runs {
		for i := r.start; i < r.end; i++ {
			t.add(i)
		}
	}
	return t.sel, t.ok()
}

// tightestFirst moves to the front the run Slurm settles on, scanning
// the runs in node order, each weighed by its last node: a run replaces
// the one held when it suffices and that does not, or it is lighter, or,
// as heavy, both suffice and it has fewer free CPUs or neither does and
// it has more. So the tightest run that suffices wins (with sz12
// sz[18-21] busy, -N3 --contiguous takes sz[13-15] of sz[13-17] rather
// than the first run sz[01-11]: blind8/recorded.tsv:15), a heavier one
// when no lighter suffices (with zb02 busy, -p few -n56 takes zb[07-10] of
// weight 3, zb01 of weight 1 being too small: blind11/recorded.tsv:148),
// but a later run too small displaces it when it is lighter or, as heavy,
// has more CPUs, and the job pends: with sz04 sz[08-09] sz15 sz22 busy,
// -N5 pends, sz[23-26] (4 nodes, 96 CPUs) displacing sz[16-21] (6 nodes,
// 84 CPUs), while -N4 takes sz[16-19] (probe5/recorded.tsv:69-70); with
// h01 e[01-02] g04 busy, -N3 pends, h[02-03] (weight 1) displacing
// e[03-04],g[01-03] (validation 46). The same holds on a tree, which
// --contiguous ignores: -N5 pends where n[10-14] (last node of weight 1)
// is displaced by the later, lighter n[17-20] (blind3/recorded.tsv:67),
// as x[13-17] is in blind7 34. runs are in node order.
func (t *consResTake) tightestFirst(c *Cluster, runs []run) []run {
	best, bestCPUs, bestFits := -1, 0, false
	var bestWeight int64
	for k, r := range runs {
		cpus := 0
		for i := r.start; i < r.end; i++ {
			cpus += t.cpuOf(i)
		}
		fits := r.end-r.start >= t.remNodes && cpus >= t.remCPUs
		w := c.nodes[r.end-1].Weight
		if best < 0 || (fits && !bestFits) || (!fits && w <= bestWeight && cpus > bestCPUs) ||
			(fits && bestFits && (w < bestWeight || (w == bestWeight && cpus < bestCPUs))) {
			best, bestCPUs, bestFits, bestWeight = k, cpus, fits, w
		}
	}
	chosen := runs[best]
	rest := slices.Delete(slices.Clone(runs), best, best+1)
	slices.SortStableFunc(rest, func(a, b run) int {
		return cmp.Compare(c.nodes[a.end-1].Weight, c.nodes[b.end-1].Weight)
	})
	return append([]run{chosen}, rest...)
}

// compatConsRes reports whether job's selection follows Slurm 22.05's
// cons_tres without a topology: always without a tree, and for
// --contiguous with one, which ignores the tree (blind b_topo3_ct.conf:54:
// -N3 --contiguous on an idle cluster takes w[01-03] of weight 3, the
// start of the one free run). Its node sets are then tested all at once
// rather than weight by weight, the plugin weighing them itself: -n20
// --contiguous takes b1 (weight 5, 32 CPUs) although a[1-3] (weight 1)
// would do.
func (c *Cluster) compatConsRes(job *Job) bool {
	_, cr := c.selector.(ConsRes)
	return c.compat && cr && (c.topo == nil || job.Req.Contiguous)
}
