package slurmconf

import (
	"fmt"
	"hash/maphash"

	"github.com/hpcsched/hpcsched/position"
)

// Validate checks what no single line can: every node name is defined once,
// every partition name once, and every partition names only defined nodes.
// It returns every problem found as a position.ErrorList sorted by
// position (errors.As finds each *Error), or nil.
func (c *Config) Validate() error {
	var errs position.ErrorList
	defined := newNameSet(c.NodeCount())
	for i := range c.Nodes {
		n := &c.Nodes[i]
		for k, name := range n.Names {
			if first, dup := defined.add(c, nameAt{int32(i), int32(k)}); dup {
				errs.Add(n.NamePos(k), fmt.Sprintf("node %s is already defined at %s", name,
					c.Nodes[first.line].NamePos(int(first.k))))
			}
		}
	}
	parts := make(map[string]Pos, len(c.Partitions))
	for i := range c.Partitions {
		p := &c.Partitions[i]
		if first, dup := parts[p.Name]; dup {
			errs.Add(p.Pos, fmt.Sprintf("partition %s is already defined at %s", p.Name, first))
		}
		parts[p.Name] = p.Pos
		if name, ok := c.undefined(p.Nodes, &defined); !ok {
			errs.Add(p.Pos, fmt.Sprintf("partition %s: node %s is not defined", p.Name, name))
		}
	}
	errs.Sort()
	return errs.Err()
}

// nameAt is where a node name is defined: c.Nodes[line].Names[k].
type nameAt struct{ line, k int32 }

func (c *Config) nameAt(a nameAt) string { return c.Nodes[a.line].Names[a.k] }

// nameSet finds where a node name is defined. It is an open-addressing
// hash table of nameAt (8 bytes a slot, at most half full) over the
// Config's own names: a million names cost 16 MB, where a map costs about
// 50 MB. The seed is random per set, so crafted names cannot make lookups
// collide.
type nameSet struct {
	seed  maphash.Seed
	slots []uint64 // line+1 in the high half, k in the low; 0 is empty
	mask  uint64
}

func newNameSet(n int) nameSet {
	size := 16
	for size < 2*n {
		size *= 2
	}
	return nameSet{seed: maphash.MakeSeed(), slots: make([]uint64, size), mask: uint64(size - 1)}
}

// find returns the slot where name is, or the empty slot where it would
// go, and whether it is there.
func (s *nameSet) find(c *Config, name string) (int, nameAt, bool) {
	for i := maphash.String(s.seed, name) & s.mask; ; i = (i + 1) & s.mask {
		v := s.slots[i]
		if v == 0 {
			return int(i), nameAt{}, false
		}
		at := nameAt{int32(v>>32) - 1, int32(uint32(v))}
		if c.nameAt(at) == name {
			return int(i), at, true
		}
	}
}

// add records the name at a, or returns where it was defined first.
func (s *nameSet) add(c *Config, a nameAt) (nameAt, bool) {
	i, first, dup := s.find(c, c.nameAt(a))
	if !dup {
		s.slots[i] = uint64(a.line+1)<<32 | uint64(uint32(a.k))
	}
	return first, dup
}

// undefined returns the first of names that no node line defines. Names
// listed in definition order, the usual case, are matched by walking the
// node lines alongside, without a map lookup each.
func (c *Config) undefined(names []string, defined *nameSet) (string, bool) {
	li, k := 0, 0 // the next defined name: c.Nodes[li].Names[k]
	for _, name := range names {
		for li < len(c.Nodes) && k >= len(c.Nodes[li].Names) {
			li, k = li+1, 0
		}
		if li < len(c.Nodes) && c.Nodes[li].Names[k] == name {
			k++
			continue
		}
		if _, _, ok := defined.find(c, name); !ok {
			return name, false
		}
	}
	return "", true
}
