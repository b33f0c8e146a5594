package selectnodes

import (
	"errors"
	"fmt"
	"maps"
	"slices"

	"github.com/bits-and-blooms/bitset"
	"github.com/hpcsched/hpcsched/hostlist"
)

// NodeSet is one config record's candidates for a request: Slurm's
// node_set, built by _build_node_list. The sets of a request share one
// candidate bitmap, so building them costs no bitmap per set.
type NodeSet struct {
	Record   int // index of the config record, in weight order
	Weight   int64
	Features []string
	Count    int // candidate nodes
	cand     *bitset.BitSet
	rec      *record
	of       int // how many sets share cand: their union is cand
}

// Nodes returns the set's candidate nodes (a new bitmap).
func (s NodeSet) Nodes() *bitset.BitSet {
	b := bitset.New(s.cand.Len())
	setSpan(b, s.cand, nil, s.rec)
	return b
}

// SelectNodes is select_nodes in Slurm's node_scheduler.c: it checks the
// partition, builds the weight-ordered node sets (BuildNodeSets), computes
// the node counts (NodeCounts), satisfies count features (ReqFeatures)
// and picks the nodes (PickBestNodes, with the selector). In RunNow mode
// the result fits the current load; TestOnly ignores the load; WillRun
// returns the earliest start, simulating the running jobs ending in order
// of their expected ends. Failures are *Error values matching one of
// ErrNodeConfig, ErrPartConfig, ErrBusy, ErrHeld or ErrInvalidRequest and
// carrying an Explanation.
func (c *Cluster) SelectNodes(req *Request, mode Mode) (*Placement, error) {
	return c.selectOn(req, mode, c.load())
}

// Try is SelectNodes without the Explanation on failure (the error's
// Explanation is nil): for callers that make many attempts and only need
// the class, such as a backfill planner.
func (c *Cluster) Try(req *Request, mode Mode) (*Placement, error) {
	return c.run(req, mode, nil, c.load())
}

// Probe answers only "does it fit, and where": no explanation and no
// failure classification, so a failure costs one selection instead of
// three. Every failure is ErrBusy. Planners probing many moments use it.
func (c *Cluster) Probe(req *Request, mode Mode) (*Placement, bool) {
	if mode == WillRun {
		mode = RunNow
	}
	c.quick = true
	defer func() { c.quick = false }()
	p, err := c.run(req, mode, nil, c.load())
	return p, err == nil
}

func (c *Cluster) selectOn(req *Request, mode Mode, ld load) (*Placement, error) {
	p, err := c.run(req, mode, nil, ld)
	if err != nil {
		var e *Error
		if errors.As(err, &e) && e.Explanation == nil {
			// Run again, recording why; the fast path keeps no record.
			e.Explanation = c.explainOn(req, mode, ld)
		}
	}
	return p, err
}

// Explain runs the pipeline for req in the given mode and reports, per
// node set and per constraint, what each filter removed, the decisions
// taken and the result (a placement or an error class). It changes
// nothing.
func (c *Cluster) Explain(req *Request, mode Mode) *Explanation {
	return c.explainOn(req, mode, c.load())
}

func (c *Cluster) explainOn(req *Request, mode Mode, ld load) *Explanation {
	ex := &Explanation{Mode: mode}
	p, err := c.run(req, mode, ex, ld)
	ex.Placement = p
	if err != nil {
		var e *Error
		if errors.As(err, &e) {
			ex.Class, ex.Reason = e.Class, e.Reason
		} else {
			ex.Class, ex.Reason = ErrInvalidRequest, err.Error()
		}
	}
	return ex
}

// load is a state of the nodes: the cluster's own, or a Snapshot's.
type load struct {
	u    *usage
	jobs map[JobID]*running
}

func (c *Cluster) load() load { return load{&c.use, c.jobs} }

func (c *Cluster) run(req *Request, mode Mode, ex *Explanation, ld load) (*Placement, error) {
	if req == nil {
		return nil, newError(ErrInvalidRequest, "no request")
	}
	job, err := c.Resolve(req)
	if err != nil {
		return nil, err
	}
	if ex != nil {
		ex.Partition = job.Part.Name
	}
	if req.Held {
		return nil, newError(ErrHeld, "the job has priority 0")
	}
	if err := c.checkPartition(job, ex); err != nil {
		return nil, err
	}
	sets, err := c.buildNodeSets(job, ex)
	if err != nil {
		return nil, err
	}
	n, err := c.NodeCounts(job)
	if ex != nil {
		ex.Counts = n
	}
	if err != nil {
		return nil, err
	}
	now := View{c: c, u: ld.u}
	if ex != nil && mode != TestOnly {
		c.reportUsable(job, sets, ex, now)
	}
	switch mode {
	case RunNow:
		return c.reqFeatures(job, sets, n, now, mode, ex)
	case TestOnly:
		return c.reqFeatures(job, sets, n, c.none(), mode, ex)
	case WillRun:
		return c.willRun(job, sets, n, ex, ld)
	}
	return nil, newError(ErrInvalidRequest, "unknown mode %d", mode)
}

