package slurmstate

import (
	"cmp"
	"slices"

	"github.com/hpcsched/hpcsched/selectnodes"
)

func sortAlloc(a []selectnodes.NodeAlloc) {
	slices.SortFunc(a, func(x, y selectnodes.NodeAlloc) int { return cmp.Compare(x.Node, y.Node) })
}

// sortUnlisted orders the unlisted load by node, so IDs do not depend on
// map order.
func sortUnlisted(u []unlistedLoad) {
	slices.SortFunc(u, func(x, y unlistedLoad) int { return cmp.Compare(x.alloc.Node, y.alloc.Node) })
}
