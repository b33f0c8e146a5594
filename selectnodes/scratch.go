package selectnodes

import (
	"time"

	"github.com/bits-and-blooms/bitset"
	"github.com/hpcsched/hpcsched/topology"
)

// scratch is the working memory of one selection, kept on the cluster
// between calls: a planner probes thousands of trial placements per pass,
// and building each trial's node list, CPU shares and best-fit lists
// afresh made the garbage collector a fifth of a replay (BENCHMARKS.md,
// "Hot paths, second round"). Nothing in it outlives the call that uses
// it: the Placement handed back is always built in new memory.
type scratch struct {
	fit    topology.Scratch
	uses   []NodeUse
	sets   []NodeSet
	shares []int
	cpu    []int32 // ConsRes's free CPUs per node, for a topology's Fit
	// cpusLeft: ConsRes's free CPUs for a job whose room is CPUs alone
	// (consres_free.go)
	cpusLeft cpusLeftFunc
	runs     []run // the picker's runs of candidate nodes
	jobRec   Job   // the call's resolved job
	call     call  // the call itself (runWith)
	// room decides whether a quick probe asks noRoom first
	// (noroom_gate.go); it lives here, lent to one call at a time, so
	// that concurrent reads of a snapshot do not share it
	room roomGate
	// plainSel: a plain walk's chosen nodes
	plainSel []int
	lens     []int // the picker's runs per length
	// lighterOnly: pickBest is trying the lighter weights' node sets
	// before the heaviest (SlurmCompat's compatShareFit waits for all)
	lighterOnly bool
	// node bitmaps of the cluster's size, one per use (the bm constants):
	// a selection on 100,000 nodes made five of 12.5 KB each per call
	maps [bmCount]*bitset.BitSet
	// what accumulate wrote into maps[bmAvail]: its words and each
	// record's count, which byWeight reads instead of scanning the
	// records' spans
	availSpan written
	availRec  []int
	candSpan  written // what buildNodeSets wrote into maps[bmCand]
	load      usage   // WillRun's copy of the load
	// WillRun's running jobs by end, in groups (Cluster.endGroups)
	order    []JobID
	bounds   []int
	endTimes []time.Time
}

// The scratch bitmaps, one per use, so that no two live uses share one.
const (
	bmCand   = iota // buildNodeSets: the candidates of every node set
	bmTotal         // accumulate: an alternative's sets' nodes
	bmUsable        // accumulate: what the load leaves usable
	bmAvail         // accumulate: usable nodes of the sets so far
	bmTier          // byWeight: the weight tiers so far
	bmLower         // byWeight: the tiers before the last
	bmExcl          // resolve: the available nodes less the excluded ones
	bmPlain         // plainWalk: the candidates
	bmReady         // classify: the qualifying nodes up and not drained
	bmCount
)

// bitmap returns an empty node bitmap of n bits for use: the scratch's
// (cleared), or a new one without a scratch.
func (sc *scratch) bitmap(use int, n uint) *bitset.BitSet {
	b, fresh := sc.anyBitmap(use, n)
	if !fresh {
		b.ClearAll()
	}
	return b
}

// anyBitmap is bitmap for a caller that overwrites every word: a reused
// one keeps its old bits (fresh is false).
func (sc *scratch) anyBitmap(use int, n uint) (b *bitset.BitSet, fresh bool) {
	if sc == nil {
		return bitset.New(n), true
	}
	b = sc.maps[use]
	if b == nil || b.Len() != n {
		b = bitset.New(n)
		sc.maps[use] = b
		return b, true
	}
	return b, false
}

// job is the resolved job's record: the scratch's, or a new one.
func (sc *scratch) job() *Job {
	if sc == nil {
		return new(Job)
	}
	return &sc.jobRec
}

// difference returns a less b (both of one length) in the scratch's
// bitmap for use, or in a new one without a scratch.
func (sc *scratch) difference(use int, a, b *bitset.BitSet) *bitset.BitSet {
	if sc == nil {
		return a.Difference(b)
	}
	d, _ := sc.anyBitmap(use, a.Len()) // every word is written
	dw, aw, bw := d.Words(), a.Words(), b.Words()
	for k := range dw {
		dw[k] = aw[k] &^ bw[k]
	}
	return d
}

// written is the words [lo, hi) a use wrote into its scratch bitmap: all
// that needs clearing before the next use.
type written struct{ lo, hi int }

func (w *written) add(rec *record) { w.lo, w.hi = min(w.lo, rec.wlo), max(w.hi, rec.whi) }

// emptyBitmap returns the scratch's bitmap for use, empty, clearing only
// the words w says its previous use wrote (O(words touched), not
// O(cluster)); w starts over.
func (sc *scratch) emptyBitmap(use int, n uint, w *written) *bitset.BitSet {
	b, fresh := sc.anyBitmap(use, n)
	if !fresh && w.lo < w.hi {
		clear(b.Words()[w.lo:w.hi])
	}
	w.lo, w.hi = len(b.Words()), 0
	return b
}

