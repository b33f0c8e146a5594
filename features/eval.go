package features

import (
	"errors"
	"fmt"
	"maps"
	"slices"

	"github.com/bits-and-blooms/bitset"
	"github.com/hpcsched/hpcsched/position"
)

// Index maps each feature name to the set of nodes (indices 0..Len()-1)
// that have it. Build it once per cluster configuration; it is read-only
// afterwards and safe for concurrent readers. Freeze makes that
// read-only state enforced, for an index handed to others. A nil *Index
// reads as the index of no nodes (Len 0, no features), so an expression
// evaluated against it selects nothing rather than panicking.
type Index struct {
	n      uint
	sets   map[string]*bitset.BitSet
	frozen bool
}

// Freeze ends the building of the index: a later Add panics. An owner
// that shares its index (a selectnodes.Cluster does) freezes it so that
// no holder can change what the owner matches against.
func (ix *Index) Freeze() { ix.frozen = true }

// Frozen reports whether Freeze was called.
func (ix *Index) Frozen() bool { return ix != nil && ix.frozen }

// NewIndex returns an empty index over n nodes.
func NewIndex(n int) *Index {
	return &Index{n: uint(max(n, 0)), sets: map[string]*bitset.BitSet{}}
}

// IndexNodes builds an index from each node's feature list: node i has
// nodeFeatures[i].
func IndexNodes(nodeFeatures [][]string) *Index {
	ix := NewIndex(len(nodeFeatures))
	for i, fs := range nodeFeatures {
		ix.Add(i, fs...)
	}
	return ix
}

// Add records that node has the given features. It panics if node is
// outside 0..Len()-1 or the index is frozen, which are programming
// errors, not bad input.
func (ix *Index) Add(node int, features ...string) {
	if ix == nil {
		panic("features: Add to a nil Index (make one with NewIndex or IndexNodes)")
	}
	if ix.frozen {
		panic("features: Add to a frozen Index (it is shared read only, as a selectnodes.Cluster's is)")
	}
	if node < 0 || uint(node) >= ix.n {
		panic(fmt.Sprintf("features: node %d outside an index of %d nodes", node, ix.n))
	}
	for _, f := range features {
		s := ix.sets[f]
		if s == nil {
			s = bitset.New(ix.n)
			ix.sets[f] = s
		}
		s.Set(uint(node))
	}
}

// Len is the number of nodes the index covers.
func (ix *Index) Len() int { return int(ix.size()) }

// size is Len for the evaluation: 0 for a nil index.
func (ix *Index) size() uint {
	if ix == nil {
		return 0
	}
	return ix.n
}

// set is the nodes having f, shared (nil for none or a nil index).
func (ix *Index) set(f string) *bitset.BitSet {
	if ix == nil {
		return nil
	}
	return ix.sets[f]
}

// Has reports whether any node has feature f; pass it to Validate.
func (ix *Index) Has(f string) bool { return ix.set(f) != nil }

// Nodes returns the nodes that have feature f, as a new set the caller
// may change (nil when no node has f): a shared, frozen index stays what
// its owner matches against whatever its holders do with the sets.
func (ix *Index) Nodes(f string) *bitset.BitSet {
	if s := ix.set(f); s != nil {
		return s.Clone()
	}
	return nil
}

// Names returns the features known to the index, sorted.
func (ix *Index) Names() []string {
	if ix == nil {
		return nil
	}
	return slices.Sorted(maps.Keys(ix.sets))
}

// Nodes returns a new set of the nodes satisfying e's per-node part (see
// the package doc).
func (e *Expr) Nodes(ix *Index) *bitset.BitSet {
	dst := bitset.New(ix.size())
	e.NodesInto(ix, dst)
	return dst
}

// NodesInto is Nodes writing into dst (resized to ix.Len()), so a caller
// evaluating many requests can reuse one set. A plain chain of features
// evaluates without allocating. A nil dst is a programming error: it
// panics saying so.
func (e *Expr) NodesInto(ix *Index, dst *bitset.BitSet) {
	if dst == nil {
		panic("features: NodesInto needs a set to write into, not nil")
	}
	evalInto(e.tree(), ix, dst)
}

