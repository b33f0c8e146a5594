package topology

import (
	"errors"
	"fmt"
	"math/bits"
	"slices"

	"github.com/bits-and-blooms/bitset"
	"github.com/hpcsched/hpcsched/slurmconf"
)

// Error is an invalid topology: the switch at fault (when one is), where
// it is defined (when read from a file) and what is wrong.
type Error struct {
	Switch string
	Pos    string
	Msg    string
}

func (e *Error) Error() string {
	if e.Pos != "" {
		return e.Pos + ": topology: " + e.Msg
	}
	return "topology: " + e.Msg
}

func errSwitch(name, format string, args ...any) *Error {
	return &Error{Switch: name, Msg: fmt.Sprintf(format, args...)}
}

// SwitchSpec describes one switch: a leaf lists Nodes, an upper switch
// lists Switches.
type SwitchSpec struct {
	Name      string
	Switches  []string
	Nodes     []string
	LinkSpeed int64
}

// Switch is one switch of a Tree.
type Switch struct {
	Name      string
	Level     int   // 0 for leaves
	Parent    int   // index of the parent switch, -1 for a root
	Children  []int // child switches, empty for a leaf
	LinkSpeed int64
	Leaves    []int // the leaf switches below (itself for a leaf)
	nodes     []int // a leaf's own nodes, ascending
	wlo       int   // first word of the span its subtree covers
	words     []uint64
	count     int // nodes below
}

// Block is one BlockName line: a group of nodes of topology/block.
type Block struct {
	Name  string
	Nodes []int
}

// Tree is a validated switch hierarchy over a node universe.
type Tree struct {
	Switches   []Switch
	Roots      []int
	MaxLevel   int
	Blocks     []Block
	BlockSizes []int
	// Warnings lists what was ignored under Lenient.
	Warnings []string

	nodeNames []string
	leafOf    []int32 // node -> leaf switch, -1 when under none
	byLevel   [][]int // switches by level, leaves first
	byName    map[string]int
	span      bool
}

// Option configures New and FromConfig.
type Option func(*config)

type config struct {
	lenient bool
	span    bool
}

// Lenient accepts what Slurm logs and carries on with, recording each in
// Tree.Warnings: node names not in the universe are skipped, and a node
// listed under a second leaf switch stays with the first. Real
// topology.conf files do contain both.
func Lenient() Option { return func(c *config) { c.lenient = true } }

// AllowSpanningTrees lets Fit place a job across several root trees when
// no single one can hold it.
func AllowSpanningTrees() Option { return func(c *config) { c.span = true } }

// New builds a tree over the nodes named nodeNames (index i is node i).
func New(nodeNames []string, specs []SwitchSpec, opts ...Option) (*Tree, error) {
	var cf config
	for _, o := range opts {
		o(&cf)
	}
	t := &Tree{nodeNames: slices.Clone(nodeNames), byName: map[string]int{}, span: cf.span}
	nodeIx := make(map[string]int, len(nodeNames))
	for i, n := range nodeNames {
		nodeIx[n] = i
	}
	t.leafOf = make([]int32, len(nodeNames))
	for i := range t.leafOf {
		t.leafOf[i] = -1
	}
	for i, s := range specs {
		switch {
		case s.Name == "":
			return nil, &Error{Msg: fmt.Sprintf("switch %d has no name", i)}
		case len(s.Nodes) > 0 && len(s.Switches) > 0:
			return nil, errSwitch(s.Name, "switch %s lists both Nodes and Switches", s.Name)
		}
		if _, dup := t.byName[s.Name]; dup {
			return nil, errSwitch(s.Name, "switch %s is defined twice", s.Name)
		}
		t.byName[s.Name] = i
		t.Switches = append(t.Switches, Switch{Name: s.Name, Parent: -1, LinkSpeed: s.LinkSpeed, Level: -1})
	}
	for i, s := range specs {
		sw := &t.Switches[i]
		for _, name := range s.Nodes {
			n, ok := nodeIx[name]
			if !ok {
				if cf.lenient {
					t.Warnings = append(t.Warnings, fmt.Sprintf("switch %s: unknown node %s ignored", s.Name, name))
					continue
				}
				return nil, errSwitch(s.Name, "switch %s: unknown node %s", s.Name, name)
			}
			if prev := t.leafOf[n]; prev >= 0 {
				if int(prev) == i {
					continue
				}
				if cf.lenient {
					t.Warnings = append(t.Warnings, fmt.Sprintf("switch %s: node %s is already under leaf %s; kept there", s.Name, name, t.Switches[prev].Name))
					continue
				}
				return nil, errSwitch(s.Name, "node %s is under two leaf switches, %s and %s", name, t.Switches[prev].Name, s.Name)
			}
			t.leafOf[n] = int32(i)
			sw.nodes = append(sw.nodes, n)
		}
		slices.Sort(sw.nodes)
		for _, child := range s.Switches {
			c, ok := t.byName[child]
			if !ok {
				return nil, errSwitch(s.Name, "switch %s: unknown switch %s", s.Name, child)
			}
			if c == i {
				return nil, errSwitch(s.Name, "switch %s lists itself", s.Name)
			}
			if p := t.Switches[c].Parent; p >= 0 && p != i {
				return nil, errSwitch(s.Name, "switch %s has two parents, %s and %s", child, t.Switches[p].Name, s.Name)
			}
			if t.Switches[c].Parent == i {
				continue
			}
			t.Switches[c].Parent = i
			sw.Children = append(sw.Children, c)
		}
	}
	if err := t.levels(); err != nil {
		return nil, err
	}
	t.spans()
	return t, nil
}

