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
func ParseTopology(r io.Reader, opts ...Option) (*Topology, error) {
	t := &Topology{}
	b, err := newBudget("ParseTopology", r, opts)
	if err != nil {
		return nil, err
	}
	if err := readAll(b, r, &t.Includes, func(l line) error { return t.line(b, l) }); err != nil {
		return nil, err
	}
	return t, nil
}

// ParseTopologyFile reads the topology.conf called name in fsys, following
// Include lines as ParseFile does.
func ParseTopologyFile(fsys fs.FS, name string, opts ...Option) (*Topology, error) {
	t := &Topology{}
	bud, err := newBudget("ParseTopologyFile", fsys, opts)
	if err != nil {
		return nil, err
	}
	r := includeReader{fsys: fsys, bud: bud}
	if err := r.readRoot(name, func(l line) error { return t.line(r.bud, l) }); err != nil {
		return nil, err
	}
	return t, nil
}

func (t *Topology) line(b *budget, l line) error {
	first := l.pairs[0]
	if first.is("SwitchName") || first.is("BlockName") {
		if err := b.record(l.pos); err != nil {
			return err
		}
	}
	switch {
	case first.is("SwitchName"):
		s, err := buildSwitch(b, l.pairs)
		if err != nil {
			return err
		}
		t.Switches = append(t.Switches, s)
	case first.is("BlockName"):
		blk := BlockLine{Name: first.Value, Pos: l.pos}
		if blk.Name == "" {
			return first.err("BlockName is empty")
		}
		for _, p := range l.pairs[1:] {
			if p.is("Nodes") {
				var err error
				if blk.Nodes, err = b.hosts(p, false); err != nil {
					return err
				}
				continue
			}
			if err := b.keep(1, p.Pos); err != nil {
				return err
			}
			blk.Extra = append(blk.Extra, p)
		}
		t.Blocks = append(t.Blocks, blk)
	default:
		for _, p := range l.pairs {
			if p.is("BlockSizes") {
				for _, item := range splitOutsideParens(p.Value) {
					if strings.TrimSpace(item.text) == "" {
						continue
					}
					v, err := p.within(item.text, item.off).int(1, math.MaxInt32)
					if err != nil {
						return err
					}
					t.BlockSizes = append(t.BlockSizes, int(v))
				}
			}
			if err := b.keep(1, p.Pos); err != nil {
				return err
			}
			t.Params = append(t.Params, p)
		}
	}
	return nil
}

func buildSwitch(b *budget, pairs []Pair) (SwitchLine, error) {
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
			s.Switches, err = b.hosts(p, false)
		case "nodes":
			s.Nodes, err = b.hosts(p, false)
		case "linkspeed":
			s.LinkSpeed, err = p.int(0, math.MaxInt64)
		default:
			if err = b.keep(1, p.Pos); err == nil {
				s.Extra = append(s.Extra, p)
			}
		}
		if err != nil {
			return s, err
		}
	}
	return s, nil
}
