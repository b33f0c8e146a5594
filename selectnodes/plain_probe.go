package selectnodes

import (
	"slices"

	"github.com/bits-and-blooms/bitset"
)

// A plain walk: on a cluster of one kind of node under select/linear, a
// plain request (see CountedNeed; withheld nodes allowed) that does not
// share its nodes is a
// count of whole nodes, and the pipeline's answer — one node set, the
// idle available nodes (all available ones for TestOnly), the picker's
// consecutive-run rule — can be found by walking the candidates' runs
// once, without building node sets or asking the selector. The walk
// answers successes, and failures that no picker could avoid (their
// error is the pipeline's classification, plain_fail.go); on any other
// failure the selection runs the whole pipeline.

// plainWalkable reports whether the cluster's selections can be plain
// walks: its own Linear in the default mode without a switch tree, one
// node configuration (so every node has the same CPUs and weight), no
// GRES and no reported node sizes (the configured CPUs are every node's).
func (c *Cluster) plainWalkable() bool {
	if c.compat || c.topo != nil || len(c.records) != 1 || len(c.gres.keys) != 0 ||
		(c.fastSchedule == 0 && c.reported != nil) || c.records[0].cpus <= 0 {
		return false
	}
	_, ok := c.selector.(Linear)
	return ok
}

// plainWalk is the selection of a resolved job in mode RunNow or TestOnly
// when it is a plain walk, into a Placement (nodesOnly as ProbeNodes) or,
// when into is not nil, the chosen nodes into it (ProbeInto); ok is false
// when it is not a plain walk or does not fit (the caller then runs the
// pipeline).
//
// never is true (with ok false) when the walk can tell that the
// selection must fail: see plainNever (plain_fail.go).
func (c *Cluster) plainWalk(job *Job, sc *scratch, mode Mode, nodesOnly bool, into *bitset.BitSet) (p *Placement, ok, never bool) {
	rec := &c.records[0]
	if job.Shared || job.Required != nil || job.Excluded != nil || len(job.gres) != 0 || !plainShape(job.Req) ||
		job.Req.Held || c.checkPartition(job) != nil {
		return nil, false, false
	}
	if _, fits := c.baselineFits(job, rec); !fits {
		return nil, false, false
	}
	n, err := c.nodeCounts(job)
	if err != nil {
		return nil, false, false
	}
	// the one node set's usable nodes: the partition's, available, and
	// for RunNow idle (a job that does not share takes idle nodes)
	N := uint(len(c.nodes))
	cand := sc.bitmap(bmPlain, N)
	andInto(cand, c.parts[job.partIndex].nodes, job.availNodes)
	if mode != TestOnly {
		cand.InPlaceIntersection(c.live().u.idle)
	}
	count := int(cand.Count())
	if plainNever(n, count, rec.cpus) {
		return nil, false, c.parts[job.partIndex].nodes.Any()
	}
	chosen, ok := plainPick(sc, cand, len(c.nodes), n, count, rec.cpus)
	if !ok {
		return nil, false, false
	}
	if into != nil {
		// the nodes meet choiceInto's checks by construction, as they do
		// plainPlacement's (candidates, in order, each once, whole)
		for _, i := range chosen {
			into.Set(uint(i))
		}
		return nil, true, false
	}
	return c.plainPlacement(job, chosen, nodesOnly), true, false
}

// plainPlacement is the Placement the pipeline builds for a plain walk's
// chosen nodes (View.placement of their uses): whole nodes of one
// configuration, exclusive, no memory or GRES counted. It is built in one
// pass over the nodes, without the Choice and the checks of a selector's
// answer, which these nodes meet by construction: they are candidates,
// in order, each once, with the CPUs they have.
func (c *Cluster) plainPlacement(job *Job, chosen []int, nodesOnly bool) *Placement {
	var p *Placement
	if nodesOnly {
		p = &Placement{Names: make([]string, len(chosen)), nodes: make([]int, len(chosen))}
	} else if p = c.reuse(len(chosen)); p == nil {
		p = newPlacementOf(len(chosen))
	}
	p.Partition, p.Exclusive, p.Immediate, p.clusterNodes = job.Part.Name, true, true, len(c.nodes)
	for k, i := range chosen {
		n := &c.nodes[i]
		p.Names[k] = n.Name
		p.Weight = satAdd64(p.Weight, n.Weight) // weights are user numbers
		p.TotalCPUs += n.CPUs
		if nodesOnly {
			p.nodes[k] = i
		} else {
			a := &p.Alloc[k]
			a.Node, a.CPUs = i, n.CPUs
		}
	}
	return p
}

// plainPick is the picker's choice (picker.pick, fillFrom, largestRuns)
// of count candidates of cpus CPUs each in [0, hi): the single run that
// holds the job leaving the fewest nodes unused (the earliest among
// equals), else runs largest first (the earlier among equals). ok is
// false when that choice does not meet the counts (the picker would then
// try largestFirst; the caller runs the pipeline instead). The nodes, in
// order, live in the scratch until the next call.
func plainPick(sc *scratch, cand *bitset.BitSet, hi int, n Counts, count, cpus int) ([]int, bool) {
	room := limit(n, count)
	needNodes, needCPU := want(n, 0), n.CPUs
	t := needNodes // the nodes a single run must give (picker.take)
	if needCPU > 0 {
		t = max(t, (needCPU+cpus-1)/cpus)
	}
	runs := sc.runs[:0]
	best, found := run{}, false
	eachRun(cand.Words(), 0, hi, func(start, end int) bool {
		r := run{start, end}
		runs = append(runs, r)
		if t <= room && r.len() >= t && (!found || r.len()-t < best.len()-t) {
			best, found = r, true
			return r.len() != t // none fits better than exactly
		}
		return true
	})
	sc.runs = runs[:0]
	sel := sc.plainSel[:0]
	if found {
		for i := best.start; i < best.start+t; i++ {
			sel = append(sel, i)
		}
	} else {
		slices.SortFunc(runs, func(a, b run) int {
			if a.len() != b.len() {
				return b.len() - a.len()
			}
			return a.start - b.start
		})
		// each run gives its first nodes: the part taken of each is kept
		// (over the runs already read) and the parts are put in node order,
		// rather than the nodes sorted one by one
		taken := 0
		for _, r := range runs {
			end := r.start
			for ; end < r.end && room > 0 && (needNodes > 0 || needCPU > 0); end++ {
				needNodes--
				if needCPU > 0 {
					needCPU -= cpus
				}
				room--
			}
			if end > r.start {
				runs[taken] = run{r.start, end}
				taken++
			}
		}
		parts := runs[:taken]
		slices.SortFunc(parts, func(a, b run) int { return a.start - b.start })
		for _, r := range parts {
			for i := r.start; i < r.end; i++ {
				sel = append(sel, i)
			}
		}
	}
	sc.plainSel = sel
	meets := len(sel) >= max(n.Min, 1) && (n.CPUs <= 0 || len(sel)*cpus >= n.CPUs)
	return sel, meets
}
