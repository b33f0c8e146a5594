package selectnodes

// A long replay starts and ends a job at every step, and each start's
// Placement was a fresh allocation: most of what a replay allocated, and
// fresh memory the kernel had to fault in. Recycle lets the last holder
// of a placement hand it back, and the next plain walk choosing as many
// nodes fills it again instead of allocating.

// Spares are bounded: at most maxSparePerSize placements of one node
// count, and at most maxSpareSlots nodes' worth in all (512 KB of
// per-node entries). A placement that would pass the bound empties the
// store first: what was kept is of sizes not asked for since, and the
// store then holds the latest ends, which the next starts are likeliest
// to match. (Refusing it instead let sizes seen once fill the store for
// good: on a cluster of a thousand nodes the store held its bound and
// served one start in ten.) A store that fills up while fewer than one in
// four of the placements it took were asked for again closes for good:
// on such a load (jobs of many sizes on many nodes) it would only hold
// memory the collector could reuse.
const (
	maxSparePerSize = 64
	maxSpareSlots   = 1 << 13
)

// spares are recycled placements by node count: in a slice by count up
// to smallSpare nodes (a replay's usual sizes, without a map's hashing
// at every start and end), in a map beyond.
type spares struct {
	small  *[smallSpare + 1][]*Placement // made at the first Recycle
	bySize map[int][]*Placement
	slots  int // the node entries held, for maxSpareSlots
	// taken and served count the placements kept and reused since the
	// store last emptied; closed is set when it filled up serving too few
	taken, served int
	closed        bool
}

const smallSpare = 64

// empty drops every kept placement.
func (s *spares) empty() {
	if s.small != nil {
		clear(s.small[:])
	}
	s.bySize, s.slots, s.taken, s.served = nil, 0, 0, 0
}

// list is the kept placements of n nodes.
func (s *spares) list(n int) []*Placement {
	if n <= smallSpare {
		if s.small == nil {
			return nil
		}
		return s.small[n]
	}
	return s.bySize[n]
}

// setList replaces the kept placements of n nodes.
func (s *spares) setList(n int, l []*Placement) {
	if n <= smallSpare {
		if s.small == nil {
			s.small = new([smallSpare + 1][]*Placement)
		}
		s.small[n] = l
		return
	}
	if s.bySize == nil {
		s.bySize = map[int][]*Placement{}
	}
	s.bySize[n] = l
}

// Recycle hands back placement p, which nothing will read again, for a
// later selection on this cluster to reuse its memory. Call it after the
// last use of p by everyone who has it: the job's Release, and every copy
// of the pointer you gave out. After Recycle, p may become another job's
// placement; until then Allocate refuses it.
//
// Recycle does nothing, and reports false, when p is nil or has no
// per-node allocations, when a cluster still has it allocated, when it
// was recycled already and not reused since, when the cluster has given
// out a Snapshot (which keeps the placements running then), when the
// selector keeps its own tables (JobHooks), when enough placements of
// its size are kept already, or when it alone has more nodes than the
// store keeps (8,192). The store is bounded (512 KB of per-node entries):
// a placement that would pass the bound empties it first, and the store
// closes for good, keeping nothing more, if fewer than one in four of the
// placements it kept had been reused by then.
func (c *Cluster) Recycle(p *Placement) bool {
	c.mustBeMade("Recycle")
	if p == nil {
		return false
	}
	n := len(p.Alloc)
	switch {
	case n == 0 || p.live != 0 || p.pooled || c.snapped:
		return false
	case len(p.Names) != n || p.nodes != nil:
		return false // not a placement a selection made
	}
	if _, hooks := c.selector.(JobHooks); hooks {
		return false
	}
	list := c.spare.list(n)
	if c.spare.closed || len(list) >= maxSparePerSize || n > maxSpareSlots {
		return false
	}
	if c.spare.slots+n > maxSpareSlots {
		closing := c.spare.served*4 < c.spare.taken
		c.spare.empty()
		if c.spare.closed = closing; closing {
			return false
		}
		list = nil
	}
	if c.selected.Load() == p {
		c.selected.Store(nil) // AllocateSelected must not trust it
	}
	names, alloc := p.Names, p.Alloc
	clear(names) // no name, memory or GRES left from the last job
	clear(alloc)
	*p = Placement{Names: names[:n:n], Alloc: alloc[:n:n], pooled: true}
	c.spare.setList(n, append(list, p))
	c.spare.slots += n
	c.spare.taken++
	return true
}

// reuse is a recycled placement of n nodes, its fields all zero but Names
// and Alloc (n zero entries each), or nil when none is kept.
func (c *Cluster) reuse(n int) *Placement {
	list := c.spare.list(n)
	if len(list) == 0 {
		return nil
	}
	p := list[len(list)-1]
	list[len(list)-1] = nil
	c.spare.setList(n, list[:len(list)-1])
	c.spare.slots -= n
	c.spare.served++
	p.pooled = false
	return p
}

// newPlacement is an empty placement with room for n nodes, Names and
// either Alloc or (nodesOnly) the node list, each of length 0: a recycled
// one when the view is the cluster's own and one of n nodes is kept.
func (v View) newPlacement(n int, nodesOnly bool) *Placement {
	if !nodesOnly && v.c != nil {
		if p := v.c.reuse(n); p != nil {
			p.Names, p.Alloc = p.Names[:0], p.Alloc[:0]
			return p
		}
	}
	p := &Placement{Names: make([]string, 0, n)}
	if nodesOnly {
		p.nodes = make([]int, 0, n)
	} else {
		p.Alloc = make([]NodeAlloc, 0, n)
	}
	return p
}
