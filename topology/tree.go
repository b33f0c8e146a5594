package topology

import (
	"fmt"
	"math/bits"
	"slices"

	"github.com/bits-and-blooms/bitset"
	"github.com/hpcsched/hpcsched/hostlist"
	"github.com/hpcsched/hpcsched/position"
)

// Error is an invalid topology: the switch at fault (when one is), where
// it is defined (when its spec says) and what is wrong.
type Error struct {
	Switch string
	Pos    position.Position
	Msg    string
}

func (e *Error) Error() string {
	if e.Pos.File != "" || e.Pos.IsValid() {
		return e.Pos.String() + ": topology: " + e.Msg
	}
	return "topology: " + e.Msg
}

// Position is where the switch or block at fault is defined.
func (e *Error) Position() position.Position { return e.Pos }

func errSwitch(s *SwitchSpec, format string, args ...any) *Error {
	return &Error{Switch: s.Name, Pos: s.Pos, Msg: fmt.Sprintf(format, args...)}
}

// SwitchSpec describes one switch: a leaf lists Nodes, an upper switch
// lists Switches. Pos, when known, is where it is defined; errors about the
// switch carry it.
type SwitchSpec struct {
	Name      string
	Switches  []string
	Nodes     []string
	LinkSpeed int64
	Pos       position.Position
}

// Switch is one switch of a Tree.
type Switch struct {
	Name      string
	Level     int   // 0 for leaves
	Parent    int   // index of the parent switch, -1 for a root
	Children  []int // child switches, empty for a leaf
	LinkSpeed int64
	// Leaves are the leaf switches below (itself for a leaf), in tree
	// order. Every switch's Leaves share one array: read only.
	Leaves []int
	Pos    position.Position
	nodes  []int // a leaf's own nodes, ascending
	// A leaf's membership, sparse: bits[k] is word wordIx[k] of the node
	// bitmap. Upper switches keep none, so memory stays proportional to
	// the input however deep the tree.
	wordIx []int
	bits   []uint64
	count  int // nodes below
	// pre and post number the switch in a depth-first walk: a is below b
	// when b.pre <= a.pre and a.post <= b.post.
	pre, post int
}

// Block is one BlockName line: a group of nodes of topology/block.
type Block struct {
	Name  string
	Nodes []int
}

// Tree is a validated switch hierarchy over a node universe. Once built
// it is read only: its exported fields are for reading, and its holders
// (a selectnodes.Cluster and its snapshots, every placement made on it)
// share one Tree, so changing a field changes their selections. New and
// FromConfig copy what they are given; methods that return bitmaps return
// new ones. It is safe for concurrent readers.
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
	lenient    bool
	span       bool
	blocks     []BlockSpec
	blockSizes []int
}

// Lenient accepts what Slurm logs and carries on with, recording it in
// Tree.Warnings: node names not in the universe are skipped (one warning
// per switch or block, naming them as a hostlist), and a node listed under
// a second leaf switch stays with the first. Real topology.conf files do
// contain both.
func Lenient() Option { return func(c *config) { c.lenient = true } }

// AllowSpanningTrees lets Fit place a job across several root trees when
// no single one can hold it.
func AllowSpanningTrees() Option { return func(c *config) { c.span = true } }

// New builds a tree over the nodes named nodeNames (index i is node i).
// Its memory is proportional to the input: the switches, their child
// lists and the nodes they list.
func New(nodeNames []string, specs []SwitchSpec, opts ...Option) (*Tree, error) {
	var cf config
	for _, o := range opts {
		o(&cf)
	}
	t := &Tree{nodeNames: slices.Clone(nodeNames), byName: make(map[string]int, len(specs)), span: cf.span,
		Switches: make([]Switch, 0, len(specs))}
	nodeIx := make(map[string]int, len(nodeNames))
	for i, n := range nodeNames {
		nodeIx[n] = i
	}
	t.leafOf = make([]int32, len(nodeNames))
	for i := range t.leafOf {
		t.leafOf[i] = -1
	}
	for i := range specs {
		s := &specs[i]
		switch {
		case s.Name == "":
			return nil, &Error{Pos: s.Pos, Msg: fmt.Sprintf("switch %d has no name", i)}
		case len(s.Nodes) > 0 && len(s.Switches) > 0:
			return nil, errSwitch(s, "switch %s lists both Nodes and Switches", s.Name)
		}
		if _, dup := t.byName[s.Name]; dup {
			return nil, errSwitch(s, "switch %s is defined twice", s.Name)
		}
		t.byName[s.Name] = i
		t.Switches = append(t.Switches, Switch{Name: s.Name, Parent: -1, LinkSpeed: s.LinkSpeed, Level: -1, Pos: s.Pos})
	}
	for i := range specs {
		if err := t.link(i, &specs[i], nodeIx, cf.lenient); err != nil {
			return nil, err
		}
	}
	if err := t.levels(); err != nil {
		return nil, err
	}
	t.walk()
	if err := t.setBlocks(cf.blocks, cf.blockSizes, cf.lenient); err != nil {
		return nil, err
	}
	return t, nil
}

