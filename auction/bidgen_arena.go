package auction

import "github.com/hpcsched/hpcsched/topology"

// useArena hands out the uses of a problem's bids. A replay's bids have
// hundreds of uses each, and a planner makes a few problems a pass,
// each dropped before the next is made: allocating their uses afresh
// was half of all a replay allocated, and so most of its garbage
// collection. A planner's arena (recycle) hands the same blocks out
// again for each problem; GenerateBids' own allocates each bid's uses.
// Each bid's slice is capped at its own uses, so an append to one never
// runs into another.
type useArena struct {
	recycle bool
	// checkUses validates every use of a recycling arena's problems, as
	// Validate does: the planner's tests set it (Planner.checkProblems);
	// a planner otherwise skips the uses bid generation laid out itself.
	checkUses bool
	blocks    [][]Use
	next      int   // the block to cut from once free is used up
	free      []Use // what is left of the current block
	// levels is a recycling arena's levels of node ranges, kept from one
	// problem to the next while the tree is the same (levelsOf).
	levels *levels
}

// levelsOf is the levels of tree's node ranges for a problem: a
// recycling arena's kept ones, when of the same tree, else new ones.
func (a *useArena) levelsOf(tree *topology.Tree) *levels {
	if !a.recycle {
		return newLevels(tree)
	}
	if a.levels == nil || a.levels.tree != tree {
		a.levels = newLevels(tree)
	}
	return a.levels
}

// useBlock is how many uses a block holds at least.
const useBlock = 1 << 14

// take is n uses. Recycled uses are not zero: the caller sets every
// field.
func (a *useArena) take(n int) []Use {
	if !a.recycle {
		return make([]Use, n)
	}
	uses := a.room(n)[:n]
	a.free = a.free[n:]
	return uses
}

// room is an empty slice with room for n uses at the arena's free end,
// for uses to be appended and then kept (keep); a recycling arena's only.
func (a *useArena) room(n int) []Use {
	for len(a.free) < n {
		if a.next == len(a.blocks) {
			a.blocks = append(a.blocks, make([]Use, max(n, useBlock)))
		}
		a.free = a.blocks[a.next]
		a.next++
	}
	return a.free[:0:n]
}

// keep takes uses (appended to what room gave, within its room) off the
// free end, capped at their own length.
func (a *useArena) keep(uses []Use) []Use {
	a.free = a.free[len(uses):]
	return uses[:len(uses):len(uses)]
}

// reset hands the blocks out again: every use taken before must be dead.
func (a *useArena) reset() { a.next, a.free = 0, nil }

// arena is the planner's arena for a pass, taken from the planner so
// that passes run at once (on one Planner) never share one: a pass that
// finds none there makes its own. release gives it back.
func (pl *Planner) arena() *useArena {
	a := pl.uses.Swap(nil)
	if a == nil {
		a = &useArena{recycle: true}
	}
	a.checkUses = pl.checkProblems
	return a
}

func (pl *Planner) release(a *useArena) { pl.uses.Store(a) }