// Nodes returns the nodes satisfying t.
func (t Term) Nodes(ix *Index) *bitset.BitSet {
	dst := bitset.New(ix.size())
	evalInto(t.tree(), ix, dst)
	return dst
}

// evalInto writes the nodes satisfying n into dst.
func evalInto(n *node, ix *Index, dst *bitset.BitSet) {
	resize(dst, ix.size())
	switch n.kind {
	case kFeature:
		if s := ix.set(n.name); s != nil {
			s.Copy(dst) // Copy copies its receiver into its argument
		} else {
			dst.ClearAll()
		}
	case kCounted, kCounts:
		// Counted terms say how many nodes, not which may be used.
		dst.SetAll()
	case kMatchOr:
		dst.ClearAll()
		for _, alt := range n.items {
			if s := ix.set(alt.name); s != nil {
				dst.InPlaceUnion(s)
			}
		}
	case kChain:
		if len(n.items) == 0 { // the zero Expr: no constraint
			dst.SetAll()
			return
		}
		evalInto(n.items[0], ix, dst)
		var tmp *bitset.BitSet
		for i, it := range n.items[1:] {
			operand := ix.set(it.name)
			if it.kind != kFeature {
				if tmp == nil {
					tmp = bitset.New(ix.size())
				}
				evalInto(it, ix, tmp)
				operand = tmp
			}
			combine(dst, n.ops[i], operand)
		}
	}
}

// combine applies op to dst and operand; a nil operand is an unknown
// feature, which no node has.
func combine(dst *bitset.BitSet, op byte, operand *bitset.BitSet) {
	switch {
	case op == '|' && operand != nil:
		dst.InPlaceUnion(operand)
	case op == '&' && operand != nil:
		dst.InPlaceIntersection(operand)
	case op == '&':
		dst.ClearAll()
	}
}

// resize makes dst exactly n bits long, reallocating only when it is not.
func resize(dst *bitset.BitSet, n uint) {
	if dst.Len() != n {
		*dst = *bitset.New(n)
	}
}

// Match reports whether a node with the given features satisfies e's
// per-node part.
func (e *Expr) Match(nodeFeatures []string) bool { return match(e.tree(), nodeFeatures) }

// Match reports whether a node with the given features satisfies t.
func (t Term) Match(nodeFeatures []string) bool { return match(t.tree(), nodeFeatures) }

func match(n *node, fs []string) bool {
	switch n.kind {
	case kFeature:
		return slices.Contains(fs, n.name)
	case kCounted, kCounts:
		return true
	case kMatchOr:
		for _, alt := range n.items {
			if slices.Contains(fs, alt.name) {
				return true
			}
		}
		return false
	}
	if len(n.items) == 0 { // the zero Expr: no constraint
		return true
	}
	v := match(n.items[0], fs)
	for i, it := range n.items[1:] {
		if n.ops[i] == '&' {
			v = v && match(it, fs)
		} else {
			v = v || match(it, fs)
		}
	}
	return v
}

// UnknownFeatureError is what Validate returns for a feature no node has;
// Slurm rejects such a job with "Invalid feature specification".
type UnknownFeatureError struct {
	Expr    string
	Feature string
	Pos     position.Position // of the name in the parsed text
}

func (e *UnknownFeatureError) Error() string {
	return fmt.Sprintf("invalid feature specification %q: no node has feature %q (offset %d)", e.Expr, e.Feature, e.Pos.Offset)
}

// Position is where the unknown name is in Expr.
func (e *UnknownFeatureError) Position() position.Position { return e.Pos }

// Validate returns an *UnknownFeatureError for the first feature name that
// known rejects, or nil. Index.Has is a ready-made known. A nil known is
// an error, not a check that passes: it could tell no name.
func (e *Expr) Validate(known func(string) bool) error {
	if known == nil {
		return errors.New("features: Validate needs a known function, not nil (Index.Has is one)")
	}
	var bad *node
	e.tree().walkFeatures(func(n *node) bool {
		if !known(n.name) {
			bad = n
			return false
		}
		return true
	})
	if bad != nil {
		return &UnknownFeatureError{Expr: e.src, Feature: bad.name, Pos: position.At(e.src, bad.pos)}
	}
	return nil
}
