package selectnodes

import (
	"errors"
	"maps"
	"slices"

	"github.com/bits-and-blooms/bitset"
	"github.com/hpcsched/hpcsched/hostlist"
)

// This file is select_nodes in Slurm's node_scheduler.c, the first stage:
// the request is resolved and checked against its partition, then
// _build_node_list (buildnodes.go), _get_req_features (reqfeatures.go) and
// _pick_best_nodes (pickbest.go) run in that order.

// SelectNodes is select_nodes in Slurm's node_scheduler.c: it checks the
// partition, builds the weight-ordered node sets (BuildNodeSets), computes
// the node counts (NodeCounts), satisfies count features (ReqFeatures)
// and picks the nodes (PickBestNodes, with the selector). In RunNow mode
// the result fits the current load; TestOnly ignores the load; WillRun
// returns the earliest start, simulating the running jobs ending in order
// of their expected ends. Failures are *Error values matching one of
// ErrNodeConfig, ErrPartConfig, ErrBusy, ErrHeld or ErrInvalidRequest and
// carrying an Explanation. It only reads req and keeps no reference to it;
// the Placement is new and the caller's, and nothing is allocated until it
// is passed to Allocate.
func (c *Cluster) SelectNodes(req *Request, mode Mode) (*Placement, error) {
	c.mustBeMade("SelectNodes")
	p, memo, err := c.run(req, mode, nil, false, nil)
	if err != nil {
		c.explainFailure(req, mode, memo, err)
	}
	return p, err
}

// explainFailure runs req again, recording why it failed: the fast path
// keeps no record. The counted terms are not solved again. (A function
// of its own: the variables it takes the address of live on the heap,
// which a successful selection then does not pay for.)
func (c *Cluster) explainFailure(req *Request, mode Mode, memo countsMemo, err error) {
	var e *Error
	if errors.As(err, &e) && e.Explanation == nil {
		e.Explanation = c.explain(req, mode, &memo)
	}
}

// Try is SelectNodes without the Explanation on failure (the error's
// Explanation is nil): for callers that make many attempts and only need
// the class, such as a backfill planner.
func (c *Cluster) Try(req *Request, mode Mode) (*Placement, error) {
	c.mustBeMade("Try")
	p, _, err := c.run(req, mode, nil, false, nil)
	return p, err
}

// Probe answers only "does it fit, and where": no explanation and no
// failure classification, so a failure costs one selection instead of
// three. Every failure is ErrBusy. Planners probing many moments use it.
func (c *Cluster) Probe(req *Request, mode Mode) (*Placement, bool) {
	c.mustBeMade("Probe")
	if mode == WillRun {
		mode = RunNow
	}
	p, _, err := c.run(req, mode, nil, true, nil)
	return p, err == nil
}

// ProbeNodes is Probe for a planner that needs only where a job fits: the
// Placement has Partition, its nodes (NodeCount, All, HasNode, NodeSet),
// Names, TotalCPUs, Exclusive and Weight, but no Alloc (no per-node CPUs,
// memory or GRES). Skipping the allocation records halves what a probe
// allocates on jobs of many nodes; use Probe for a placement to start.
func (c *Cluster) ProbeNodes(req *Request, mode Mode) (*Placement, bool) {
	c.mustBeMade("ProbeNodes")
	if mode == WillRun {
		mode = RunNow
	}
	p, _, err := c.runWith(req, mode, callOptions{quick: true, nodesOnly: true})
	return p, err == nil
}

// Explain runs the pipeline for req in the given mode and reports, per
// node set and per constraint, what each filter removed, the decisions
// taken and the result (a placement or an error class). It changes
// nothing.
func (c *Cluster) Explain(req *Request, mode Mode) *Explanation {
	c.mustBeMade("Explain")
	return c.explain(req, mode, nil)
}