func (c *Cluster) live() View { return View{c: c, u: &c.use} }

// none is a view of the cluster without load, for TestOnly.
func (c *Cluster) none() View { return View{c: c, u: c.empty} }

// Resolve checks req against the cluster and resolves its names: the
// partition (the default one when empty), the required and excluded nodes,
// the GRES types, and whether the job may share nodes (Table 2.1).
func (c *Cluster) Resolve(req *Request) (*Job, error) {
	switch {
	case req.MinNodes < 0 || req.MaxNodes < 0 || req.DesiredNodes < 0 || req.CPUs < 0 || req.MinCPUsPerNode < 0 ||
		req.MinMemoryPerNode < 0 || req.MinTmpDiskPerNode < 0 || req.TimeLimit < 0:
		return nil, newError(ErrInvalidRequest, "negative count or limit")
	case req.MaxNodes > 0 && req.MinNodes > req.MaxNodes:
		return nil, newError(ErrInvalidRequest, "minimum %d nodes is above maximum %d", req.MinNodes, req.MaxNodes)
	}
	name := req.Partition
	if name == "" {
		if c.defPart < 0 {
			return nil, newError(ErrInvalidRequest, "no partition given and the cluster has no default partition")
		}
		name = c.parts[c.defPart].Name
	}
	pi, ok := c.partIx[name]
	if !ok {
		return nil, newError(ErrInvalidRequest, "unknown partition %q", name)
	}
	part := &c.parts[pi]
	job := &Job{Req: req, Part: &part.Partition, partIndex: pi, MaxShare: part.maxShare(),
		Shared:      MayShare(part.Sharing.Mode, req.Share),
		Exclusive:   req.Share == ShareExclusiveJob || part.Sharing.Mode == ShareExclusive,
		cpusPerNode: max(req.MinCPUsPerNode, 1), availNodes: c.avail}
	if x := req.ExcludeNodes; x != nil && x.Len() == uint(len(c.nodes)) && x.Any() {
		// withheld nodes count as unavailable (class B), not as
		// configuration, as Slurm's schedule does with avail_node_bitmap
		job.availNodes = c.avail.Difference(x)
	}
	var err error
	if len(req.Required) > 0 {
		if job.Required, err = c.NodeSet(req.Required); err != nil {
			return nil, newError(ErrInvalidRequest, "required nodes: %v", err)
		}
	}
	if len(req.Excluded) > 0 {
		if job.Excluded, err = c.NodeSet(req.Excluded); err != nil {
			return nil, newError(ErrInvalidRequest, "excluded nodes: %v", err)
		}
		if job.Required != nil && job.Required.IntersectionCardinality(job.Excluded) > 0 {
			return nil, newError(ErrInvalidRequest, "nodes %s are both required and excluded",
				hostlist.Compress(c.Names(job.Required.Intersection(job.Excluded))))
		}
	}
	for _, g := range req.GRES {
		if g.Name == "" || g.Min < 0 || g.Max < g.Min {
			return nil, newError(ErrInvalidRequest, "GRES %+v: need a name and 0 <= min <= max", g)
		}
		need := gresNeed{min: g.Min, max: g.Max, req: g}
		for k, key := range c.gresKeys {
			if key.name == g.Name && (g.Type == "" || key.typ == g.Type) {
				need.keys = append(need.keys, k)
			}
		}
		job.gres = append(job.gres, need)
	}
	return job, nil
}

// checkPartition is the first part of select_nodes: the partition must be
// up and its limits compatible with the job's.
func (c *Cluster) checkPartition(job *Job, ex *Explanation) error {
	p, req := job.Part, job.Req
	switch {
	case p.State != PartitionUp:
		return newError(ErrPartConfig, "partition %s is %s", p.Name, p.State)
	case p.RootOnly && !req.Root:
		return newError(ErrPartConfig, "partition %s is RootOnly", p.Name)
	case p.MaxTime > 0 && req.TimeLimit > p.MaxTime:
		return newError(ErrPartConfig, "time limit %v is above partition %s MaxTime %v", req.TimeLimit, p.Name, p.MaxTime)
	}
	ex.step("partition %s is up and its limits allow the job", p.Name)
	return nil
}

