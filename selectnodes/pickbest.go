package selectnodes

import (
	"slices"

	"github.com/bits-and-blooms/bitset"
	"github.com/hpcsched/hpcsched/hostlist"
)

// This file is _pick_best_nodes in Slurm's node_scheduler.c, called by
// _get_req_features (reqfeatures.go); it calls the selector
// (select_p_job_test).

// PickBestNodes is _pick_best_nodes: for each matching-OR alternative (or
// once when there is none) it accumulates node sets in weight order and
// calls the selector as soon as enough nodes are available; on failure it
// classifies the cause as the Novotný thesis §3.2.4 does, using TestOnly passes on
// all the sets' nodes (ErrNodeConfig) and on their available nodes
// (ErrPartConfig), else ErrBusy. By default the cheapest alternative (by
// total weight) wins; with SlurmCompat the first that can be satisfied.
//
// Like ReqFeatures it works on the current load (none for TestOnly); the
// end-time simulation of WillRun is SelectNodes' own.
func (c *Cluster) PickBestNodes(job *Job, sets []NodeSet, n Counts, mode Mode) (*Placement, error) {
	c.mustBeMade("PickBestNodes")
	if err := unresolved("PickBestNodes", job); err != nil {
		return nil, err
	}
	return (&call{c: c, job: job, sets: sets, n: n, v: c.stageView(mode), mode: mode}).pickBest(job, sets, n)
}

