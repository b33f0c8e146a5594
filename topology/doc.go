// Package topology models a hierarchical interconnect (Slurm's
// topology/tree) and places jobs on it, as seed 001 (Soner and Özturan,
// "Topologically Aware Job Scheduling for SLURM", sections 1-4) describes:
// a tree of switches whose leaves connect nodes, the two placement metrics
// of its Table 4, and Slurm's stated algorithm, "identify the lowest level
// switch in the hierarchy that can satisfy a job's request and then
// allocate resources on its underlying leaf switches using a best-fit
// algorithm". No Slurm code was used.
//
// # Tree
//
// A Tree is built from topology.conf (FromConfig) or in code (New) over a
// node universe (the cluster's node names, in index order). Leaves have
// level 0; a switch's level is one more than its highest child's. Each
// switch knows its parent, children and the set of nodes below it; each
// node its leaf. Validation names the switch at fault: unknown node or
// switch names, a switch with both Nodes and Switches, a cycle, a node
// under two leaves, a duplicate name. Lenient accepts unknown nodes and a
// node under two leaves with a warning each, as Slurm does. Several roots are allowed; Fit then keeps a job inside
// one tree unless AllowSpanningTrees is given.
//
// # Metrics (seed 001, Table 4)
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
// # Cost
//
// Switch membership is kept as bitmap words over the span of node indices
// each switch covers, so counting the available nodes of every switch
// costs about one pass over the node bitmap per tree level.
package topology