func (c *Cluster) explain(req *Request, mode Mode, memo *countsMemo) *Explanation {
	ex := &Explanation{Mode: mode, c: c}
	p, _, err := c.run(req, mode, ex, false, memo)
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

// run is select_nodes proper, building the call the later stages share.
// It returns the counted-terms outcome for a run that explains this one;
// memo, when not nil, is such an outcome to reuse.
func (c *Cluster) run(req *Request, mode Mode, ex *Explanation, quick bool, memo *countsMemo) (*Placement, countsMemo, error) {
	return c.runWith(req, mode, callOptions{ex: ex, quick: quick, memo: memo})
}

// callOptions are run's: see call.
type callOptions struct {
	ex               *Explanation
	quick, nodesOnly bool
	memo             *countsMemo
	into             *bitset.BitSet // ProbeInto's destination
}

func (c *Cluster) runWith(req *Request, mode Mode, opts callOptions) (*Placement, countsMemo, error) {
	ex, quick, memo := opts.ex, opts.quick, opts.memo
	if req == nil {
		return nil, countsMemo{}, newError(ErrInvalidRequest, "no request")
	}
	sc := c.takeScratch()
	defer c.putScratch(sc)
	job, err := c.resolve(req, sc)
	if err != nil {
		return nil, countsMemo{}, err
	}
	if ex == nil && memo == nil && (mode == RunNow || mode == TestOnly) && !c.noPlainWalk && c.plainWalkable() {
		p, ok, never := c.plainWalk(job, sc, mode, opts.nodesOnly, opts.into)
		switch {
		case ok:
			c.stamp(p, mode)
			return p, countsMemo{}, nil // plain_probe.go
		case never:
			return nil, countsMemo{}, c.plainFailure(job, sc, quick) // plain_fail.go
		}
	}
	if quick && ex == nil && (mode == RunNow || mode == TestOnly) && !c.noPlainWalk && c.roomCheck(&sc.room, job, mode) {
		// a probe reads only that it failed (noroom.go)
		return nil, countsMemo{}, ErrBusy
	}
	if ex == nil && memo == nil && (mode == RunNow || mode == TestOnly) && !c.noPlainWalk && !c.noConsResWalk && c.consResWalkable() {
		if p, ok, err := c.consResWalk(job, sc, mode, opts); ok { // consres_walk.go
			if err == nil {
				c.stamp(p, mode)
			}
			return p, countsMemo{}, err
		}
	}
	// the call lives in the scratch, lent to one call at a time: a call
	// of its own would be allocated on every selection
	cx := &sc.call
	*cx = call{c: c, job: job, mode: mode, ex: ex, quick: quick, nodesOnly: opts.nodesOnly, into: opts.into, v: c.live()}
	cx.v.ex = ex
	cx.v.sc = sc
	if memo != nil {
		cx.memo, cx.reuse = *memo, true
	}
	p, err := cx.selectNodes()
	kept := cx.memo
	if opts.into != nil {
		p = nil // cx.probed, about to be cleared; ProbeInto reads only err
	}
	*cx = call{} // hold nothing of this call in the scratch
	if err == nil {
		c.stamp(p, mode)
	}
	return p, kept, err
}

// selectNodes checks the partition, builds the node sets and counts, and
// hands over to _get_req_features in the call's mode.
func (cx *call) selectNodes() (*Placement, error) {
	c, job := cx.c, cx.job
	cx.ex.setPartition(job.Part.Name)
	if job.Req.Held {
		return nil, newError(ErrHeld, "the job has priority 0")
	}
	if err := c.checkPartition(job); err != nil {
		return nil, err
	}
	if cx.ex != nil { // boxing the argument allocates, explained or not
		cx.step("partition %s is up; its access, memory and time limits allow the job", job.Part.Name)
	}
	if err := c.compatCountsFirst(job); err != nil { // compat_counts.go
		return nil, err
	}
	var err error
	if cx.sets, err = c.buildNodeSets(cx); err != nil {
		return nil, err
	}
	cx.n, err = c.nodeCounts(job)
	cx.ex.setCounts(cx.n)
	if err != nil {
		return nil, err
	}
	cx.countsDiffer()
	cx.usableCounts()
	switch cx.mode {
	case RunNow:
		return cx.reqFeatures(job, cx.n)
	case TestOnly:
		sc := cx.v.sc
		cx.v = c.none()
		cx.v.ex, cx.v.sc = cx.ex, sc
		return cx.reqFeatures(job, cx.n)
	case WillRun:
		return cx.willRun()
	}
	return nil, newError(ErrInvalidRequest, "unknown mode %d", cx.mode)
}

func (c *Cluster) live() View { return View{c: c, u: &c.use} }

// none is a view of the cluster without load, for TestOnly.
func (c *Cluster) none() View { return View{c: c, u: c.emptyLoad()} }

// viewFor is the load a stage sees in mode: none for TestOnly, else the
// current one.
func (c *Cluster) viewFor(mode Mode) View {
	if mode == TestOnly {
		return c.none()
	}
	return c.live()
}

// stageView is viewFor for a pipeline stage called on its own
// (PickBestNodes, ReqFeatures): with working memory of its own, as a
// selection call has (the stages keep per-call state there, such as
// SlurmCompat's lighter-pass flag), not the cluster's pooled scratch, so
// nothing the stage returns can be overwritten by a later call.
func (c *Cluster) stageView(mode Mode) View {
	v := c.viewFor(mode)
	v.sc = new(scratch)
	return v
}

// Resolve checks req against the cluster and resolves its names: the
// partition (the default one when empty), the required and excluded nodes,
// the GRES types, and whether the job may share nodes (Table 2.1).
func (c *Cluster) Resolve(req *Request) (*Job, error) {
	c.mustBeMade("Resolve")
	if req == nil {
		return nil, newError(ErrInvalidRequest, "no request")
	}
	return c.resolve(req, nil)
}

// resolve is Resolve for one selection call: the job and its available
// nodes, when it excludes some, go in the call's scratch (sc, when not
// nil), as the job lives no longer than the call; a planner probing with
// excluded nodes allocated a bitmap of the cluster's size per probe.
// partitionOf is the index of the partition named name, the default one
// for "". The default partition (most requests', named or not) is told
// by its name before the map is hashed.
func (c *Cluster) partitionOf(name string) (int, *Error) {
	if d := c.defPart; d >= 0 && (name == "" || name == c.parts[d].Name) {
		return d, nil
	}
	if name == "" {
		return 0, newError(ErrInvalidRequest, "no partition given and the cluster has no default partition")
	}
	pi, ok := c.partIx[name]
	if !ok {
		return 0, newError(ErrInvalidRequest, "unknown partition %q", name)
	}
	return pi, nil
}

func (c *Cluster) resolve(req *Request, sc *scratch) (*Job, error) {
	switch {
	// An OR of signed values is negative exactly when one of them is: one
	// test per width instead of a branch per field on every selection.
	case req.MinNodes|req.MaxNodes|req.DesiredNodes|req.CPUs|req.MinCPUsPerNode|req.MaxCPUsPerSocket|req.MaxSwitches < 0 ||
		req.MinMemoryPerNode|req.MinTmpDiskPerNode|req.MemPerCPU|int64(req.TimeLimit) < 0:
		return nil, newError(ErrInvalidRequest, "negative count or limit")
	case req.Share > ShareOversubscribe:
		return nil, newError(ErrInvalidRequest, "unknown share request %d", req.Share)
	case req.MaxNodes > 0 && req.MinNodes > req.MaxNodes:
		return nil, newError(ErrInvalidRequest, "minimum %d nodes is above maximum %d", req.MinNodes, req.MaxNodes)
	}
	pi, perr := c.partitionOf(req.Partition)
	if perr != nil {
		return nil, perr
	}
	part := &c.parts[pi]
	job := sc.job() // the call's, when there is one: it lives as long
	*job = Job{Req: req, Part: &part.Partition, partIndex: pi, MaxShare: part.maxShare(),
		Shared:      MayShare(part.Sharing.Mode, req.Share),
		Exclusive:   req.Share == ShareExclusiveJob || part.Sharing.Mode == ShareExclusive,
		cpusPerNode: max(req.MinCPUsPerNode, 1), availNodes: c.avail}
	applyMemDefaults(job) // compat_mem.go
	if err := checkBitmap("Request.ExcludeNodes", req.ExcludeNodes, len(c.nodes)); err != nil {
		return nil, err
	}
	if x := req.ExcludeNodes; x != nil && x.Any() {
		// withheld nodes count as unavailable (class B), not as
		// configuration, as Slurm's schedule does with avail_node_bitmap
		job.availNodes = sc.difference(bmExcl, c.avail, x)
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
		for k, key := range c.gres.keys {
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
func (c *Cluster) checkPartition(job *Job) error {
	p, req := job.Part, job.Req
	switch {
	case p.State != PartitionUp:
		return newError(ErrPartConfig, "partition %s is %s", p.Name, p.State)
	case p.RootOnly && !req.Root:
		return newError(ErrPartConfig, "partition %s is RootOnly", p.Name)
	case p.MaxMemPerNode > 0 && req.MinMemoryPerNode > p.MaxMemPerNode:
		return newError(c.memLimitClass(), "%d MB per node is above partition %s MaxMemPerNode %d MB", req.MinMemoryPerNode, p.Name, p.MaxMemPerNode) // compat_pending.go
	}
	if err := c.checkNoMemory(job); err != nil { // compat_mem.go
		return err
	}
	if why := p.Access.check(p.Name, req, !c.noQOSChecks); why != "" {
		return newError(ErrInvalidRequest, "%s", why)
	}
	switch {
	case p.MaxTime > 0 && req.TimeLimit > p.MaxTime:
		return newError(ErrPartConfig, "time limit %v is above partition %s MaxTime %v", slurmTime(req.TimeLimit), p.Name, slurmTime(p.MaxTime))
	}
	return nil
}

// NodeCounts is the part of select_nodes that sets min_nodes, req_nodes
// and max_nodes from the job's and the partition's limits; a minimum above
// the maximum is ErrPartConfig. A job Resolve did not make (nil, or
// without its request or partition) is ErrInvalidRequest.
func (c *Cluster) NodeCounts(job *Job) (Counts, error) {
	c.mustBeMade("NodeCounts")
	if err := unresolved("NodeCounts", job); err != nil {
		return Counts{}, err
	}
	return c.nodeCounts(job)
}

// unresolved says why job is not one Resolve made, for the pipeline's
// exported steps; nil when it is.
func unresolved(fn string, job *Job) error {
	if job == nil || job.Req == nil || job.Part == nil {
		return newError(ErrInvalidRequest, "Cluster.%s needs a job from Resolve", fn)
	}
	return nil
}

// nodeCounts is NodeCounts for the package's own resolved jobs.
func (c *Cluster) nodeCounts(job *Job) (Counts, error) {
	req, p := job.Req, job.Part
	nreq := 0
	if job.Required != nil {
		nreq = int(job.Required.Count())
	}
	n := Counts{Min: max(req.MinNodes, 1, p.MinNodes, nreq), Max: req.MaxNodes, CPUs: req.CPUs}
	if c.compat {
		return compatNodeCounts(job, n)
	}

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

// sortedIDs is a helper for deterministic iteration over running jobs.
func sortedIDs(m map[JobID]running) []JobID { return slices.Sorted(maps.Keys(m)) }
