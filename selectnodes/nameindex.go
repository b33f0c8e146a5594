package selectnodes

import "hash/maphash"

// nameIndex finds a node by name. It is an open-addressing hash table of
// node indices (4 bytes a slot, at most half full) over the cluster's own
// names: a million nodes cost 8 MB here, where a map[string]int costs
// about 50 MB and a hash of every key again when it grows. Below 2^24
// nodes a slot's top byte holds 8 bits of the name's hash, so a probe
// past another name rarely reads that name. The seed is random per
// cluster, so crafted names cannot make lookups collide.
type nameIndex struct {
	seed    maphash.Seed
	slots   []uint32 // node index + 1 in the low bits, the tag above; 0 is an empty slot
	mask    uint64
	tagging bool
}

const (
	tagShift = 24
	idxMask  = 1<<tagShift - 1
)

func newNameIndex(n int) nameIndex {
	size := 16
	for size < 2*n {
		size *= 2
	}
	return nameIndex{seed: maphash.MakeSeed(), slots: make([]uint32, size), mask: uint64(size - 1),
		tagging: n < idxMask}
}

// find returns the slot where name is, or the empty slot where it would
// go, the node there (-1 when empty) and the slot's value for name.
func (x *nameIndex) find(nodes []node, name string) (slot, i int, val uint32) {
	h := maphash.String(x.seed, name)
	tag := uint32(0)
	if x.tagging {
		tag = uint32(h>>56) << tagShift
	}
	for s := h & x.mask; ; s = (s + 1) & x.mask {
		v := x.slots[s]
		if v == 0 {
			return int(s), -1, tag
		}
		if !x.tagging {
			if nodes[v-1].Name == name {
				return int(s), int(v - 1), tag
			}
			continue
		}
		if v&^idxMask == tag && nodes[v&idxMask-1].Name == name {
			return int(s), int(v&idxMask - 1), tag
		}
	}
}

// add indexes node i, reporting false when its name is taken already.
func (x *nameIndex) add(nodes []node, i int) bool {
	s, at, tag := x.find(nodes, nodes[i].Name)
	if at >= 0 {
		return false
	}
	x.slots[s] = tag | uint32(i+1)
	return true
}

// NodeIndex returns the index of the named node.
func (c *Cluster) NodeIndex(name string) (int, bool) {
	c.mustBeMade("NodeIndex")
	_, i, _ := c.byName.find(c.nodes, name)
	return max(i, 0), i >= 0
}
