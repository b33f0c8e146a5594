package selectnodes

// A started job's Placement, its nodes' names and its per-node shares
// were three allocations. For a placement of up to 16 nodes they are one:
// a block holding the Placement and both arrays, in a size of 1, 2, 4, 8
// or 16 nodes (a trace's jobs mostly ask for a power of two). Names and
// Alloc are slices of the block, as long as the placement and no longer
// (capacity too), so an append by their holder copies them out rather
// than writing over the block.

type (
	placementBlock1 struct {
		p     Placement
		names [1]string
		alloc [1]NodeAlloc
	}
	placementBlock2 struct {
		p     Placement
		names [2]string
		alloc [2]NodeAlloc
	}
	placementBlock4 struct {
		p     Placement
		names [4]string
		alloc [4]NodeAlloc
	}
	placementBlock8 struct {
		p     Placement
		names [8]string
		alloc [8]NodeAlloc
	}
	placementBlock16 struct {
		p     Placement
		names [16]string
		alloc [16]NodeAlloc
	}
)

// newPlacementOf is an empty Placement with Names and Alloc of n zero
// entries each.
func newPlacementOf(n int) *Placement {
	switch {
	case n <= 1:
		b := new(placementBlock1)
		return b.p.own(b.names[:n:n], b.alloc[:n:n])
	case n <= 2:
		b := new(placementBlock2)
		return b.p.own(b.names[:n:n], b.alloc[:n:n])
	case n <= 4:
		b := new(placementBlock4)
		return b.p.own(b.names[:n:n], b.alloc[:n:n])
	case n <= 8:
		b := new(placementBlock8)
		return b.p.own(b.names[:n:n], b.alloc[:n:n])
	case n <= 16:
		b := new(placementBlock16)
		return b.p.own(b.names[:n:n], b.alloc[:n:n])
	}
	return &Placement{Names: make([]string, n), Alloc: make([]NodeAlloc, n)}
}

// own sets p's Names and Alloc and returns p.
func (p *Placement) own(names []string, alloc []NodeAlloc) *Placement {
	p.Names, p.Alloc = names, alloc
	return p
}
