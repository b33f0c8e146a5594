package topology

import (
	"cmp"
	"errors"
	"fmt"
	"math/bits"
	"slices"

	"github.com/bits-and-blooms/bitset"
)

// ErrNoFit: no switch's available nodes can satisfy the request.
var ErrNoFit = errors.New("topology: no switch can satisfy the request")

// ErrNoSingleTree: the available nodes could satisfy the request only by
// spanning several root trees, which AllowSpanningTrees permits.
var ErrNoSingleTree = errors.New("topology: only several trees together could satisfy the request")

// Request is what Fit places.
type Request struct {
	Nodes int // node count; less than 1 counts as 1
	// CPUs is the total CPU count to reach; 0 (or less) for none. CPUsOf
	// gives each node's contribution (nil means 1 per node).
	CPUs   int
	CPUsOf func(node int) int
	// Required nodes must be in the result (nil for none).
	Required *bitset.BitSet
	// Weight orders nodes within a leaf and breaks ties (nil means 0).
	Weight func(node int) int64
}

func (r *Request) cpus(i int) int {
	if r.CPUsOf == nil {
		return 1
	}
	return r.CPUsOf(i)
}

func (r *Request) weight(i int) int64 {
	if r.Weight == nil {
		return 0
	}
	return r.Weight(i)
}

// Scratch is Fit's working memory, kept between calls of FitWith so a
// caller placing many jobs (a planner probing every slot of a profile)
// does not allocate per call. The zero value is ready. A Scratch is not
// safe for concurrent use.
type Scratch struct {
	count, cpus []int   // per switch
	slab, room  []int   // fill: every leaf's free nodes, each leaf's CPUs
	free        [][]int // fill: per leaf, its slice of slab
	chosen      []int
	weights     []int64 // cost
}

// grow returns b resized to n, reusing its array when it is big enough.
func grow[T any](b []T, n int) []T {
	if cap(b) < n {
		return make([]T, n)
	}
	return b[:n]
}

// Fit chooses nodes from avail for req: the lowest-level switch whose
// available nodes satisfy it (the best fit among equals), then best-fit
// over its leaves (see the package doc). It returns the chosen nodes in
// ascending order. avail must have a bit for every node of the universe
// (a nil or shorter one is an error); bits beyond it are ignored.
func (t *Tree) Fit(avail *bitset.BitSet, req Request) ([]int, error) {
	return t.FitWith(new(Scratch), avail, req)
}

// FitWith is Fit working in sc's buffers: the same choice, and the
// returned slice is sc's memory, valid until the next call with sc.
func (t *Tree) FitWith(sc *Scratch, avail *bitset.BitSet, req Request) ([]int, error) {
	if req.Nodes < 1 {
		req.Nodes = 1
	}
	if avail == nil {
		return nil, fmt.Errorf("topology: avail is nil; pass a bitmap of %d nodes", len(t.nodeNames))
	}
	if avail.Len() < uint(len(t.nodeNames)) {
		return nil, fmt.Errorf("topology: avail has %d bits for %d nodes", avail.Len(), len(t.nodeNames))
	}
	aw := avail.Words()
	if req.Required != nil && req.Required.DifferenceCardinality(avail) > 0 {
		return nil, ErrNoFit // a required node is not available
	}
	holds := t.holder(req.Required)
	// Count level by level, leaves first, and stop at the first level
	// holding a switch that suffices: lower levels win.
	count := grow(sc.count, len(t.Switches))
	clear(count)
	sc.count = count
	var cpus []int
	if req.CPUs > 0 {
		cpus = grow(sc.cpus, len(t.Switches))
		clear(cpus)
		sc.cpus = cpus
	}
	best := -1
	var bestCost int64
	for _, level := range t.byLevel {
		for _, s := range level {
			sw := &t.Switches[s]
			if len(sw.Children) == 0 {
				count[s] = t.availIn(s, aw)
				if cpus != nil {
					for _, n := range sw.nodes {
						if avail.Test(uint(n)) {
							cpus[s] += req.cpus(n)
						}
					}
				}
			} else {
				for _, c := range sw.Children {
					count[s] += count[c]
					if cpus != nil {
						cpus[s] += cpus[c]
					}
				}
			}
			if count[s] < req.Nodes || (cpus != nil && cpus[s] < req.CPUs) || !holds(s) {
				continue
			}
			switch {
			case best < 0 || count[s] < count[best]:
				best, bestCost = s, -1
			case req.Weight != nil && count[s] == count[best]:
				// equal fits: the cheaper nodes win, then the lower index
				if bestCost < 0 {
					bestCost = t.cost(sc, best, avail, &req)
				}
				if c := t.cost(sc, s, avail, &req); c < bestCost {
					best, bestCost = s, c
				}
			}
		}
		if best >= 0 {
			break
		}
	}
	if best < 0 {
		if t.span && len(t.Roots) > 1 {
			return t.fill(sc, t.allLeaves(), avail, req)
		}
		total, totalCPU := 0, 0
		for _, r := range t.Roots {
			total += count[r]
			if cpus != nil {
				totalCPU += cpus[r]
			}
		}
		if len(t.Roots) > 1 && total >= req.Nodes && totalCPU >= req.CPUs {
			return nil, ErrNoSingleTree
		}
		return nil, ErrNoFit
	}
	return t.fill(sc, t.Switches[best].Leaves, avail, req)
}

