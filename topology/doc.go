// Package topology models a hierarchical interconnect (Slurm's
// topology/tree) and places jobs on it, as the AUCSCHED3 paper (Soner and Özturan,
// "Topologically Aware Job Scheduling for SLURM", sections 1-4) describes:
// a tree of switches whose leaves connect nodes, the two placement metrics
// of its Table 4, and Slurm's stated algorithm, "identify the lowest level
// switch in the hierarchy that can satisfy a job's request and then
// allocate resources on its underlying leaf switches using a best-fit
// algorithm". No Slurm code was used.
//
// # Tree
//
// A Tree is built from topology.conf (FromConfig) or in code (New, with
// SwitchSpec and, through WithBlocks, BlockSpec values) over a node universe (the cluster's node names, in index order). Leaves have
// level 0; a switch's level is one more than its highest child's. Each
// switch knows its parent, children and the set of nodes below it; each
// node its leaf. Validation names the switch at fault: unknown node or
// switch names, a switch with both Nodes and Switches, a cycle, a node
// under two leaves, a duplicate name. Lenient accepts unknown nodes and a
// node under two leaves with a warning each, as Slurm does. Several roots are allowed; Fit then keeps a job inside
// one tree unless AllowSpanningTrees is given.
//
// # Metrics (the AUCSCHED3 paper, Table 4)
//
// LowestCommonLevel is the level of the lowest switch from which all of a
// job's nodes can be reached; Spread is the distance from its first to its
// last node by index.
//
// # Placement
//
// Fit picks, among available nodes, the lowest-level switch whose subtree
// can satisfy the request (node count, and CPUs when asked for) and holds
// the required nodes — among equals the best fit, fewest available nodes —
// then fills from its leaves: required nodes first, then the leaf that
// suffices alone with the fewest spare nodes, else the leaf with the most
// available nodes, repeatedly. Ties go to lower node weight, then lower
// index, so results are deterministic. Node weight still comes first in
// Slurm; selectnodes hands Fit only the lowest-weight nodes that suffice.
//
// # Blocks
//
// Block topology (topology/block: BlockName, BlockSizes) is parsed and
// validated (known nodes, no node in two blocks, ascending sizes) and
// exposed as data; placement on blocks is not implemented yet.
//
// # Errors
//
// Validation errors are *Error values naming the switch at fault and
// carrying the position.Position its spec gave (FromConfig passes on the
// position of each topology.conf line), so position.Of finds it. The
// package reads positions; it does not depend on how a file was parsed.
//
// # Cost and budget
//
// Memory is proportional to the input, whatever the tree's shape: every
// switch's Leaves is a window on one shared list of the leaves in
// depth-first order, a leaf keeps only the bitmap words its own nodes
// touch, and upper switches keep no bitmap at all (a 20,000-leaf comb,
// 20,000 levels deep, needs about 15 MB where one bitmap per switch took
// 1.7 GB). Building and walking the tree are iterative, so depth costs no
// stack. No separate budget is needed: the caller's SwitchSpec slice
// bounds everything. Counting the available nodes of every switch costs one
// pass over the leaves' words plus one addition per switch; whether a
// switch holds a job's required nodes is one comparison of depth-first
// numbers against their lowest common switch.
package topology
