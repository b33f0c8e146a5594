package selectnodes

import (
	"fmt"
	"slices"

	"github.com/bits-and-blooms/bitset"
	"github.com/hpcsched/hpcsched/hostlist"
)

// call is the state of one selection as it goes down the pipeline: the
// resolved job, its node sets and counts, the load its stages see, the
// mode, and where explanation metrics go (Nomad's ctx.Metrics idea). Every
// stage reports through it; when nothing is being explained the
// recording methods return at once and nothing is formatted.
type call struct {
	c     *Cluster
	job   *Job
	sets  []NodeSet
	n     Counts
	v     View
	mode  Mode
	ex    *Explanation // nil unless explaining
	quick bool         // Probe: a failure is ErrBusy, without classification
	// nodesOnly: ProbeNodes, a placement without its Alloc
	nodesOnly bool
	// into: ProbeInto, the chosen nodes written here and no Placement
	// built (jobTest returns probed, empty)
	into   *bitset.BitSet
	probed Placement
	// decideOnly: only whether the job fits matters (WillRun's search),
	// so a successful selection returns an empty Placement, unbuilt
	decideOnly bool
	// boundOnly: WillRun's first search, which asks only whether enough
	// nodes are free for the selector to be asked (a necessary condition,
	// decided from counts without a selection)
	boundOnly bool
	// memo keeps the counted-terms outcome of the first run of a request
	// for the run that explains it (reuse set), so the terms are solved
	// once per call.
	memo  countsMemo
	reuse bool
}

type countsMemo struct {
	done bool
	acc  *bitset.BitSet
	err  error
}

// at is the call seeing another load (WillRun's releases, or none).
func (cx *call) at(v View, mode Mode) *call {
	d := *cx
	d.v, d.mode, d.memo, d.reuse = v, mode, countsMemo{}, false
	d.v.ex, d.v.sc = cx.ex, cx.v.sc
	return &d
}

// step records a decision; args are formatted only when explaining, so
// pass values or Stringers (nodeList, placementList) rather than
// preformatted strings.
func (cx *call) step(format string, args ...any) { cx.ex.step(format, args...) }

func (e *Explanation) step(format string, args ...any) {
	if e != nil {
		e.Steps = append(e.Steps, fmt.Sprintf(format, args...))
	}
}

func (e *Explanation) setPartition(name string) {
	if e != nil {
		e.Partition = name
	}
}

func (e *Explanation) setCounts(n Counts) {
	if e != nil {
		e.Counts = n
	}
}

// setReport opens the report of one node set (nil when not explaining).
func (cx *call) setReport(rec *record, r, inPart int) *SetReport {
	if cx.ex == nil {
		return nil
	}
	if cx.ex.Sets == nil { // a report per record at most: sized once, not regrown
		cx.ex.Sets = make([]SetReport, 0, len(cx.c.records))
	}
	cx.ex.Sets = append(cx.ex.Sets, SetReport{Nodes: cx.c.hostlistOf(rec.nodes), Weight: rec.weight,
		Features: slices.Clone(rec.features), Total: len(rec.nodes), record: r}) // the caller's, not the record's
	rep := &cx.ex.Sets[len(cx.ex.Sets)-1]
	rep.removed("partition", len(rec.nodes)-inPart, nil)
	return rep
}

// removed records that filter removed n nodes of the set, and why.
func (r *SetReport) removed(filter string, n int, why fmt.Stringer) {
	if r != nil && n > 0 {
		rm := Removal{Filter: filter, Count: n}
		if why != nil {
			rm.Why = why.String()
		}
		r.Removed = append(r.Removed, rm)
	}
}

// candidates closes a set's report: its candidates, and how many of them
// are up and not drained.
func (cx *call) candidates(rep *SetReport, rec *record, cand *bitset.BitSet, left int) {
	if rep != nil {
		rep.Candidates = left
		rep.Available = countSpanAnd(cx.job.availNodes, cand, rec) // no bitmap per set
	}
}

// usableCounts fills in how many candidates of each set the current load
// leaves usable.
func (cx *call) usableCounts() {
	if cx.ex == nil || cx.mode == TestOnly || len(cx.sets) == 0 {
		return
	}
	usable := bitset.New(uint(len(cx.c.nodes)))
	cx.c.usable(cx.job, cx.sets[0].cand, cx.v, RunNow, usable)
	// one pass over each list: a configuration with a record per node has
	// as many sets as nodes
	setOf := make(map[int]*record, len(cx.sets))
	for _, s := range cx.sets {
		setOf[s.Record] = s.rec
	}
	for k := range cx.ex.Sets {
		if rec, ok := setOf[cx.ex.Sets[k].record]; ok {
			cx.ex.Sets[k].Usable = countSpan(usable, rec)
		}
	}
}

// nodeList prints a node set as a hostlist, when formatted.
type nodeList struct {
	c *Cluster
	b *bitset.BitSet
}

func (l nodeList) String() string { return hostlist.Compress(l.c.Names(l.b)) }

// placementList prints a placement's nodes as a hostlist, when formatted.
type placementList struct{ p *Placement }

func (l placementList) String() string { return l.p.Hostlist() }