// cost is the weight of the req.Nodes cheapest available nodes below s.
func (t *Tree) cost(sc *Scratch, s int, avail *bitset.BitSet, req *Request) int64 {
	ws := sc.weights[:0]
	for _, l := range t.Switches[s].Leaves {
		for _, n := range t.Switches[l].nodes {
			if avail.Test(uint(n)) {
				ws = append(ws, req.weight(n))
			}
		}
	}
	slices.Sort(ws)
	var c int64
	for _, w := range ws[:min(req.Nodes, len(ws))] {
		c += w
	}
	sc.weights = ws[:0]
	return c
}

// holder returns a test of whether every required node is below switch s:
// s must be at or above the lowest switch common to all of them.
func (t *Tree) holder(required *bitset.BitSet) func(s int) bool {
	if required == nil || required.None() {
		return func(int) bool { return true }
	}
	lcs, ok := t.LowestCommonSwitch(required)
	if !ok {
		return func(int) bool { return false }
	}
	return func(s int) bool { return t.below(lcs, s) }
}

func (t *Tree) allLeaves() []int {
	var out []int
	for _, r := range t.Roots {
		out = append(out, t.Switches[r].Leaves...)
	}
	return out
}

// fill takes required nodes, then best-fits leaves: the leaf that alone
// covers what is still needed with the fewest spare nodes, else the leaf
// with the most available nodes, until the request is met.
func (t *Tree) fill(sc *Scratch, leaves []int, avail *bitset.BitSet, req Request) ([]int, error) {
	chosen := sc.chosen[:0]
	needNodes, needCPU := req.Nodes, req.CPUs
	var rw []uint64
	if req.Required != nil {
		rw = req.Required.Words()
		for i, ok := req.Required.NextSet(0); ok; i, ok = req.Required.NextSet(i + 1) {
			chosen = append(chosen, int(i))
			needNodes--
			needCPU -= req.cpus(int(i))
		}
	}
	free, room := t.freeLists(sc, leaves, avail.Words(), rw, &req)
	for needNodes > 0 || needCPU > 0 {
		pick, pickTake, spare := -1, 0, 0
		for f, ns := range free {
			if needCPU > 0 && room[f] < needCPU {
				continue // enough would walk the whole leaf to fail
			}
			k, ok := enough(ns, needNodes, needCPU, &req)
			if !ok {
				continue
			}
			if s := len(ns) - k; pick < 0 || s < spare || (s == spare && cheaper(ns, free[pick], &req)) {
				pick, pickTake, spare = f, k, s
			}
		}
		if pick < 0 {
			// no leaf suffices alone: take the fullest one whole
			for f, ns := range free {
				if len(ns) == 0 {
					continue
				}
				if pick < 0 || len(ns) > len(free[pick]) || (len(ns) == len(free[pick]) && cheaper(ns, free[pick], &req)) {
					pick = f
				}
			}
			if pick < 0 {
				sc.chosen = chosen[:0]
				return nil, ErrNoFit
			}
			pickTake = len(free[pick])
		}
		for _, n := range free[pick][:pickTake] {
			chosen = append(chosen, n)
			needNodes--
			needCPU -= req.cpus(n)
		}
		room[pick] -= positiveCPUs(free[pick][:pickTake], &req)
		free[pick] = free[pick][pickTake:]
	}
	slices.Sort(chosen)
	sc.chosen = chosen
	return chosen, nil
}