// levels assigns levels bottom-up and finds the roots; a switch never
// reached from a leaf upwards and never finished is on a cycle.
func (t *Tree) levels() error {
	state := make([]uint8, len(t.Switches)) // 0 new, 1 visiting, 2 done
	var visit func(i int) error
	visit = func(i int) error {
		switch state[i] {
		case 1:
			return errSwitch(t.Switches[i].Name, "switch %s is on a cycle", t.Switches[i].Name)
		case 2:
			return nil
		}
		state[i] = 1
		sw := &t.Switches[i]
		level := 0
		for _, c := range sw.Children {
			if err := visit(c); err != nil {
				return err
			}
			level = max(level, t.Switches[c].Level+1)
		}
		sw.Level = level
		state[i] = 2
		return nil
	}
	for i := range t.Switches {
		if err := visit(i); err != nil {
			return err
		}
	}
	for i := range t.Switches {
		if t.Switches[i].Parent < 0 {
			t.Roots = append(t.Roots, i)
		}
		t.MaxLevel = max(t.MaxLevel, t.Switches[i].Level)
	}
	t.byLevel = make([][]int, t.MaxLevel+1)
	for i := range t.Switches {
		l := t.Switches[i].Level
		t.byLevel[l] = append(t.byLevel[l], i)
	}
	if len(t.Switches) > 0 && len(t.Roots) == 0 {
		return &Error{Msg: "every switch has a parent: the switches form a cycle"}
	}
	return nil
}

// spans computes each switch's leaves, node count and membership words.
func (t *Tree) spans() {
	var build func(i int)
	build = func(i int) {
		sw := &t.Switches[i]
		if len(sw.Children) == 0 {
			sw.Leaves = []int{i}
			sw.count = len(sw.nodes)
			if sw.count > 0 {
				sw.wlo = sw.nodes[0] / 64
				sw.words = make([]uint64, sw.nodes[len(sw.nodes)-1]/64+1-sw.wlo)
				for _, n := range sw.nodes {
					sw.words[n/64-sw.wlo] |= 1 << (uint(n) % 64)
				}
			}
			return
		}
		lo, hi := -1, -1
		for _, c := range sw.Children {
			build(c)
			ch := &t.Switches[c]
			sw.Leaves = append(sw.Leaves, ch.Leaves...)
			sw.count += ch.count
			if ch.count > 0 {
				if lo < 0 || ch.wlo < lo {
					lo = ch.wlo
				}
				hi = max(hi, ch.wlo+len(ch.words))
			}
		}
		if lo < 0 {
			return
		}
		sw.wlo = lo
		sw.words = make([]uint64, hi-lo)
		for _, c := range sw.Children {
			ch := &t.Switches[c]
			for k, w := range ch.words {
				sw.words[ch.wlo+k-lo] |= w
			}
		}
	}
	for _, r := range t.Roots {
		build(r)
	}
}