// BuildNodeSets is _build_node_list: one set per config record with nodes
// in the job's partition, in weight order, after removing excluded nodes
// and nodes whose configuration fails the per-node constraints (features,
// CPUs, memory, disk, GRES; FastSchedule decides whether a record's
// baseline or each node's reported resources count). It then checks that
// every required node is in a set, returning ErrNodeConfig otherwise.
func (c *Cluster) BuildNodeSets(job *Job) ([]NodeSet, error) { return c.buildNodeSets(job, nil) }

func (c *Cluster) buildNodeSets(job *Job, ex *Explanation) ([]NodeSet, error) {
	part := &c.parts[job.partIndex]
	base := part.nodes
	if job.Excluded != nil {
		base = part.nodes.Difference(job.Excluded)
	}

	cand := bitset.New(uint(len(c.nodes)))
	var sets []NodeSet
	for r := range c.records {
		rec := &c.records[r]
		inPart := countSpan(part.nodes, rec)
		if inPart == 0 {
			continue
		}
		var rep *SetReport
		if ex != nil {
			ex.Sets = append(ex.Sets, SetReport{Nodes: hostlist.Compress(c.namesOf(rec.nodes)), Weight: rec.weight, Total: len(rec.nodes), record: r})
			rep = &ex.Sets[len(ex.Sets)-1]
			rep.removed("partition", len(rec.nodes)-inPart, "")
		}
		setSpan(cand, base, nil, rec)
		left := countSpan(cand, rec)
		rep.removed("excluded", inPart-left, "")
		if left > 0 && !c.baselineFits(job, rec, rep, left) {
			if c.fastSchedule == 0 {
				left = c.perNodeFits(job, rec, cand)
			} else {
				clearSpan(cand, rec)
				left = 0
			}
		}
		if rep != nil {
			rep.Candidates = left
			rep.Available = countSpan(job.availNodes.Intersection(cand), rec)
		}
		if left > 0 {
			sets = append(sets, NodeSet{Record: r, Weight: rec.weight, Features: rec.features, Count: left, cand: cand, rec: rec})
		}
	}
	if job.Required != nil && !subsetOf(job.Required, cand) {
		missing := job.Required.Difference(cand)
		return nil, newError(ErrNodeConfig, "required nodes %s are not usable by this job (partition, exclusion or per-node constraints)",
			hostlist.Compress(c.Names(missing)))
	}
	if len(sets) == 0 {
		return nil, newError(ErrNodeConfig, "no node of partition %s meets the per-node constraints", part.Name)
	}
	for k := range sets {
		sets[k].of = len(sets)
	}
	if ex != nil {
		ex.step("%d candidate nodes in %d node sets", cand.Count(), len(sets))
	}
	return sets, nil
}

// reportUsable fills in how many candidates of each set the current load
// leaves usable.
func (c *Cluster) reportUsable(job *Job, sets []NodeSet, ex *Explanation, v View) {
	if len(sets) == 0 {
		return
	}
	usable := bitset.New(uint(len(c.nodes)))
	c.usable(job, sets[0].cand, v, RunNow, usable)
	for _, s := range sets {
		for k := range ex.Sets {
			if ex.Sets[k].record == s.Record {
				ex.Sets[k].Usable = countSpan(usable, s.rec)
			}
		}
	}
}

func (r *SetReport) removed(filter string, n int, why string) {
	if r != nil && n > 0 {
		r.Removed = append(r.Removed, Removal{Filter: filter, Count: n, Why: why})
	}
}

func (c *Cluster) namesOf(idx []int) []string {
	out := make([]string, len(idx))
	for k, i := range idx {
		out[k] = c.nodes[i].Name
	}
	return out
}