// pickBest runs the alternatives of job (whose Required may be the
// counted terms' nodes) over sets.
func (cx *call) pickBest(job *Job, sets []NodeSet, n Counts) (*Placement, error) {
	var one [1]*altTerm // no alternatives: one pass over all sets, without allocating
	alts := one[:0]
	if job.Req.Features != nil {
		for _, t := range job.Req.Features.Alternatives() {
			alts = append(alts, &altTerm{name: t.String(), match: t.Match})
		}
	}
	if len(alts) == 0 {
		alts = one[:]
	}
	var best, first *Placement
	var bestName, firstName string
	var worst *Error
	for _, alt := range alts {
		altSets, label := sets, "all node sets"
		if alt != nil {
			altSets, label = nil, "alternative "+alt.name
			for _, s := range sets {
				if alt.match(s.Features) {
					altSets = append(altSets, s)
				}
			}
		}
		p, err := cx.accumulate(job, altSets, n)
		if err != nil {
			if cx.ex != nil {
				cx.step("%s: %s: %s", label, className{err.Class}, err.Reason)
			}
			if worst == nil || rank(err.Class) > rank(worst.Class) {
				worst = err
			}
			continue
		}
		if cx.ex != nil { // boxing the arguments allocates, explained or not
			cx.step("%s: selector chose %s (weight %d)", label, placementList{p}, p.Weight)
		}
		if cx.c.compat {
			return p, nil
		}
		name := ""
		if alt != nil {
			name = alt.name
		}
		if first == nil {
			first, firstName = p, name
		}
		if best == nil || p.Weight < best.Weight {
			best, bestName = p, name
		}
	}
	if best != first {
		cx.defaultDiffers("took the cheapest alternative %s (weight %d); Slurm takes the first listed that can run, %s (weight %d)",
			bestName, best.Weight, firstName, first.Weight)
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

// className prints an error class's short name, when formatted.
type className struct{ class error }

func (n className) String() string { return ClassName(n.class) }

// accumulate is the inner loop of _pick_best_nodes over one alternative's
// sets.
func (cx *call) accumulate(job *Job, sets []NodeSet, n Counts) (*Placement, *Error) {
	c := cx.c
	N := uint(len(c.nodes))
	if len(sets) == 0 {
		return nil, newError(ErrNodeConfig, "no node set satisfies it")
	}
	// total: every node of these sets, up or not (Slurm's total_bitmap).
	total := sets[0].cand
	if len(sets) != sets[0].of {
		total = cx.v.sc.bitmap(bmTotal, N)
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
	// the built-in selectors filter set by set, so a selection that
	// stops at its first sets reads only their spans of the cluster
	usable, _ := cx.v.sc.anyBitmap(bmUsable, N) // every word read is written first
	lf, bySpan := builtinFilter(c.selector)
	if !bySpan {
		c.usable(job, total, cx.v, cx.mode, usable)
	}
	avail := cx.v.sc.availBitmap(N, len(c.records))
	need := max(n.Desired, n.Min)
	availCount, tried := 0, -1
	// Slurm counts usable required nodes as available from the first set
	// on, so the selector may be called before their own sets are reached
	// (compat_linear.go)
	reqFirst := cx.c.compat && job.Required != nil
	allSetsAtOnce := cx.c.compatConsRes(job) // compat_consres.go
	if reqFirst {
		// a bitmap of its own: the required nodes may lie outside the
		// spans the scratch bitmap tracks (and clears)
		avail = bitset.New(N)
		c.usable(job, job.Required.Intersection(total), cx.v, cx.mode, avail)
		availCount = int(avail.Count())
	}
	for k, s := range sets {
		if bySpan {
			andSpan(usable, total, job.availNodes, s.rec.wlo, s.rec.whi)
			if cx.mode != TestOnly {
				filterSpan(lf, cx.v, job, usable, usable, s.rec.wlo, s.rec.whi)
			}
		}
		got := orCountSpan(avail, usable, s.rec)
		cx.v.sc.wroteAvail(s.Record, s.rec, got)
		if reqFirst {
			availCount = int(avail.Count())
		} else {
			availCount += got
		}
		switch {
		case job.Shared && k+1 < len(sets) && sets[k+1].Weight == s.Weight:
			continue // let the selector weigh the load of equal-weight sets together
		case allSetsAtOnce && k+1 < len(sets):
			continue
		case cx.c.compat && cx.c.topo != nil && k+1 < len(sets) && sets[k+1].Weight == s.Weight:
			continue // Slurm merges equal weights before the tree (compat_topo.go)
		case job.Required != nil && !subsetOf(job.Required, avail):
			continue
		case availCount < need:
			continue
		}
		tried = availCount
		cx.v.sc.lighterOnly = k+1 < len(sets)
		p, ok, err := cx.jobTest(job, avail, n)
		cx.v.sc.lighterOnly = false
		if ok || err != nil {
			return p, err
		}
	}
	if tried != availCount && availCount >= n.Min && (job.Required == nil || subsetOf(job.Required, avail)) {
		if p, ok, err := cx.jobTest(job, avail, n); ok || err != nil {
			return p, err // fewer than desired, at least the minimum
		}
	}
	if cx.quick {
		return nil, newError(ErrBusy, "does not fit")
	}
	return nil, c.classifyIn(cx.v.sc, job, total, n)
}

// jobTest calls the selector and builds the Placement from its choice.
func (cx *call) jobTest(job *Job, avail *bitset.BitSet, n Counts) (*Placement, bool, *Error) {
	if cx.boundOnly {
		return &Placement{}, true, nil
	}
	ch, ok := cx.c.selector.JobTest(cx.v, job, avail, n)
	if !ok {
		return nil, false, nil
	}
	if cx.decideOnly {
		return &Placement{}, true, nil
	}
	if cx.into != nil {
		if err := cx.v.choiceInto(ch, avail, cx.into); err != nil {
			cx.into.ClearAll()
			return nil, false, err
		}
		return &cx.probed, true, nil
	}
	p, err := cx.v.placement(job, ch, avail, cx.nodesOnly)
	return p, err == nil, err
}

// usable writes the nodes of cand the job could use now: available
// (up, not drained) and, except for TestOnly, allowed by the load.
func (c *Cluster) usable(job *Job, cand *bitset.BitSet, v View, mode Mode, dst *bitset.BitSet) {
	andInto(dst, cand, job.availNodes)
	if mode != TestOnly {
		c.selector.Filter(v, job, dst, dst)
	}
}

// classify tells node, partition and busy failures apart (the Novotný thesis
// §3.2.4, cases A, B and C).
func (c *Cluster) classify(job *Job, total *bitset.BitSet, n Counts) *Error {
	return c.classifyIn(nil, job, total, n)
}

// classifyIn is classify with a call's scratch for its selections.
func (c *Cluster) classifyIn(sc *scratch, job *Job, total *bitset.BitSet, n Counts) *Error {
	return c.classifyBy(sc, job, total, n, false)
}

// classifyBy is classifyIn; plain says a plain walk may answer its
// selections (plain_fail.go).
func (c *Cluster) classifyBy(sc *scratch, job *Job, total *bitset.BitSet, n Counts, plain bool) *Error {
	empty := c.none()
	empty.sc = sc
	if err := c.compatPending(empty, job, total, n); err != nil { // compat_pending.go
		return err
	}
	if !c.cpusWithinBy(job, total, n, plain) {
		return newError(ErrNodeConfig, "the %d nodes that qualify cannot give %s even if all were idle and up", total.Count(), n)
	}
	if !c.emptyFits(empty, job, total, n, plain) {
		return newError(ErrNodeConfig, "the %d nodes that qualify cannot give %s even if all were idle and up%s",
			total.Count(), n, c.topologyCause(job, total))
	}
	ready := sc.bitmap(bmReady, total.Len())
	andInto(ready, total, job.availNodes)
	if job.Required != nil && !subsetOf(job.Required, ready) {
		return newError(ErrPartConfig, "required nodes %s are down or drained",
			hostlist.Compress(c.Names(job.Required.Difference(ready))))
	}
	if !c.cpusWithinBy(job, ready, n, plain) {
		return newError(ErrPartConfig, "too few nodes are up and not drained (%d of %d)", ready.Count(), total.Count())
	}
	// with every qualifying node up and not drained the selection above
	// already answered (the same inputs): skip repeating it
	if !ready.Equal(total) {
		if !c.emptyFits(empty, job, ready, n, plain) {
			return newError(ErrPartConfig, "too few nodes are up and not drained (%d of %d)", ready.Count(), total.Count())
		}
	}
	return &Error{Class: ErrBusy, Reason: "resources are in use by running jobs"} // no formatting: a blocked job fails so on every pass
}

// cpusWithin is a cheap bound before a selector's search: whether the
// nodes of set, at most n.Max of them, hold n.CPUs CPUs at all (no job
// takes more of a node than it has).
func (c *Cluster) cpusWithin(job *Job, set *bitset.BitSet, n Counts) bool {
	if n.CPUs <= 0 {
		return true
	}
	if within, ok := c.cpusWithinAlike(job, set, n); ok { // within_alike.go
		return within
	}
	total, count := 0, 0
	for i, ok := set.NextSet(0); ok; i, ok = set.NextSet(i + 1) {
		total += c.idleUnits(job, int(i), c.effective(int(i)).CPUs) // partcap.go, tasklayout.go
		count++
	}
	if n.Max <= 0 || n.Max >= count || total < n.CPUs {
		return total >= n.CPUs
	}
	// only a node limit needs the largest nodes: list them then
	cpus := make([]int, 0, count)
	for i, ok := set.NextSet(0); ok; i, ok = set.NextSet(i + 1) {
		cpus = append(cpus, c.idleUnits(job, int(i), c.effective(int(i)).CPUs))
	}
	slices.SortFunc(cpus, func(a, b int) int { return b - a })
	total = 0
	for _, e := range cpus[:n.Max] {
		total += e
	}
	return total >= n.CPUs
}