// FromConfig builds a tree from a parsed topology.conf over the cluster's
// node names (index order). Blocks are validated too.
func FromConfig(top *slurmconf.Topology, nodeNames []string, opts ...Option) (*Tree, error) {
	specs := make([]SwitchSpec, len(top.Switches))
	for i, s := range top.Switches {
		specs[i] = SwitchSpec{Name: s.Name, Switches: s.Switches, Nodes: s.Nodes, LinkSpeed: s.LinkSpeed}
	}
	t, err := New(nodeNames, specs, opts...)
	if err != nil {
		var te *Error
		if errors.As(err, &te) && te.Switch != "" {
			for _, s := range top.Switches {
				if s.Name == te.Switch {
					te.Pos = s.Pos.String()
					break
				}
			}
		}
		return nil, err
	}
	var cf config
	for _, o := range opts {
		o(&cf)
	}
	if err := t.setBlocks(top, cf.lenient); err != nil {
		return nil, err
	}
	return t, nil
}

func (t *Tree) setBlocks(top *slurmconf.Topology, lenient bool) error {
	nodeIx := make(map[string]int, len(t.nodeNames))
	for i, n := range t.nodeNames {
		nodeIx[n] = i
	}
	owner := map[int]string{}
	for _, b := range top.Blocks {
		blk := Block{Name: b.Name}
		if len(b.Nodes) == 0 {
			return &Error{Pos: b.Pos.String(), Msg: fmt.Sprintf("block %s has no nodes", b.Name)}
		}
		for _, name := range b.Nodes {
			n, ok := nodeIx[name]
			if !ok {
				if lenient {
					t.Warnings = append(t.Warnings, fmt.Sprintf("block %s: unknown node %s ignored", b.Name, name))
					continue
				}
				return &Error{Pos: b.Pos.String(), Msg: fmt.Sprintf("block %s: unknown node %s", b.Name, name)}
			}
			if prev, dup := owner[n]; dup {
				return &Error{Pos: b.Pos.String(), Msg: fmt.Sprintf("node %s is in blocks %s and %s", name, prev, b.Name)}
			}
			owner[n] = b.Name
			blk.Nodes = append(blk.Nodes, n)
		}
		t.Blocks = append(t.Blocks, blk)
	}
	for i, s := range top.BlockSizes {
		if i > 0 && s <= top.BlockSizes[i-1] {
			return &Error{Msg: fmt.Sprintf("BlockSizes must ascend, %d follows %d", s, top.BlockSizes[i-1])}
		}
	}
	t.BlockSizes = slices.Clone(top.BlockSizes)
	return nil
}

// NodeCount is the size of the node universe.
func (t *Tree) NodeCount() int { return len(t.nodeNames) }

// Switch returns the index of the named switch.
func (t *Tree) Switch(name string) (int, bool) {
	i, ok := t.byName[name]
	return i, ok
}

// Leaf returns the leaf switch of node i, or false when no switch lists it.
func (t *Tree) Leaf(node int) (int, bool) {
	if node < 0 || node >= len(t.leafOf) || t.leafOf[node] < 0 {
		return -1, false
	}
	return int(t.leafOf[node]), true
}

// Nodes returns the nodes below switch s (a new bitmap of the universe's
// size).
func (t *Tree) Nodes(s int) *bitset.BitSet {
	b := bitset.New(uint(len(t.nodeNames)))
	w := b.Words()
	sw := &t.Switches[s]
	copy(w[sw.wlo:], sw.words)
	return b
}

// Covered returns the nodes some leaf lists.
func (t *Tree) Covered() *bitset.BitSet {
	b := bitset.New(uint(len(t.nodeNames)))
	for _, r := range t.Roots {
		sw := &t.Switches[r]
		w := b.Words()
		for k, x := range sw.words {
			w[sw.wlo+k] |= x
		}
	}
	return b
}

// availIn counts the nodes of avail below switch s.
func (t *Tree) availIn(s int, avail []uint64) int {
	sw := &t.Switches[s]
	n := 0
	for k, x := range sw.words {
		n += bits.OnesCount64(x & avail[sw.wlo+k])
	}
	return n
}

// NodeName is the name of node i of the universe.
func (t *Tree) NodeName(i int) string { return t.nodeNames[i] }