// freeLists lists each leaf's available nodes not yet taken (not in rw),
// cheapest first, all in one backing array (counted first, kept in sc),
// and per list the sum of its nodes' positive CPUs: an O(1) bound for
// enough.
func (t *Tree) freeLists(sc *Scratch, leaves []int, aw, rw []uint64, req *Request) (free [][]int, room []int) {
	slab := grow(sc.slab, t.freeIn(leaves, aw, rw))[:0]
	free, room = sc.free[:0], sc.room[:0]
	byWeight := func(a, b int) int { return cmp.Compare(req.weight(a), req.weight(b)) }
	for _, l := range leaves {
		sw := &t.Switches[l]
		ns := slab[len(slab):len(slab):cap(slab)]
		for k, w := range sw.bits {
			ix := sw.wordIx[k]
			x := w & aw[ix]
			if ix < len(rw) {
				x &^= rw[ix]
			}
			for ; x != 0; x &= x - 1 {
				ns = append(ns, ix*64+bits.TrailingZeros64(x))
			}
		}
		slab = slab[:len(slab)+len(ns)]
		if len(ns) == 0 {
			continue
		}
		ns = ns[:len(ns):len(ns)]
		if req.Weight != nil && !slices.IsSortedFunc(ns, byWeight) { // sorted already when weights are equal
			slices.SortStableFunc(ns, byWeight)
		}
		free = append(free, ns)
		room = append(room, positiveCPUs(ns, req))
	}
	sc.slab, sc.free, sc.room = slab, free, room
	return free, room
}

// freeIn counts the nodes of leaves set in aw and not in rw.
func (t *Tree) freeIn(leaves []int, aw, rw []uint64) int {
	n := 0
	for _, l := range leaves {
		sw := &t.Switches[l]
		for k, w := range sw.bits {
			ix := sw.wordIx[k]
			x := w & aw[ix]
			if ix < len(rw) {
				x &^= rw[ix]
			}
			n += bits.OnesCount64(x)
		}
	}
	return n
}

// positiveCPUs sums the CPUs of ns, counting none for a node giving
// fewer than none, so no prefix of ns gives more.
func positiveCPUs(ns []int, req *Request) int {
	sum := 0
	for _, n := range ns {
		sum += max(req.cpus(n), 0)
	}
	return sum
}

// enough: how many of ns (in order) meet the need, or false.
func enough(ns []int, needNodes, needCPU int, req *Request) (int, bool) {
	if needCPU <= 0 {
		return max(needNodes, 0), len(ns) >= needNodes && needNodes > 0
	}
	for k, n := range ns {
		needNodes--
		needCPU -= req.cpus(n)
		if needNodes <= 0 && needCPU <= 0 {
			return k + 1, true
		}
	}
	return 0, false
}

// cheaper breaks ties between leaves: the lower weight of their first free
// node, then the lower node index.
func cheaper(a, b []int, req *Request) bool {
	if len(b) == 0 {
		return true
	}
	if len(a) == 0 {
		return false
	}
	if wa, wb := req.weight(a[0]), req.weight(b[0]); wa != wb {
		return wa < wb
	}
	return a[0] < b[0]
}
