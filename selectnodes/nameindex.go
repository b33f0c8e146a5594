package selectnodes

import "hash/maphash"

// nameIndex finds a node by name. It is an open-addressing hash table of
// node indices (4 bytes a slot, at most half full) over the cluster's own
// names: a million nodes cost 8 MB here, where a map[string]int costs
// about 50 MB and a hash of every key again when it grows. The seed is
// random per cluster, so crafted names cannot make lookups collide.
type nameIndex struct {
	seed  maphash.Seed
	slots []int32 // node index + 1; 0 is an empty slot
	mask  uint64
}

func newNameIndex(n int) nameIndex {
	size := 16
	for size < 2*n {
		size *= 2
	}
	return nameIndex{seed: maphash.MakeSeed(), slots: make([]int32, size), mask: uint64(size - 1)}
}

// find returns the slot where name is, or the empty slot where it would
// go, and the node there (-1 when empty).
func (x *nameIndex) find(nodes []node, name string) (slot, i int) {
	h := maphash.String(x.seed, name)
	for s := h & x.mask; ; s = (s + 1) & x.mask {
		v := int(x.slots[s]) - 1
		if v < 0 || nodes[v].Name == name {
			return int(s), v
		}
	}
}

// add indexes node i, reporting false when its name is taken already.
func (x *nameIndex) add(nodes []node, i int) bool {
	s, at := x.find(nodes, nodes[i].Name)
	if at >= 0 {
		return false
	}
	x.slots[s] = int32(i + 1)
	return true
}

// NodeIndex returns the index of the named node.
func (c *Cluster) NodeIndex(name string) (int, bool) {
	if len(c.byName.slots) == 0 {
		return 0, false
	}
	_, i := c.byName.find(c.nodes, name)
	return max(i, 0), i >= 0
}
