// Package selectnodes is the cluster model and the node-selection pipeline
// of Slurm's controller: node bitmaps, config records (node sets),
// partitions, and select_nodes -> _get_req_features -> _pick_best_nodes ->
// select_p_job_test, as seed 000 (chapters 2-4) and seed 003 (node
// selection) describe them. No Slurm code was used.
//
// # Model
//
// A Cluster holds Nodes (index order is node order for consecutive
// selection), their config records (nodes of one configuration, ordered by
// weight then configuration order), Partitions, and Slurm's global bitmaps
// (seed 000 §3.1.2): Up (not down), Avail (up and not drained), Idle (no
// job) and Share (no exclusive job), plus per-node counters of CPUs,
// memory, GRES and jobs in use. Allocate and Release keep them exact;
// CheckInvariants recomputes them from scratch.
//
// # Pipeline
//
// SelectNodes(req, mode) runs the stages, each exported so it can be
// tested on its own:
//
//   - Resolve: partition, required/excluded nodes, GRES types, sharing
//     (seed 000 Table 2.1, MayShare);
//   - the partition checks of select_nodes (state, RootOnly, MaxTime);
//   - BuildNodeSets (_build_node_list): per-record candidates after the
//     partition, exclusions and the per-node constraints, honouring
//     FastSchedule 0/1/2; a required node outside them is ErrNodeConfig;
//   - NodeCounts: min, desired and max nodes with the partition's limits;
//   - ReqFeatures (_get_req_features): counted feature terms;
//   - PickBestNodes (_pick_best_nodes): the matching-OR loop, accumulating
//     sets in weight order and calling the Selector, then classifying a
//     failure as node configuration (A), partition/availability (B) or
//     busy (C) with TestOnly passes (seed 000 §3.2.4).
//
// Modes are RunNow, TestOnly (ignore the load) and WillRun (earliest start,
// releasing running jobs in order of their expected ends, seed 000 §4.3.2).
//
// # Selectors
//
// Linear is select/linear (whole nodes, consecutive runs, min load for
// shared jobs); ConsRes is select/cons_res (consumable CPUs, memory, GRES).
// A Selector is a small interface; JobHooks are its optional begin/finish
// hooks. WithTopology (or WithTopologyConfig) makes both topology-aware:
// nodes come from topology.Tree.Fit, the lowest switch that suffices and
// best fit over its leaves, within one tree unless the tree allows
// spanning; when that fill cannot reach a CPU total within the node limit,
// the consecutive-run rule picks inside one tree instead. Seed001 builds
// seed 001's 1024-node, 16-core, 3-GPU system with its tree.
//
// # Correct by default, Slurm on request
//
// Slurm satisfies counted feature terms greedily and can reject a request
// some choice of nodes satisfies, depending on the order of the NodeName
// lines (seed 000 §3.3). By default ReqFeatures solves the counts exactly
// (an integer covering problem over node classes, preferring low weight);
// WithSlurmCompat reproduces Slurm's greedy answers, and takes the first
// matching-OR alternative that can be satisfied instead of the cheapest.
//
// Every failure is an *Error of one class (ErrNodeConfig, ErrPartConfig,
// ErrBusy, ErrHeld, ErrInvalidRequest) carrying an Explanation: per node
// set, how many nodes each filter removed and why, and the decisions the
// pipeline took. Explain gives the same for any request.
//
// # Limits and cost
//
// Work per request is a few passes over node bitmaps plus work
// proportional to the chosen nodes and to the runs of free nodes;
// allocations are a handful of bitmaps whatever the cluster's size. A
// constraint may hold at most MaxCountTerms counted terms. A Cluster is not
// safe for concurrent use.
package selectnodes