// availBitmap returns the empty bitmap accumulate gathers usable nodes
// in, with every record's count at zero.
func (sc *scratch) availBitmap(n uint, records int) *bitset.BitSet {
	if sc == nil {
		return bitset.New(n)
	}
	b := sc.emptyBitmap(bmAvail, n, &sc.availSpan)
	sc.availRec = growTo(sc.availRec, records)
	clear(sc.availRec)
	return b
}

// candBitmap returns the empty bitmap buildNodeSets writes the candidates
// in: a request whose constraint keeps a few records costs their spans,
// not the cluster.
func (sc *scratch) candBitmap(n uint) *bitset.BitSet {
	if sc == nil {
		return bitset.New(n)
	}
	return sc.emptyBitmap(bmCand, n, &sc.candSpan)
}

// wroteCand records that buildNodeSets wrote rec's span of the candidates.
func (sc *scratch) wroteCand(rec *record) {
	if sc != nil {
		sc.candSpan.add(rec)
	}
}

// wroteAvail records that accumulate set count nodes of record r (whose
// span is rec's) in the avail bitmap.
func (sc *scratch) wroteAvail(r int, rec *record, count int) {
	if sc != nil {
		sc.availSpan.add(rec)
		sc.availRec[r] += count
	}
}

// intersects reports whether avail has a node of record r: from the
// counts when avail is the bitmap accumulate filled, else by a scan.
func (sc *scratch) intersects(avail *bitset.BitSet, r int, rec *record) bool {
	if sc != nil && avail == sc.maps[bmAvail] && r < len(sc.availRec) {
		return sc.availRec[r] > 0
	}
	return intersectsSpan(avail, rec)
}

// usageCopy copies u into the scratch's load (a clone without one),
// reusing its arrays: WillRun releases jobs from the copy.
func (sc *scratch) usageCopy(u *usage) *usage {
	if sc == nil {
		c := u.clone()
		return &c
	}
	d := &sc.load
	if d.idle == nil || d.idle.Len() != u.idle.Len() {
		d.idle, d.share = bitset.New(u.idle.Len()), bitset.New(u.share.Len())
	}
	u.idle.Copy(d.idle)
	u.share.Copy(d.share)
	d.cpus = append(d.cpus[:0], u.cpus...)
	d.mem = append(d.mem[:0], u.mem...)
	d.gres = append(d.gres[:0], u.gres...)
	d.jobs = append(d.jobs[:0], u.jobs...)
	d.excl = append(d.excl[:0], u.excl...)
	d.high = append(d.high[:0], u.high...)
	d.part = clonePartLoads(d.part, u.part)
	return d
}

// endLists lends WillRun its lists of jobs by end (nil without a
// scratch); keepEndLists takes them back, grown.
func (sc *scratch) endLists() ([]JobID, []int, []time.Time) {
	if sc == nil {
		return nil, nil, nil
	}
	return sc.order, sc.bounds, sc.endTimes
}

func (sc *scratch) keepEndLists(order []JobID, bounds []int, ends []time.Time) {
	if sc != nil {
		sc.order, sc.bounds, sc.endTimes = order[:0], bounds[:0], ends[:0]
	}
}

// takeScratch lends the cluster's scratch to one call; a concurrent call
// (two goroutines reading one Snapshot) finds none and makes its own, so
// calls never share it.
func (c *Cluster) takeScratch() *scratch {
	if sc := c.scratch.Swap(nil); sc != nil {
		return sc
	}
	return new(scratch)
}

// putScratch returns the scratch for the next call.
func (c *Cluster) putScratch(sc *scratch) { c.scratch.Store(sc) }

// nodeUses returns a NodeUse slice of length n: the scratch's when there
// is one (the view of a selection call), else a new one.
func (sc *scratch) nodeUses(n int) []NodeUse {
	if sc == nil {
		return make([]NodeUse, n)
	}
	sc.uses = growTo(sc.uses, n)
	return sc.uses
}

// nodeSets returns an empty NodeSet slice with room for n: the
// scratch's when there is one (the sets live as long as the call).
func (sc *scratch) nodeSets(n int) []NodeSet {
	if sc == nil {
		return make([]NodeSet, 0, n)
	}
	sc.sets = growTo(sc.sets, n)[:0]
	return sc.sets
}

// ints returns an int slice of length n, zeroed, from the scratch when
// there is one.
func (sc *scratch) ints(n int) []int {
	if sc == nil {
		return make([]int, n)
	}
	sc.shares = growTo(sc.shares, n)
	clear(sc.shares)
	return sc.shares
}

// cpuTable returns a per-node table of n entries, every one unknownCPUs.
func (sc *scratch) cpuTable(n int) []int32 {
	var t []int32
	if sc == nil {
		t = make([]int32, n)
	} else {
		sc.cpu = growTo(sc.cpu, n)
		t = sc.cpu
	}
	for i := range t {
		t[i] = unknownCPUs
	}
	return t
}

// fitScratch is the scratch for topology.Tree.FitWith (a new one without
// a call's scratch).
func (sc *scratch) fitScratch() *topology.Scratch {
	if sc == nil {
		return new(topology.Scratch)
	}
	return &sc.fit
}

// growTo returns b resized to n, reusing its array when it is big enough.
func growTo[T any](b []T, n int) []T {
	if cap(b) < n {
		return make([]T, n, n+n/4)
	}
	return b[:n]
}
