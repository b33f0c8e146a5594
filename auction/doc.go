// Package auction is AUCSCHED3, the topology-aware auction scheduler of
// the AUCSCHED3 paper (Soner and Özturan, "Topologically Aware Job Scheduling for
// SLURM", section 2), with an integer-programming solver of its own in
// place of CPLEX. No Slurm or plug-in code was used.
//
// # Model
//
// A Problem is a window of jobs, each with a priority P_j and bids B_j, and
// the free cores and GPUs of every node. A Bid lists its per-node uses
// (node, cores, GPUs), its cost C_ji and switch level. The objective (1)
// sums P_j - Alpha*C_ji over chosen bids, under at most one bid per job (2)
// and the cores (3) and GPUs (4) of each node. Cost is formula (5), Alpha
// is P_min_diff/3 (7), which never lets a cost reorder jobs of different
// priority (the paper's proof is a property test). ReadJSON and WriteJSON
// use a JSON form of the problem (described at ReadJSON); WriteLP writes CPLEX LP
// for CBC, GLPK or HiGHS. ReadJSON checks its budgets (MaxJobs,
// MaxBidsPerJob, MaxBids, MaxUses, MaxInputBytes) before it stores
// anything; errors carry the JSON path and byte offset.
//
// # Bids
//
// GenerateBids does AUCSCHED3's bid generation on a topology.Tree and a
// Load (free cores and GPUs per node): runs of nodes with free cores under
// each switch, leaves first, are nodesets; each job gets bids from the
// best-fitting stretches (cores only, or exactly N nodes, with each GPU
// count of its range), least contended first. A job's runs are scanned
// over the nodes it could ever use (WindowJob.Span: its partition's, say),
// so a node of another partition between its own does not split them; the
// Planner fills Span in from selectnodes' OfferTerms. A job that no run of
// the idle machine could hold, or that has no bid while nothing runs, is
// declined to the queue's selection even with KeepBidless: it would
// otherwise wait for ever. PluginOptions gives the
// public plug-in's variants (value by cores, shifted priorities, the
// switch's level as L, 500 bids a job, 25,000 in all, a window of 250).
//
// # Solver
//
// Solve first tries a quick proof (quick.go): a greedy (jobs by
// value, each on its fitting bid of best value) is the incumbent of a
// small exact search over the jobs, each on each fitting bid or left out,
// cut by a fractional knapsack of the free cores (and of the free GPUs)
// in all. Where every job wants a large part of the free machine, as in
// a replay's windows, that search completes within its 20,000 nodes
// and its incumbent is optimal; the rest is not run. Otherwise Solve
// works on a compact model: bids worth nothing are dropped, and so
// are node resources no combination of bids can overfill; conflict
// cliques (bids that pairwise overfill a node resource or belong to one
// job, one clique grown greedily around each conflicting pair; half
// cliques past 10,000 bids) are added as rows of capacity 1; jobs that
// share no binding resource are solved apart. It prices the binding
// capacities and cliques by Lagrangian relaxation (subgradient steps
// scaled by each row's capacity; any prices give a valid upper bound, the
// Bound of the Solution, which lands near the clique LP's value), and the
// relaxation's own choices, repaired, give the first solution (near good
// prices they are almost feasible). Small groups (Options.ExactJobs)
// first get a short exact branch and bound; the rest is improved by
// annealed local search — eject-and-repair moves (put a job in, throw out
// what collides, let jobs back in) and sub-windows of colliding jobs
// solved exactly by branch and bound with the rest fixed; in windows of
// more than 60 open jobs, when the annealing stalls, an escape (rins.go)
// solves a sub-window of up to 60 jobs around the left-out job the prices
// want most with the LP branch and bound, the other jobs fixed. Then small
// groups are fixed by reduced cost against the best solution (bids no
// better solution takes, jobs every better solution takes), re-priced,
// and searched exactly, first on a bounded budget after a short local
// search, then with what remains; a completed search proves the optimum.
// While a group's bound leaves room for one more job of the chosen jobs'
// mean value, each proof attempt first runs an aimed LP search
// (lp_aim.go): the value to beat is raised most of the way to the bound
// (0.999, then 0.99, then 0.9 of it), so the cut prunes every node whose
// LP cannot reach it; what it finds above it is a better incumbent, and a
// search that completes without one lowers the bound to it.
// The exact search of a whole group is first an LP branch and bound
// (lp_simplex.go, lp_tree.go: a bounded dual simplex of our own over the
// clique model, rows added as its solution overfills them, warm-started
// from node to node, reliability branching, reduced-cost fixing per node;
// its bounds come from the duals clamped to >= 0, so valid whatever the
// rounding), then the Lagrangian one. The rows the basis leaves loose are
// dropped once the rows have grown by 5%, in a proof attempt only once
// they have doubled: where the optimum fills every core every row is
// tight, and dropping the degenerate ones at almost every node left two
// planted 30-job windows in 17 unproven. A proof attempt's search also
// restarts each down child from its parent's optimal basis, not from
// where the up child's subtree left the LP (a quarter of the pivots).
// When every value is a whole multiple of some 1/(2^a 3^b) (valueStep), a
// bound less than one step above the solution proves it. Everything is
// deterministic for a given Options.Seed; only where a time limit stops
// the run depends on the machine.
//
// The solver uses no goroutines and never reads the clock: Options.TimeLimit
// becomes a context deadline, which the search checks every 1,024 nodes.
//
// # Planner
//
// Planner is a queue.Planner: each pass it bids for the window on what
// selectnodes' Offer says each node can give each job under the
// snapshot's load (asked only of jobs some run of free nodes could hold;
// the others get OfferTerms, the offer's error without the load; jobs
// of one selectnodes.OfferKey share one offer a pass and one room table
// an auction, and bid generation reads their runs of nodes once), solves
// within its Budget (nodes every bid uses alike
// merged into one, which changes no selection's feasibility or value)
// and starts the winners on exactly their bids' cores and GPUs
// (queue.Decision.Layout), with the memory the pipeline gives those
// cores. The jobs it cannot express it declines (queue.Decliner,
// queue.Decision.Decline), and the queue's own selection places them in
// the same pass.
// With Auctions > 1 the jobs that did not win bid again, within the same
// pass, on what the winners left, until an auction starts nothing (the
// paper runs one auction a pass; Slurm would run the plug-in again within
// sched_interval, where a replay passes only at events).
// ReplayOptions is a work budget for a pass of a simulated replay (no time
// limit, so a replay decides the same on any machine).
package auction
