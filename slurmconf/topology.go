package slurmconf

import (
	"io"
	"io/fs"
	"math"
	"strings"
)

// Topology is a parsed topology.conf: a switch tree (topology/tree) and/or
// blocks (topology/block). Checking that it forms a tree is the topology
// package's job; this one reports only what is wrong on a line.
type Topology struct {
	Switches   []SwitchLine
	Blocks     []BlockLine
	BlockSizes []int // BlockSizes=, in nodes
	Params     []Pair
	Includes   []Pair // Include lines Parse did not follow
}

// SwitchLine is SwitchName=... with its children: leaf switches list
// Nodes, upper switches list Switches.
type SwitchLine struct {
	Name      string
	Switches  []string // expanded
	Nodes     []string // expanded
	LinkSpeed int64    // 0 when not given
	Extra     []Pair
	Pos       Pos
}

// BlockLine is BlockName=... Nodes=....
type BlockLine struct {
	Name  string
	Nodes []string
	Extra []Pair
	Pos   Pos
}

// ParseTopology reads a topology.conf from r (Include lines are listed, not
// followed).
func ParseTopology(r io.Reader) (*Topology, error) {
	t := &Topology{}
	if err := readAll(r, &t.Includes, t.line); err != nil {
		return nil, err
	}
	return t, nil
}

// ParseTopologyFile reads the topology.conf called name in fsys, following
// Include lines as ParseFile does.
func ParseTopologyFile(fsys fs.FS, name string) (*Topology, error) {
	t := &Topology{}
	r := includeReader{fsys: fsys}
	if err := r.read(name, nil, t.line); err != nil {
		return nil, err
	}
	return t, nil
}

func (t *Topology) line(l line) error {
	first := l.pairs[0]
	switch {
	case first.is("SwitchName"):
		s, err := buildSwitch(l.pairs)
		if err != nil {
			return err
		}
		t.Switches = append(t.Switches, s)
	case first.is("BlockName"):
		b := BlockLine{Name: first.Value, Pos: l.pos}
		if b.Name == "" {
			return first.err("BlockName is empty")
		}
		for _, p := range l.pairs[1:] {
			if p.is("Nodes") {
				var err error
				if b.Nodes, err = p.hosts(); err != nil {
					return err
				}
				continue
			}
			b.Extra = append(b.Extra, p)
		}
		t.Blocks = append(t.Blocks, b)
	default:
		for _, p := range l.pairs {
			if p.is("BlockSizes") {
				for _, item := range p.list() {
					v, err := Pair{Key: p.Key, Value: item, Pos: p.Pos, ValueCol: p.ValueCol}.int(1, math.MaxInt32)
					if err != nil {
						return err
					}
					t.BlockSizes = append(t.BlockSizes, int(v))
				}
			}
			t.Params = append(t.Params, p)
		}
	}
	return nil
}

func buildSwitch(pairs []Pair) (SwitchLine, error) {
	s := SwitchLine{Name: pairs[0].Value, Pos: pairs[0].Pos}
	if s.Name == "" {
		return s, pairs[0].err("SwitchName is empty")
	}
	if strings.ContainsAny(s.Name, "[],=") {
		return s, pairs[0].err("SwitchName %q must name one switch", s.Name)
	}
	for _, p := range pairs[1:] {
		var err error
		switch strings.ToLower(p.Key) {
		case "switches":
			s.Switches, err = p.hosts()
		case "nodes":
			s.Nodes, err = p.hosts()
		case "linkspeed":
			s.LinkSpeed, err = p.int(0, math.MaxInt64)
		default:
			s.Extra = append(s.Extra, p)
		}
		if err != nil {
			return s, err
		}
	}
	return s, nil
}
