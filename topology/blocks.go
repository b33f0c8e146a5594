package topology

import (
	"fmt"
	"slices"

	"github.com/hpcsched/hpcsched/position"
	"github.com/hpcsched/hpcsched/slurmconf"
)

// BlockSpec describes one block of topology/block; Pos, when known, is
// where it is defined.
type BlockSpec struct {
	Name  string
	Nodes []string
	Pos   position.Position
}

// WithBlocks gives New the blocks (BlockName lines) and block sizes
// (BlockSizes=, ascending) to validate and expose.
func WithBlocks(blocks []BlockSpec, sizes []int) Option {
	return func(c *config) { c.blocks, c.blockSizes = blocks, sizes }
}

// FromConfig builds a tree from a parsed topology.conf over the cluster's
// node names (index order): it is New with the file's switches and blocks,
// each carrying the position of its line.
func FromConfig(top *slurmconf.Topology, nodeNames []string, opts ...Option) (*Tree, error) {
	if top == nil {
		return nil, &Error{Msg: "FromConfig: the topology is nil (parse a topology.conf, or build with New)"}
	}
	specs := make([]SwitchSpec, len(top.Switches))
	for i, s := range top.Switches {
		specs[i] = SwitchSpec{Name: s.Name, Switches: s.Switches, Nodes: s.Nodes, LinkSpeed: s.LinkSpeed, Pos: s.Pos}
	}
	blocks := make([]BlockSpec, len(top.Blocks))
	for i, b := range top.Blocks {
		blocks[i] = BlockSpec{Name: b.Name, Nodes: b.Nodes, Pos: b.Pos}
	}
	return New(nodeNames, specs, append(slices.Clip(opts), WithBlocks(blocks, top.BlockSizes))...)
}

func (t *Tree) setBlocks(blocks []BlockSpec, sizes []int, lenient bool) error {
	if len(blocks) == 0 && len(sizes) == 0 {
		return nil
	}
	nodeIx := make(map[string]int, len(t.nodeNames))
	for i, n := range t.nodeNames {
		nodeIx[n] = i
	}
	owner := map[int]string{}
	for _, b := range blocks {
		blk := Block{Name: b.Name}
		if len(b.Nodes) == 0 {
			return &Error{Pos: b.Pos, Msg: fmt.Sprintf("block %s has no nodes", b.Name)}
		}
		var skipped []string
		for _, name := range b.Nodes {
			n, ok, err := t.node(nodeIx, name, lenient, &skipped)
			if err != nil {
				return &Error{Pos: b.Pos, Msg: fmt.Sprintf("block %s: %s", b.Name, err.Msg)}
			}
			if !ok {
				continue
			}
			if prev, dup := owner[n]; dup {
				return &Error{Pos: b.Pos, Msg: fmt.Sprintf("node %s is in blocks %s and %s", name, prev, b.Name)}
			}
			owner[n] = b.Name
			blk.Nodes = append(blk.Nodes, n)
		}
		t.warnSkipped("block", b.Name, skipped)
		t.Blocks = append(t.Blocks, blk)
	}
	for i, s := range sizes {
		if i > 0 && s <= sizes[i-1] {
			return &Error{Msg: fmt.Sprintf("BlockSizes must ascend, %d follows %d", s, sizes[i-1])}
		}
	}
	t.BlockSizes = slices.Clone(sizes)
	return nil
}
