package selectnodes

import (
	"github.com/bits-and-blooms/bitset"
)

// This file is _get_req_features in Slurm's node_scheduler.c, called by
// select_nodes (selectnodes.go) after _build_node_list (buildnodes.go); it
// calls _pick_best_nodes (pickbest.go). Its two count solvers sit side by
// side: Slurm's greedy accumulation (greedyCounts) and the exact one
// (exactCounts, whose problem is in counts.go and countsolve.go).

// ReqFeatures is _get_req_features: it satisfies the counted terms of the
// constraint (A*2&B*3, [a*1&b*2]) and hands the accumulated nodes to
// PickBestNodes as required nodes. By default it solves the counts exactly
// (it never rejects a request that some choice of nodes satisfies, and
// prefers low weights); with SlurmCompat it accumulates greedily in
// expression and weight order, as Slurm does (the Novotný thesis §3.3).
func (c *Cluster) ReqFeatures(job *Job, sets []NodeSet, n Counts, mode Mode) (*Placement, error) {
	c.mustBeMade("ReqFeatures")
	if err := unresolved("ReqFeatures", job); err != nil {
		return nil, err
	}
	return (&call{c: c, job: job, sets: sets, n: n, v: c.stageView(mode), mode: mode}).reqFeatures(job, n)
}

// countTerm is one counted term of the constraint: n nodes matching it.
type countTerm struct {
	name  string
	n     int
	match func([]string) bool
}

func (cx *call) reqFeatures(job *Job, n Counts) (*Placement, error) {
	var counts []countTerm
	if job.Req.Features != nil {
		for _, ct := range job.Req.Features.Counts() {
			counts = append(counts, countTerm{name: ct.String(), n: ct.N, match: ct.Term.Match})
		}
	}
	if len(counts) == 0 {
		return cx.pickBest(job, cx.sets, n)
	}
	acc, err := cx.countedNodes(job, n, counts)
	if err != nil {
		return nil, err
	}
	// the final pick requires the counted terms' nodes; job itself is
	// not changed
	final := *job
	final.Required = acc.Clone()
	if job.Required != nil {
		final.Required.InPlaceUnion(job.Required)
	}
	fn := n
	fn.Min = max(n.Min, int(final.Required.Count()))
	fn.Desired = max(n.Desired, fn.Min)
	if fn.Max > 0 && fn.Min > fn.Max {
		return nil, newError(ErrNodeConfig, "the counted terms need %d nodes, above the maximum of %d", fn.Min, fn.Max)
	}
	if cx.ex != nil {
		cx.step("counted terms take %s; final pick with %s", nodeList{cx.c, acc}, fn)
	}
	return cx.pickBest(&final, cx.sets, fn)
}

// countedNodes solves the counted terms once per call: a run that only
// explains an earlier one reuses its outcome.
func (cx *call) countedNodes(job *Job, n Counts, counts []countTerm) (*bitset.BitSet, error) {
	if cx.reuse && cx.memo.done {
		return cx.memo.acc, cx.memo.err
	}
	var acc *bitset.BitSet
	var err error
	if cx.c.compat {
		acc, err = cx.greedyCounts(job, n, counts)
	} else {
		acc, err = cx.exactCounts(job, n, counts)
	}
	cx.memo = countsMemo{done: true, acc: acc, err: err}
	return acc, err
}

// greedyCounts is Slurm's accumulation: each term in order picks its
// count from the sets all of whose nodes satisfy it, lowest weight first.
// Unbracketed terms (A*1&B*2) require earlier picks of later terms, so the
// answer depends on the order of the NodeName lines; bracketed ones
// ([A*1&B*1]) each pick from their own nodes and the picks are united
// (../shared/slurm2205 vectors 1-3, 23, 47-49).
func (cx *call) greedyCounts(job *Job, n Counts, counts []countTerm) (*bitset.BitSet, error) {
	quiet := *cx // the per-term picks are not explained step by step
	quiet.ex, quiet.v.ex = nil, nil
	acc := bitset.New(uint(len(cx.c.nodes)))
	chained := !job.Req.Features.CountsBracketed()
	for _, ct := range counts {
		var tmp []NodeSet
		for _, s := range cx.sets {
			if ct.match(s.Features) {
				tmp = append(tmp, s)
			}
		}
		term := *job
		term.Required = nil
		if chained && acc.Any() {
			term.Required = acc
		} else if acc.Any() {
			// a bracketed term's nodes are its own: [sky*1&edge*2] on
			// nodes with both features takes ek07 for sky, then ek[10-11]
			// for edge, not ek07 again (blind10/recorded.tsv:134)
			term.availNodes = job.availNodes.Difference(acc)
		}
		p, err := quiet.pickBest(&term, tmp, Counts{Min: ct.n, Desired: ct.n, Max: n.Max})
		if err != nil && term.Required != nil && job.Required == nil {
			err = chainedTermError(cx.c, counts, ct, acc, err)
		}
		if err != nil && !chained && acc.Any() {
			err = bracketedTermError(cx.c, ct, acc, err) // compat_counts.go
		}
		if err != nil {
			cx.step("count %s (SlurmCompat greedy, %d sets): %v", ct.name, len(tmp), err)
			return nil, err
		}
		for i := range p.All() {
			acc.Set(uint(i))
		}
		cx.step("count %s (SlurmCompat greedy): %s", ct.name, placementList{p})
	}
	return acc, nil
}

// exactCounts chooses nodes for the counted terms by solving the covering
// problem over node kinds exactly, so a satisfiable request is never
// rejected (the defect of the Novotný thesis §3.3), and cheaply by weight.
func (cx *call) exactCounts(job *Job, n Counts, counts []countTerm) (*bitset.BitSet, error) {
	c := cx.c
	if len(counts) > MaxCountTerms {
		return nil, newError(ErrInvalidRequest, "%d counted terms, at most %d are supported", len(counts), MaxCountTerms)
	}
	sig, candAll := c.signatures(cx.sets, counts)
	usable := bitset.New(uint(len(c.nodes)))
	c.usable(job, candAll, cx.v, cx.mode, usable)
	pr := c.countProblem(job, cx.sets, sig, counts, usable, n, cx.v)
	if !pr.solve() {
		if cx.quick {
			return nil, newError(ErrBusy, "the counted terms do not fit")
		}
		return nil, c.classifyCounts(job, cx.sets, sig, counts, candAll, n)
	}
	acc := c.coverNodes(job, cx.sets, sig, pr, usable, cx.v)
	if cx.ex != nil {
		cx.step("counted terms solved exactly: %s", nodeList{c, acc})
	}
	switch {
	case len(counts) > 1 && !job.Req.Features.CountsBracketed():
		cx.defaultDiffers("Slurm satisfies %s term by term, keeping each term's nodes for the next, and may refuse or choose otherwise", termNames(counts))
	case len(counts) > 1:
		cx.defaultDiffers("[%s] solved as a whole, a node counting for every term it has; Slurm picks each term's nodes in turn and may take more nodes or others", termNames(counts))
	}
	return acc, nil
}

func termNames(counts []countTerm) string {
	s := ""
	for k, ct := range counts {
		if k > 0 {
			s += "&"
		}
		s += ct.name
	}
	return s
}