// link attaches switch i's nodes and child switches.
func (t *Tree) link(i int, s *SwitchSpec, nodeIx map[string]int, lenient bool) error {
	sw := &t.Switches[i]
	var skipped []string
	for _, name := range s.Nodes {
		n, ok, err := t.node(nodeIx, name, lenient, &skipped)
		if err != nil {
			return &Error{Switch: s.Name, Pos: s.Pos, Msg: fmt.Sprintf("switch %s: %s", s.Name, err.Msg)}
		}
		if !ok {
			continue
		}
		if prev := t.leafOf[n]; prev >= 0 {
			if int(prev) == i {
				continue
			}
			if lenient {
				t.Warnings = append(t.Warnings, fmt.Sprintf("switch %s: node %s is already under leaf %s; kept there", s.Name, name, t.Switches[prev].Name))
				continue
			}
			return errSwitch(s, "node %s is under two leaf switches, %s and %s", name, t.Switches[prev].Name, s.Name)
		}
		t.leafOf[n] = int32(i)
		sw.nodes = append(sw.nodes, n)
	}
	t.warnSkipped("switch", s.Name, skipped)
	slices.Sort(sw.nodes)
	for _, child := range s.Switches {
		c, ok := t.byName[child]
		if !ok {
			return errSwitch(s, "switch %s: unknown switch %s", s.Name, child)
		}
		if c == i {
			return errSwitch(s, "switch %s lists itself", s.Name)
		}
		if p := t.Switches[c].Parent; p >= 0 && p != i {
			return errSwitch(s, "switch %s has two parents, %s and %s", child, t.Switches[p].Name, s.Name)
		}
		if t.Switches[c].Parent == i {
			continue
		}
		t.Switches[c].Parent = i
		sw.Children = append(sw.Children, c)
	}
	return nil
}

// node looks up a node that a switch or block lists. An unknown name is
// an error (its Msg names the node), or under Lenient is added to skipped
// and ok is false.
func (t *Tree) node(nodeIx map[string]int, name string, lenient bool, skipped *[]string) (int, bool, *Error) {
	n, ok := nodeIx[name]
	switch {
	case ok:
		return n, true, nil
	case lenient:
		*skipped = append(*skipped, name)
		return 0, false, nil
	}
	return 0, false, &Error{Msg: "unknown node " + name}
}

// warnSkipped records, under Lenient, the unknown nodes that the switch
// or block (kind) name listed: one warning per owner, its names
// compressed, so a line naming a million unknown nodes costs one warning,
// not a million.
func (t *Tree) warnSkipped(kind, name string, names []string) {
	switch len(names) {
	case 0:
	case 1:
		t.Warnings = append(t.Warnings, fmt.Sprintf("%s %s: unknown node %s ignored", kind, name, names[0]))
	default:
		t.Warnings = append(t.Warnings, fmt.Sprintf("%s %s: %d unknown nodes ignored: %s", kind, name, len(names), hostlist.Compress(names)))
	}
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
	t.orLeaves(b, t.Switches[s].Leaves)
	return b
}

// Covered returns the nodes some leaf lists.
func (t *Tree) Covered() *bitset.BitSet {
	b := bitset.New(uint(len(t.nodeNames)))
	for _, r := range t.Roots {
		t.orLeaves(b, t.Switches[r].Leaves)
	}
	return b
}

func (t *Tree) orLeaves(b *bitset.BitSet, leaves []int) {
	w := b.Words()
	for _, l := range leaves {
		sw := &t.Switches[l]
		for k, x := range sw.bits {
			w[sw.wordIx[k]] |= x
		}
	}
}

// availIn counts the nodes of avail below leaf switch s.
func (t *Tree) availIn(s int, avail []uint64) int {
	sw := &t.Switches[s]
	n := 0
	for k, x := range sw.bits {
		n += bits.OnesCount64(x & avail[sw.wordIx[k]])
	}
	return n
}

// below reports whether switch a is s or below it.
func (t *Tree) below(a, s int) bool {
	return t.Switches[s].pre <= t.Switches[a].pre && t.Switches[a].post <= t.Switches[s].post
}

// NodeName is the name of node i of the universe.
func (t *Tree) NodeName(i int) string { return t.nodeNames[i] }
