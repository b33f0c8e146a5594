package selectnodes

import "github.com/bits-and-blooms/bitset"

// A ConsRes walk: on a cluster of one node configuration under the
// package's own ConsRes, a RunNow or TestOnly selection of a request with
// no node features, named nodes, contiguity, switches or GRES goes
// through the pipeline's stages trivially. There is one node set (the
// partition's nodes, when the record meets the job's per-node
// constraints), one alternative and one weight, so accumulate calls the
// selector once, with the usable nodes, and the selector calls its
// picker once. The walk makes those calls itself, in the same order and
// on the same bitmaps' contents, without building the node sets, the
// call, the accumulation's span bookkeeping or the selector's closures,
// and finds a pick that one run of nodes holds itself (consResRun). A
// replay of a trace of many small jobs sharing 72-CPU nodes spent 106 M
// instructions in its 20,000 selections through the pipeline, 65 M as
// walks (BENCHMARKS.md, "A ConsRes walk for shared nodes"). Its answers
// are the pipeline's by construction (the same filter, shares and
// Placement code, the picker's rule where it is not the picker's code);
// a property test compares them.

// consResWalkable reports whether the cluster's selections can be ConsRes
// walks: the package's own ConsRes in the default mode without a switch
// tree, one node configuration (one node set, one weight), no GRES and no
// reported node sizes (the configured ones are every node's).
func (c *Cluster) consResWalkable() bool {
	if c.compat || c.topo != nil || len(c.records) != 1 || len(c.gres.keys) != 0 ||
		(c.fastSchedule == 0 && c.reported != nil) {
		return false
	}
	_, ok := c.selector.(ConsRes)
	return ok
}

// consResShape reports whether a request reaches the selector as it is:
// no counted terms or alternatives (no features at all), no required or
// excluded nodes, no contiguity or switch count, no GRES, not held.
func consResShape(job *Job) bool {
	req := job.Req
	return req.Features == nil && job.Required == nil && job.Excluded == nil && !req.Contiguous &&
		req.MaxSwitches == 0 && len(job.gres) == 0 && len(req.GRES) == 0 && !req.Held
}

// consResWalk is the selection of a resolved job in mode RunNow or
// TestOnly on a consResWalkable cluster. ok is false when the job is not
// a walk's (the caller runs the pipeline); else p and err are the
// pipeline's answer: a Placement (nodesOnly as ProbeNodes; nil when into,
// ProbeInto's destination, is given and filled), or the pipeline's error
// (ErrBusy alone for a quick probe, as plainFailure answers).
func (c *Cluster) consResWalk(job *Job, sc *scratch, mode Mode, opts callOptions) (p *Placement, ok bool, err error) {
	if !consResShape(job) || c.checkPartition(job) != nil {
		return nil, false, nil
	}
	part := &c.parts[job.partIndex]
	if part.inRec[0] == 0 {
		return nil, false, nil // no node set: buildNodeSets' own error
	}
	if _, fits := c.baselineFits(job, &c.records[0]); !fits {
		return nil, false, nil
	}
	n, cerr := c.nodeCounts(job)
	if cerr != nil {
		return nil, false, nil
	}
	// accumulate over the one node set: its usable nodes are the
	// partition's available ones, filtered by the load except for TestOnly
	v := c.live()
	v.sc = sc
	avail := sc.bitmap(bmPlain, uint(len(c.nodes)))
	andInto(avail, part.nodes, job.availNodes)
	if mode == TestOnly {
		v = c.none()
		v.sc = sc
	} else {
		filterAll(ConsRes{}, v, job, avail, avail)
	}
	// accumulate asks the selector once when the set holds the minimum;
	// with fewer, no pick can meet it (meets wants max(n.Min, 1) nodes)
	if count := int(avail.Count()); count >= max(n.Min, 1) {
		if p, done, err := c.consResPick(v, job, avail, n, count, opts); done {
			return p, true, err
		}
	}
	if opts.quick {
		return nil, true, ErrBusy
	}
	return nil, true, c.classifyIn(sc, job, part.nodes, n)
}

// consResPick is ConsRes.JobTest with one weight and no tree (byWeight
// tries avail once, treeFit leaves it to the picker) followed by
// accumulate's jobTest: the Placement or ProbeInto's nodes. done is false
// when the picker found no nodes. count is avail's nodes.
func (c *Cluster) consResPick(v View, job *Job, avail *bitset.BitSet, n Counts, count int, opts callOptions) (*Placement, bool, error) {
	s := ConsRes{}
	chosen, ok := consResRun(v, job, avail, n, count)
	if !ok {
		chosen, ok = newPicker(v, avail, s.cpuTable(v, job), nil).pick(avail, nil, n, false)
	}
	if !ok {
		return nil, false, nil
	}
	ch := s.choice(v, job, chosen, n)
	if opts.into != nil {
		if err := v.choiceInto(ch, avail, opts.into); err != nil {
			opts.into.ClearAll()
			return nil, true, err
		}
		return nil, true, nil
	}
	p, err := v.placement(job, ch, avail, opts.nodesOnly)
	if err != nil {
		return nil, true, err
	}
	return p, true, nil
}

// consResRun is the picker's answer (picker.pick without required or
// preferred nodes, fillFrom and take) when one run of avail holds the job,
// for a job whose free CPUs on a node are cpusLeft: the run that holds it
// leaving the fewest nodes unused (the earliest among equals), its first
// nodes up to the wanted count and the CPUs. Such a pick always meets the
// counts, so the picker returns it. ok is false when no run holds the job
// or the free CPUs are not cpusLeft; the caller then asks the picker,
// whose runs largest first and largest-first fallback take more than one
// run. The nodes live in the scratch until the next call; reading the
// free CPUs directly and keeping the nodes there spare the picker's
// function calls and its new slice per pick.
func consResRun(v View, job *Job, avail *bitset.BitSet, n Counts, count int) ([]int, bool) {
	if !freeIsCPUsLeft(v, job) {
		return nil, false
	}
	room := limit(n, count)
	needNodes, needCPU := want(n, 0), n.CPUs
	best, bestT := run{}, 0
	eachRun(avail.Words(), 0, len(v.c.nodes), func(start, end int) bool {
		r := run{start, end}
		t, fits := max(needNodes, 0), r.len() >= needNodes
		if needCPU > 0 { // picker.take, counting cpusLeft
			t, fits = 0, false
			for i, need := start, needCPU; i < end; i++ {
				t++
				if need -= cpusLeft(v, job, i); t >= needNodes && need <= 0 {
					fits = true
					break
				}
			}
		}
		if fits && t <= room && t > 0 && (bestT == 0 || r.len()-t < best.len()-bestT) {
			best, bestT = r, t
			return r.len() != t // none fits better than exactly
		}
		return true
	})
	if bestT == 0 {
		return nil, false
	}
	sel := v.sc.plainSel[:0]
	for i := best.start; i < best.start+bestT; i++ {
		sel = append(sel, i)
	}
	v.sc.plainSel = sel
	return sel, true
}
