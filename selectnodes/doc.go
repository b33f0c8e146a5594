// Package selectnodes is the cluster model and the node-selection pipeline
// of Slurm's controller: node bitmaps, config records (node sets),
// partitions, and select_nodes -> _get_req_features -> _pick_best_nodes ->
// select_p_job_test, as the Novotný thesis (chapters 2-4) and the Slurm Programmer's Guide (node
// selection) describe them. No Slurm code was used.
//
// # Model
//
// A Cluster holds Nodes (index order is node order for consecutive
// selection), their config records (nodes of one configuration, ordered by
// weight then configuration order), Partitions, and Slurm's global bitmaps
// (the Novotný thesis §3.1.2): Up (not down), Avail (up and not drained), Idle (no
// job) and Share (no exclusive job), plus per-node counters of CPUs,
// memory, GRES and jobs in use. Allocate and Release keep them exact;
// CheckInvariants recomputes them from scratch. FromConfig numbers the
// nodes in the order of the file (slurmconf.Config.NodeOrder) and makes a
// config record of each slurmconf.NodeLine, so the lines configured alike
// are one record wherever they stand and a file with a line per node is
// selected from as its ranges would be; with WithSlurmCompat each NodeName
// line is a record, in file order, as in Slurm 22.05.
//
// Nodes of one record share their configuration inside the cluster, a
// million nodes costing about 24 bytes each: Node returns a copy, which is
// the caller's. Partition and Partitions return the cluster's node lists,
// shared between partitions listing the same nodes: read them, do not
// write them.
//
// The cluster is split three ways. Its configuration (nodes, records,
// feature index, GRES capacities, selector, topology) never changes after
// New. Its status (node states, what nodes reported, partitions) changes
// rarely and is copied on write. Its load (the counters and the running
// jobs) changes with every Allocate and Release.
//
// # Snapshots and exact layouts
//
// Snapshot is the immutable view planners receive: the configuration and
// status as they were, and a copy of the load, the only thing a snapshot
// copies. It never sees later changes to the cluster, may be read while the
// cluster changes, and two snapshots of one cluster may be used by two
// goroutines at once. It has the cluster's read accessors, SelectNodes, and
// what-ifs: Allocate, Release, and Simulate (Kueue's what-if), which checks
// a placement like Cluster.Allocate and returns a revert function.
//
// PlaceExact (on a Cluster or a Snapshot) is for planners that decide the
// layout themselves, such as an auction bid naming per-node CPUs and GPUs:
// it validates the NodeUse list against the request (partition, node
// states, per-node constraints and features, counted terms, node counts,
// CPU total, GRES min..max per node, sharing) and the load, and returns
// exactly the Placement it describes, or an *Error whose class says what
// is wrong (ErrInvalidRequest: the layout does not meet the request;
// ErrNodeConfig: a node can never host the job or share; ErrPartConfig: a
// node is down, drained or withheld; ErrBusy: the load leaves no room) and
// whose reason names the node and the resource.
//
// # Pipeline
//
// SelectNodes(req, mode) runs the stages, one file each in call order:
//
//   - select_nodes (selectnodes.go): Resolve (partition, required and
//     excluded nodes, GRES types, sharing per the Novotný thesis Table 2.1), the
//     partition checks (state, RootOnly, MaxMemPerNode, access: AllowGroups, AllowAccounts, DenyAccounts, AllowQOS, DenyQOS (with accounting only: WithQOSChecks); MaxTime) and NodeCounts (min,
//     desired and max nodes with the partition's limits);
//   - _build_node_list (buildnodes.go): BuildNodeSets, per-record
//     candidates after the partition, exclusions and the per-node
//     constraints, honouring FastSchedule 0/1/2; a required node outside
//     them is ErrNodeConfig;
//   - _get_req_features (reqfeatures.go): ReqFeatures, the counted feature
//     terms, with both solvers side by side (Slurm's greedy one and the
//     exact one of counts.go and countsolve.go);
//   - _pick_best_nodes (pickbest.go): PickBestNodes, the matching-OR loop,
//     accumulating sets in weight order and calling the Selector, then
//     classifying a failure as node configuration (A), partition or
//     availability (B) or busy (C) with TestOnly passes (the Novotný thesis §3.2.4).
//
// One value per call carries the job, its node sets, counts, load view,
// mode and the explanation recorder down the stages; nothing is formatted
// unless an explanation is being made, and the counted terms are solved
// once per call (the run that explains a failure reuses their outcome).
//
// The load filters read per-word bounds (room.go): for each 64-node word,
// the least CPUs and memory a node offers and the most CPUs, memory and
// jobs a node holds, kept exact by Allocate and Release, so a word of
// busy nodes that all have room passes at once instead of node by node.
//
// Modes are RunNow, TestOnly (ignore the load) and WillRun (earliest start,
// releasing running jobs in order of their expected ends, the Novotný thesis §4.3.2).
//
// # Selectors
//
// Linear is select/linear (whole nodes, consecutive runs, min load for
// shared jobs); ConsRes is select/cons_res (consumable CPUs, memory, GRES;
// sharing lets several jobs commit a node's CPUs, never one job more than
// the node has). A Selector is a small interface any package can
// implement: Filter and JobTest read the cluster through View and Job's
// read-only accessors, and JobTest returns a Choice (nodes and per-node
// shares) from which the pipeline builds the Placement, after checking it.
// JobHooks are a selector's optional begin/finish hooks. WithTopology (or
// WithTopologyConfig) makes both built-in selectors topology-aware: nodes
// come from topology.Tree.Fit, the lowest switch that suffices and best fit
// over its leaves, within one tree unless the tree allows spanning; when
// that fill cannot reach a CPU total within the node limit, the
// consecutive-run rule picks inside one tree instead. Seed001 builds the
// AUCSCHED3 paper's 1024-node, 16-core, 3-GPU system with its tree.
//
// # Correct by default, Slurm on request
//
// Slurm satisfies counted feature terms greedily and can reject a request
// some choice of nodes satisfies, depending on the order of the NodeName
// lines (the Novotný thesis §3.3). By default ReqFeatures solves the counts exactly
// and prefers low weight: nodes are grouped into kinds (the terms they
// satisfy, their CPUs, their weight), cheap bounds decide most requests
// without search (a term with too few nodes, the node limit, a CPU total
// beyond the nodes with the most CPUs), and a bounded search over the kinds
// finds the cheapest cover, then if needed a cover reaching the CPU total.
// WithSlurmCompat reproduces Slurm's greedy answers, and takes the first
// matching-OR alternative that can be satisfied instead of the cheapest.
// Its other rules were recorded on a real Slurm 22.05.8 and live in the
// compat_*.go files: nodes numbered in name order (FromConfig), bracketed
// counted terms filled each from its own nodes, required nodes completed
// from the first one up then down, node ranges taken up to their maximum
// and refused above a partition's MaxNodes, cons_tres's own choice of
// nodes and --contiguous, and topology/tree placement. Where the default
// mode answers differently, Explain says so ("differs from Slurm 22.05").
// Both modes apply DefMemPerCPU/DefMemPerNode and memory per CPU where
// memory is consumable (compat_mem.go).
//
// Every failure is an *Error of one class (ErrNodeConfig, ErrPartConfig,
// ErrBusy, ErrHeld, ErrInvalidRequest) carrying an Explanation: per node
// set, how many nodes each filter removed and why, and the decisions the
// pipeline took. Explain gives the same for any request.
//
// # Limits and cost
//
// Work per request is a few passes over node bitmaps plus work
// proportional to the chosen nodes and to the runs of free nodes. A
// selection works in memory the cluster lends it between calls (the node
// sets, the usable and available nodes, best-fit lists, the selector's
// choice), filters the load only over the spans of the node sets it
// reaches, and allocates the Placement it returns and little else (the
// Placement lists its nodes, so it costs the job's size, not a bitmap of
// the cluster's: NodeSet builds one on demand); the
// built-in selectors' choices live in that memory (see Choice). Allocate
// keeps a placement a selection returned instead of copying it, so
// Allocate and Release cost the job's nodes and allocate nothing; the
// last holder of a released placement may hand it back with Recycle, and
// the next plain walk choosing as many nodes fills it again instead of
// allocating (a replay's starts then allocate nearly nothing). WillRun
// walks the running jobs in an index by expected end that Allocate,
// Release and SetAllocationEnd keep, finds the first end after which
// enough nodes are free by counts, and makes one selection there (more
// only when that one fails). For planners that count before they select,
// CountedNeed says when a request's fit on a plain cluster, ignoring the
// load, is a node count (and the count), AppendFreeCPUs and
// DescendAllocations read every node's free CPUs and the running
// allocations by expected end in one call, FreeTotals (the free CPUs and
// the nodes with one) is kept through every start and end instead of
// counted, CountFull counts the full nodes of a list, AppendFreeCPUsOn
// reads the free CPUs of a placement's nodes, and IdleInto copies the idle
// nodes into a bitset the caller reuses. On a cluster of one kind of
// node under Linear (one node configuration, no GRES, no topology, the
// default mode), a RunNow or TestOnly selection of a plain request that
// does not share its nodes (counts only, withheld nodes allowed) skips the
// node sets and the selector: one walk over the candidates' runs finds the
// nodes the pipeline would choose, and a request that does not fit goes
// through the pipeline for its error. The explicit limits, each checked before
// anything is computed from it:
//
//   - a node has at most MaxNodeCPUs CPUs, configured or as the product of
//     boards, sockets, cores and threads (New and Register reject more);
//   - a node's GRES of one name and type sum to at most MaxInt64;
//   - the GRES table has one slot per configured GRES entry, not nodes
//     times distinct GRES, so memory stays proportional to the
//     configuration;
//   - a placement gives no node more CPUs, memory or GRES than it has and
//     nothing negative (Allocate, Snapshot.Allocate, Simulate, PlaceExact);
//   - node bitmaps entering the API (Request.ExcludeNodes) must have the
//     cluster's node count: another length is ErrInvalidRequest with a
//     *BitmapLengthError cause;
//   - a constraint holds at most MaxCountTerms counted terms; the counted-
//     terms search is bounded (2^13 steps for the cheapest cover, 2^15 for
//     a cover by CPUs), after which a greedy cover is tried.
//
// A Cluster is not safe for concurrent use; Snapshots are independent of
// it (see above).
//
// # Tests
//
// The property tests comparing the pipeline with brute force run a short
// form always; HPCSCHED_LONG_TESTS=1 go test ./selectnodes runs the long
// form.
package selectnodes