// baselineFits checks the record's configuration against the per-node
// constraints, recording the first that fails.
func (c *Cluster) baselineFits(job *Job, rec *record, rep *SetReport, left int) bool {
	req := job.Req
	switch {
	case req.Features != nil && !req.Features.Match(rec.features):
		rep.removed("features", left, fmt.Sprintf("features %v do not satisfy %s", rec.features, req.Features.PerNode()))
		return false
	case req.MinCPUsPerNode > rec.cpus:
		rep.removed("cpus", left, fmt.Sprintf("CPUs %d < %d", rec.cpus, req.MinCPUsPerNode))
		return false
	case req.MinMemoryPerNode > rec.mem:
		rep.removed("memory", left, fmt.Sprintf("RealMemory %d < %d", rec.mem, req.MinMemoryPerNode))
		return false
	case req.MinTmpDiskPerNode > rec.tmp:
		rep.removed("tmpdisk", left, fmt.Sprintf("TmpDisk %d < %d", rec.tmp, req.MinTmpDiskPerNode))
		return false
	}
	for _, need := range job.gres {
		var have int64
		for _, k := range need.keys {
			have += rec.gres[k]
		}
		if have < need.min {
			rep.removed("gres", left, fmt.Sprintf("%s: %d < %d", need.req.Name+typeSuffix(need.req.Type), have, need.min))
			return false
		}
	}
	return true
}

func typeSuffix(t string) string {
	if t == "" {
		return ""
	}
	return ":" + t
}

// perNodeFits is FastSchedule=0: the baseline fell short, so each node is
// judged by what it reported. Features and GRES are configuration only, so
// a record failing on those loses every node.
func (c *Cluster) perNodeFits(job *Job, rec *record, cand *bitset.BitSet) int {
	left := 0
	for _, i := range rec.nodes {
		if !cand.Test(uint(i)) {
			continue
		}
		if c.reportedFits(job, rec, i) {
			left++
		} else {
			cand.Clear(uint(i))
		}
	}
	return left
}

// reportedFits judges node i of rec by what it reported (FastSchedule=0).
func (c *Cluster) reportedFits(job *Job, rec *record, i int) bool {
	req := job.Req
	e := c.effective(i)
	ok := (req.Features == nil || req.Features.Match(rec.features)) && req.MinCPUsPerNode <= e.CPUs &&
		req.MinMemoryPerNode <= e.RealMemory && req.MinTmpDiskPerNode <= e.TmpDisk
	for _, need := range job.gres {
		var have int64
		for _, k := range need.keys {
			have += rec.gres[k]
		}
		ok = ok && have >= need.min
	}
	return ok
}

// nodeFits judges node i alone against the job's per-node constraints, as
// BuildNodeSets does for its record, and says why it fails.
func (c *Cluster) nodeFits(job *Job, i int) (why string, ok bool) {
	rec := &c.records[c.recOf[i]]
	rep := &SetReport{}
	if c.baselineFits(job, rec, rep, 1) || (c.fastSchedule == 0 && c.reportedFits(job, rec, i)) {
		return "", true
	}
	return rep.Removed[0].Filter + ": " + rep.Removed[0].Why, false
}

// NodeCounts is the part of select_nodes that sets min_nodes, req_nodes
// and max_nodes from the job's and the partition's limits; a minimum above
// the maximum is ErrPartConfig.
func (c *Cluster) NodeCounts(job *Job) (Counts, error) {
	req, p := job.Req, job.Part
	nreq := 0
	if job.Required != nil {
		nreq = int(job.Required.Count())
	}
	n := Counts{Min: max(req.MinNodes, 1, p.MinNodes, nreq), Max: req.MaxNodes, CPUs: req.CPUs}
	if p.MaxNodes > 0 && (n.Max == 0 || p.MaxNodes < n.Max) {
		n.Max = p.MaxNodes
	}
	if n.Max > 0 && n.Min > n.Max {
		return n, newError(ErrPartConfig, "needs at least %d nodes but at most %d are allowed (partition %s MinNodes %d MaxNodes %d)",
			n.Min, n.Max, p.Name, p.MinNodes, p.MaxNodes)
	}
	n.Desired = max(req.DesiredNodes, n.Min)
	if n.Max > 0 {
		n.Desired = min(n.Desired, n.Max)
	}
	return n, nil
}

// PickBestNodes is _pick_best_nodes: for each matching-OR alternative (or
// once when there is none) it accumulates node sets in weight order and
// calls the selector as soon as enough nodes are available; on failure it
// classifies the cause as seed 000 §3.2.4 does, using TestOnly passes on
// all the sets' nodes (ErrNodeConfig) and on their available nodes
// (ErrPartConfig), else ErrBusy. By default the cheapest alternative (by
// total weight) wins; with SlurmCompat the first that can be satisfied.
//
// Like ReqFeatures it works on the current load (none for TestOnly); the
// end-time simulation of WillRun is SelectNodes' own.
func (c *Cluster) PickBestNodes(job *Job, sets []NodeSet, n Counts, mode Mode) (*Placement, error) {
	return c.pickBest(job, sets, n, c.viewFor(mode), mode, nil)
}

