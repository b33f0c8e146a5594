package selectnodes

import "github.com/bits-and-blooms/bitset"

// Slurm 22.05.8's cons_tres around required nodes (-w) without a tree, as
// recorded on a real controller (testdata/slurm2205-own/probe5, blind8,
// ct_core.conf, validation, hold-out); SlurmCompat only. No Slurm code was
// used.
//
// The nodes (every weight at once: compatConsRes) are cut into runs of
// consecutive available nodes of one weight. A run is the required node's
// when it holds one, except a required node that starts its run at a
// change of weight (the node before it is free and weighs otherwise):
// that one belongs to no run. The runs are then scanned in node order,
// the one held replaced by a run that is the required node's when the
// held one is not, or that weighs less, or, of the same weight, by the
// usual fit: it suffices and the held one does not, both suffice and it
// has fewer free CPUs, neither does and it has more. The run found is
// filled (the required node's from that node up, then down; another from
// its start), and the scan starts again while nodes are wanted.
//
// So with zc[01-05] of weight 1 and zc[06-10] of weight 10, -N2 -w zc07
// takes zc08 (the required node's run is found after zc[01-05] and
// replaces it), -N2 -w zc06 takes zc01 (zc06 starts its run at the change
// of weight) and -N6 -w zc07 takes zc[06-10] then zc01; with zc[11-14] of
// weight 1 after them, -w zc07 takes zc11, a lighter run found later
// (probe5/recorded.tsv:1-23, 51-60). -w u03 of weight 3 takes u06 of the
// lighter run after it (blind3 124); -w g02 -N3 takes h[01-02], the
// lighter run after g02's (validation 23).

// requiredRuns is avail's runs (required nodes included) of one weight,
// each with the index in nodes of its required node (firstReq, -1 when
// the run is not a required node's). Required nodes with no free node of
// their weight beside them join the run after them: with qd18 busy, -N4
// -w qd19 of weight 1 takes qd[20-22] of weight 3 after it
// (blind16/recorded.tsv:88), while -N2 -w rk18, last of the weight-1
// nodes, takes rk17 below it (blind14 119).
func requiredRuns(c *Cluster, avail, required *bitset.BitSet) []tierNodesRun {
	var runs []tierNodesRun
	for _, r := range runsOf(avail, 0, len(c.nodes)) {
		joinNext := -1 // start of a run of required nodes only, joining the next
		for start := r.start; start < r.end; {
			end := start + 1
			for end < r.end && c.nodes[end].Weight == c.nodes[start].Weight {
				end++
			}
			from := start
			if joinNext >= 0 {
				from, joinNext = joinNext, -1
			}
			tr := requiredRun(c, required, from, end, from > r.start)
			if tr.free == 0 && end < r.end {
				joinNext = from
			} else {
				runs = append(runs, tr)
			}
			start = end
		}
	}
	return runs
}

// requiredRun is the run [start, end); a required node starting it at a
// change of weight (afterWeight: the node before it is in the same
// availability run) belongs to no run.
func requiredRun(c *Cluster, required *bitset.BitSet, start, end int, afterWeight bool) tierNodesRun {
	tr := tierNodesRun{firstReq: -1, weight: c.nodes[end-1].Weight}
	for i := start; i < end; i++ {
		tr.nodes = append(tr.nodes, i)
		switch {
		case !required.Test(uint(i)):
			tr.free++
		case tr.firstReq < 0 && !(i == start && afterWeight):
			tr.firstReq = i - start
		}
	}
	return tr
}

// fillRequired fills a job with required nodes as described above.
func (t *consResTake) fillRequired(c *Cluster, avail, required *bitset.BitSet) {
	runs := requiredRuns(c, avail, required)
	for !t.done() {
		k := t.scanRequiredRuns(c, runs)
		if k < 0 {
			return
		}
		t.takeRun(runs[k])
		runs[k].free = 0
	}
}

// scanRequiredRuns is the run the scan settles on, -1 when no run has free
// nodes.
func (t *consResTake) scanRequiredRuns(c *Cluster, runs []tierNodesRun) int {
	best, bestCPUs, bestFits := -1, 0, false
	var bestWeight int64
	for k, r := range runs {
		if r.free == 0 {
			continue
		}
		nodes, cpus := t.size(r)
		if nodes == 0 {
			continue
		}
		fits := nodes >= t.remNodes-t.slack && cpus >= t.remCPUs
		w := r.weight
		replace := best < 0 || (r.firstReq >= 0 && runs[best].firstReq < 0) || w < bestWeight ||
			(w == bestWeight && ((fits && !bestFits) || (fits && cpus < bestCPUs) || (!fits && cpus > bestCPUs)))
		if replace {
			best, bestCPUs, bestFits, bestWeight = k, cpus, fits, w
		}
	}
	return best
}
