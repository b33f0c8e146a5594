package selectnodes

import (
	"slices"

	"github.com/google/btree"
)

// endIndex holds the running jobs' endKeys in endLess order. A replay's
// cluster runs a few hundred jobs at a time, and each start inserts one
// key and each end deletes one: a sorted slice does either with a binary
// search and a short copy, several times cheaper than a B-tree's descent,
// node splits and merges. A slice's copy grows with its length, so past
// endSliceMax keys the index moves into a B-tree, and back into a slice
// when it shrinks below endSliceMin (apart from endSliceMax, so that a
// count going back and forth across one bound does not move the keys each
// time). Either form answers every question the same way.
type endIndex struct {
	small []endKey              // sorted by endLess, when tree is nil
	far   int                   // how many of small's keys have farSec
	tree  *btree.BTreeG[endKey] // the keys, past endSliceMax of them
}

const (
	endSliceMax = 256 // more keys than this move into a B-tree
	endSliceMin = 128 // fewer than this move back into a slice
)

// Len is the number of keys.
func (x *endIndex) Len() int {
	if x.tree != nil {
		return x.tree.Len()
	}
	return len(x.small)
}

// find is where k is in the slice, or would be inserted. While no key
// involved has a far end, keys are compared by their integers in line.
func (x *endIndex) find(k *endKey) (int, bool) {
	lo, hi := 0, len(x.small)
	if x.far > 0 || k.sec == farSec {
		for lo < hi {
			mid := int(uint(lo+hi) >> 1)
			switch c := endCompare(&x.small[mid], k); {
			case c < 0:
				lo = mid + 1
			case c > 0:
				hi = mid
			default:
				return mid, true
			}
		}
		return lo, false
	}
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		m := &x.small[mid]
		switch {
		case m.sec < k.sec || m.sec == k.sec && (m.nsec < k.nsec || m.nsec == k.nsec && m.id < k.id):
			lo = mid + 1
		case m.sec == k.sec && m.nsec == k.nsec && m.id == k.id:
			return mid, true
		default:
			hi = mid
		}
	}
	return lo, false
}

// ReplaceOrInsert adds k, replacing a key equal to it under endLess.
func (x *endIndex) ReplaceOrInsert(k endKey) {
	if x.tree != nil {
		x.tree.ReplaceOrInsert(k)
		return
	}
	i, found := x.find(&k)
	if found {
		x.small[i] = k // the same sec as the key replaced
		return
	}
	if k.sec == farSec {
		x.far++
	}
	x.small = slices.Insert(x.small, i, k)
	if len(x.small) > endSliceMax {
		x.toTree()
	}
}

// Delete removes the key equal to k under endLess, if there is one.
func (x *endIndex) Delete(k endKey) {
	if x.tree != nil {
		x.tree.Delete(k)
		if x.tree.Len() < endSliceMin {
			x.toSlice()
		}
		return
	}
	if i, found := x.find(&k); found {
		if x.small[i].sec == farSec {
			x.far--
		}
		copy(x.small[i:], x.small[i+1:])
		x.small[len(x.small)-1] = endKey{} // drop the placement's reference
		x.small = x.small[:len(x.small)-1]
	}
}

// Get returns the key equal to k under endLess.
func (x *endIndex) Get(k endKey) (endKey, bool) {
	if x.tree != nil {
		return x.tree.Get(k)
	}
	if i, found := x.find(&k); found {
		return x.small[i], true
	}
	return endKey{}, false
}

// Ascend calls fn for each key in endLess order until fn returns false.
func (x *endIndex) Ascend(fn func(endKey) bool) {
	if x.tree != nil {
		x.tree.Ascend(fn)
		return
	}
	for _, k := range x.small {
		if !fn(k) {
			return
		}
	}
}

// Descend calls fn for each key in reverse endLess order until fn returns
// false.
func (x *endIndex) Descend(fn func(endKey) bool) {
	if x.tree != nil {
		x.tree.Descend(fn)
		return
	}
	for i := len(x.small) - 1; i >= 0; i-- {
		if !fn(x.small[i]) {
			return
		}
	}
}

// Clone returns an index with the same keys that changes independently. A
// B-tree is cloned lazily (copy on write), which writes to x: call it only
// where nothing reads x concurrently, else use Copy.
func (x *endIndex) Clone() endIndex {
	if x.tree != nil {
		return endIndex{tree: x.tree.Clone()}
	}
	return endIndex{small: slices.Clone(x.small), far: x.far}
}

// Copy returns an index with the same keys, only reading x.
func (x *endIndex) Copy() endIndex {
	if x.tree == nil {
		return endIndex{small: slices.Clone(x.small), far: x.far}
	}
	y := endIndex{tree: btree.NewG(16, endLess)}
	x.tree.Ascend(func(k endKey) bool { y.tree.ReplaceOrInsert(k); return true })
	return y
}

// toTree moves the slice's keys into a B-tree.
func (x *endIndex) toTree() {
	x.tree = btree.NewG(16, endLess)
	for _, k := range x.small {
		x.tree.ReplaceOrInsert(k)
	}
	x.small, x.far = nil, 0
}

// toSlice moves the B-tree's keys into a slice.
func (x *endIndex) toSlice() {
	small, far := make([]endKey, 0, endSliceMax+1), 0
	x.tree.Ascend(func(k endKey) bool {
		if k.sec == farSec {
			far++
		}
		small = append(small, k)
		return true
	})
	x.small, x.far, x.tree = small, far, nil
}