// viewFor is the load a stage sees in mode: none for TestOnly, else the
// current one.
func (c *Cluster) viewFor(mode Mode) View {
	if mode == TestOnly {
		return c.none()
	}
	return c.live()
}

func (c *Cluster) pickBest(job *Job, sets []NodeSet, n Counts, v View, mode Mode, ex *Explanation) (*Placement, error) {
	v.ex = ex
	var alts []*altTerm
	if job.Req.Features != nil {
		for _, t := range job.Req.Features.Alternatives() {
			alts = append(alts, &altTerm{name: t.String(), match: t.Match})
		}
	}
	if len(alts) == 0 {
		alts = []*altTerm{nil}
	}
	var best *Placement
	var worst *Error
	for _, alt := range alts {
		altSets := sets
		if alt != nil {
			altSets = nil
			for _, s := range sets {
				if alt.match(s.Features) {
					altSets = append(altSets, s)
				}
			}
		}
		p, err := c.accumulate(job, altSets, n, v, mode)
		label := "all node sets"
		if alt != nil {
			label = "alternative " + alt.name
		}
		if err != nil {
			if ex != nil {
				ex.step("%s: %s: %s", label, ClassName(err.Class), err.Reason)
			}
			if worst == nil || rank(err.Class) > rank(worst.Class) {
				worst = err
			}
			continue
		}
		if ex != nil {
			ex.step("%s: selector chose %s (weight %d)", label, p.Hostlist(), p.Weight)
		}
		if c.compat {
			return p, nil
		}
		if best == nil || p.Weight < best.Weight {
			best = p
		}
	}
	if best != nil {
		return best, nil
	}
	return nil, worst
}

type altTerm struct {
	name  string
	match func([]string) bool
}

// accumulate is the inner loop of _pick_best_nodes over one alternative's
// sets.
func (c *Cluster) accumulate(job *Job, sets []NodeSet, n Counts, v View, mode Mode) (*Placement, *Error) {
	N := uint(len(c.nodes))
	if len(sets) == 0 {
		return nil, newError(ErrNodeConfig, "no node set satisfies it")
	}
	// total: every node of these sets, up or not (Slurm's total_bitmap).
	total := sets[0].cand
	if len(sets) != sets[0].of {
		total = bitset.New(N)
		for _, s := range sets {
			orSpan(total, s.cand, s.rec)
		}
	}
	if job.Required != nil && !subsetOf(job.Required, total) {
		return nil, newError(ErrNodeConfig, "required nodes %s are not in these node sets",
			hostlist.Compress(c.Names(job.Required.Difference(total))))
	}
	if n.Max > 0 && job.Required != nil && int(job.Required.Count()) > n.Max {
		return nil, newError(ErrNodeConfig, "%d required nodes exceed the maximum of %d", job.Required.Count(), n.Max)
	}
	usable := bitset.New(N)
	c.usable(job, total, v, mode, usable)
	avail := bitset.New(N)
	need := max(n.Desired, n.Min)
	availCount, tried := 0, -1
	for k, s := range sets {
		orSpan(avail, usable, s.rec)
		availCount += countSpan(usable, s.rec)
		switch {
		case job.Shared && k+1 < len(sets) && sets[k+1].Weight == s.Weight:
			continue // let the selector weigh the load of equal-weight sets together
		case job.Required != nil && !subsetOf(job.Required, avail):
			continue
		case availCount < need:
			continue
		}
		tried = availCount
		if p, ok := c.selector.JobTest(v, job, avail, n); ok {
			return p, nil
		}
	}
	if tried != availCount && availCount >= n.Min && (job.Required == nil || subsetOf(job.Required, avail)) {
		if p, ok := c.selector.JobTest(v, job, avail, n); ok {
			return p, nil // fewer than desired, at least the minimum
		}
	}
	if c.quick {
		return nil, newError(ErrBusy, "does not fit")
	}
	return nil, c.classify(job, total, n)
}

// usable writes the nodes of cand the job could use now: available
// (up, not drained) and, except for TestOnly, allowed by the load.
func (c *Cluster) usable(job *Job, cand *bitset.BitSet, v View, mode Mode, dst *bitset.BitSet) {
	cand.Copy(dst)
	dst.InPlaceIntersection(job.availNodes)
	if mode != TestOnly {
		c.selector.Filter(v, job, dst, dst)
	}
}

