package slurmconf

import (
	"fmt"
	"hash/maphash"
	"slices"

	"github.com/hpcsched/hpcsched/position"
)

// Validate checks what no single line can: every node name is defined once,
// every partition name once, and every partition names only defined nodes.
// It returns every problem found as a position.ErrorList sorted by
// position (errors.As finds each *Error), or nil. A nil Config (what a
// failed Parse returns) is an error matching ErrNilArgument.
func (c *Config) Validate() error {
	if c == nil {
		return fmt.Errorf("%w: slurmconf.Config.Validate: the configuration is nil", ErrNilArgument)
	}
	var errs position.ErrorList
	defined := newNameSet(c)
	order := c.runs()
	for _, s := range order { // in file order, so that the first definition is the one kept
		n := &c.Nodes[s.line]
		for k := int(s.first); k < int(s.first+s.count); k++ {
			if first, dup := defined.add(c, defined.starts[s.line]+k, nameAt{s.line, int32(k)}); dup {
				errs.Add(n.NamePos(k), fmt.Sprintf("node %s is already defined at %s", n.Names[k],
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
		if name, ok := c.undefined(p.Nodes, order, &defined); !ok {
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
// hash table (8 bytes a slot, at most half full) over the Config's own
// names: a million names cost 16 MB, where a map costs about 50 MB. A slot
// holds the name's ordinal (its place among all names) and 32 bits of its
// hash, so a probe past another name rarely reads that name. The seed is
// random per set, so crafted names cannot make lookups collide.
type nameSet struct {
	seed   maphash.Seed
	slots  []uint64 // ordinal+1 in the low half, the hash's top half above; 0 is empty
	mask   uint64
	starts []int // starts[line] is the ordinal of c.Nodes[line].Names[0]
}

func newNameSet(c *Config) nameSet {
	s := nameSet{seed: maphash.MakeSeed(), starts: make([]int, len(c.Nodes))}
	n := 0
	for i := range c.Nodes {
		s.starts[i] = n
		n += len(c.Nodes[i].Names)
	}
	size := 16
	for size < 2*n {
		size *= 2
	}
	s.slots, s.mask = make([]uint64, size), uint64(size-1)
	return s
}

// at is where the name of the given ordinal is defined.
func (s *nameSet) at(ordinal int) nameAt {
	line, found := slices.BinarySearch(s.starts, ordinal)
	if !found {
		line--
	}
	for line+1 < len(s.starts) && s.starts[line+1] == ordinal { // skip lines without names
		line++
	}
	return nameAt{int32(line), int32(ordinal - s.starts[line])}
}

// find returns the slot where name is, or the empty slot where it would
// go, where the name is defined and whether it is.
func (s *nameSet) find(c *Config, name string) (int, nameAt, bool) {
	return s.findHashed(c, name, maphash.String(s.seed, name))
}

// findHashed is find given the name's hash.
func (s *nameSet) findHashed(c *Config, name string, h uint64) (int, nameAt, bool) {
	tag := h &^ (1<<32 - 1)
	for i := h & s.mask; ; i = (i + 1) & s.mask {
		v := s.slots[i]
		if v == 0 {
			return int(i), nameAt{}, false
		}
		if v&^(1<<32-1) != tag {
			continue
		}
		if at := s.at(int(uint32(v)) - 1); c.nameAt(at) == name {
			return int(i), at, true
		}
	}
}

// add records the name of the given ordinal (its place in Nodes then
// Names order), defined at a, or returns
// where it was defined first.
func (s *nameSet) add(c *Config, ordinal int, a nameAt) (nameAt, bool) {
	name := c.nameAt(a)
	h := maphash.String(s.seed, name)
	i, first, dup := s.findHashed(c, name, h)
	if !dup {
		s.slots[i] = h&^(1<<32-1) | uint64(uint32(ordinal+1))
	}
	return first, dup
}

// undefined returns the first of names that no node line defines. Names
// listed in definition order (order, the file's), the usual case, are
// matched by walking the definitions alongside, without a map lookup each.
func (c *Config) undefined(names []string, order []nameRun, defined *nameSet) (string, bool) {
	si, k := 0, 0 // the next defined name: the k-th of order[si]
	for _, name := range names {
		for si < len(order) && k >= int(order[si].count) {
			si, k = si+1, 0
		}
		if si < len(order) && c.Nodes[order[si].line].Names[int(order[si].first)+k] == name {
			k++
			continue
		}
		if _, _, ok := defined.find(c, name); !ok {
			return name, false
		}
	}
	return "", true
}