// classify tells node, partition and busy failures apart (seed 000
// §3.2.4, cases A, B and C).
func (c *Cluster) classify(job *Job, total *bitset.BitSet, n Counts) *Error {
	empty := c.none()
	if _, ok := c.selector.JobTest(empty, job, total, n); !ok {
		return newError(ErrNodeConfig, "the %d nodes that qualify cannot give %s even if all were idle and up", total.Count(), n)
	}
	ready := total.Intersection(job.availNodes)
	if job.Required != nil && !subsetOf(job.Required, ready) {
		return newError(ErrPartConfig, "required nodes %s are down or drained",
			hostlist.Compress(c.Names(job.Required.Difference(ready))))
	}
	if _, ok := c.selector.JobTest(empty, job, ready, n); !ok {
		return newError(ErrPartConfig, "too few nodes are up and not drained (%d of %d)", ready.Count(), total.Count())
	}
	return newError(ErrBusy, "resources are in use by running jobs")
}

// ReqFeatures is _get_req_features: it satisfies the counted terms of the
// constraint (A*2&B*3, [a*1&b*2]) and hands the accumulated nodes to
// PickBestNodes as required nodes. By default it solves the counts exactly
// (it never rejects a request that some choice of nodes satisfies, and
// prefers low weights); with SlurmCompat it accumulates greedily in
// expression and weight order, as Slurm does (seed 000 §3.3).
func (c *Cluster) ReqFeatures(job *Job, sets []NodeSet, n Counts, mode Mode) (*Placement, error) {
	return c.reqFeatures(job, sets, n, c.viewFor(mode), mode, nil)
}

func (c *Cluster) reqFeatures(job *Job, sets []NodeSet, n Counts, v View, mode Mode, ex *Explanation) (*Placement, error) {
	var counts []countTerm
	if job.Req.Features != nil {
		for _, ct := range job.Req.Features.Counts() {
			counts = append(counts, countTerm{name: ct.String(), n: ct.N, match: ct.Term.Match})
		}
	}
	if len(counts) == 0 {
		return c.pickBest(job, sets, n, v, mode, ex)
	}
	var acc *bitset.BitSet
	var err error
	if c.compat {
		acc, err = c.greedyCounts(job, sets, n, counts, v, mode, ex)
	} else {
		acc, err = c.exactCounts(job, sets, n, counts, v, mode, ex)
	}
	if err != nil {
		return nil, err
	}
	orig := job.Required
	defer func() { job.Required = orig }()
	if orig != nil {
		acc.InPlaceUnion(orig)
	}
	job.Required = acc
	final := n
	final.Min = max(n.Min, int(acc.Count()))
	final.Desired = max(n.Desired, final.Min)
	if final.Max > 0 && final.Min > final.Max {
		return nil, newError(ErrNodeConfig, "the counted terms need %d nodes, above the maximum of %d", final.Min, final.Max)
	}
	if ex != nil {
		ex.step("counted terms take %s; final pick with %s", hostlist.Compress(c.Names(acc)), final)
	}
	return c.pickBest(job, sets, final, v, mode, ex)
}

type countTerm struct {
	name  string
	n     int
	match func([]string) bool
}

// greedyCounts is Slurm's accumulation: each term in order picks its
// count from the sets all of whose nodes satisfy it, lowest weight first,
// and earlier picks become required nodes of later terms.
func (c *Cluster) greedyCounts(job *Job, sets []NodeSet, n Counts, counts []countTerm, v View, mode Mode, ex *Explanation) (*bitset.BitSet, error) {
	orig := job.Required
	defer func() { job.Required = orig }()
	acc := bitset.New(uint(len(c.nodes)))
	for _, ct := range counts {
		var tmp []NodeSet
		for _, s := range sets {
			if ct.match(s.Features) {
				tmp = append(tmp, s)
			}
		}
		job.Required = nil
		if acc.Any() {
			job.Required = acc
		}
		p, err := c.pickBest(job, tmp, Counts{Min: ct.n, Desired: ct.n, Max: n.Max}, v, mode, nil)
		if err != nil {
			ex.step("count %s (SlurmCompat greedy, %d sets): %v", ct.name, len(tmp), err)
			return nil, err
		}
		acc = acc.Union(p.Nodes)
		if ex != nil {
			ex.step("count %s (SlurmCompat greedy): %s", ct.name, p.Hostlist())
		}
	}
	return acc, nil
}

// sortedIDs is a helper for deterministic iteration over running jobs.
func sortedIDs(m map[JobID]*running) []JobID { return slices.Sorted(maps.Keys(m)) }
