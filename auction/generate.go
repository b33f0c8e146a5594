package auction

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/bits-and-blooms/bitset"
	"github.com/hpcsched/hpcsched/topology"
)

// Load is the cluster's free resources per node, indexed like the tree's
// node universe: plain data, so the package needs no cluster model.
type Load struct {
	CPUs []int // free cores per node
	GPUs []int // free GPUs per node
	// MaxGPUs is G_max of formula (5), the most GPUs a node of the system
	// has (0: the most any node has free).
	MaxGPUs int
}

// WindowJob is a pending job as bid generation sees it (the AUCSCHED3 paper, Table 2):
// Cores cores (x), on exactly Nodes nodes (y; 0 for type A, any nodes), with
// GPUsMin..GPUsMax GPUs on each node (0..0 for none; 1..3 and 2..3 are the
// ranges of job types C' and D').
type WindowJob struct {
	ID               int64
	Priority         int64
	Type             string
	Cores, Nodes     int
	GPUsMin, GPUsMax int
	// Eligible, when not nil, limits the job's bids to these nodes (its
	// partition, the nodes with the memory it needs, ...).
	Eligible *bitset.BitSet
	// Span, when not nil, is the nodes the job could use whatever the
	// load (selectnodes.OfferTerms' Span: its partition, features, node
	// sizes). The job's runs of consecutive nodes are scanned over these
	// alone: a node outside Span neither joins nor breaks a run, while a
	// node of Span that cannot take the job now (not Eligible, busy, short
	// of GPUs) breaks it. Without Span every node counts, so nodes of
	// another partition between the job's split its runs, and a job
	// wanting more than the longest piece never gets a bid, even on an
	// idle machine.
	Span *bitset.BitSet
	// Room, when not nil, is the most cores the job may take on a node
	// (what its memory per CPU leaves it, say), within the node's free
	// cores. Whole makes every bid take exactly that on each of its
	// nodes (an exclusive job, or a whole-node selector), and the node
	// only when all of it is free.
	Room  func(node int) int
	Whole bool
	// alike, when not 0, says that the jobs of the same alike have the
	// same Room (one table, the planner's for one offer), so that bid
	// generation reads their rooms and runs once for all those of one
	// Eligible bitmap too.
	alike int32
}

// BidOptions choose between the paper's AUCSCHED3 (the zero value) and the
// variants of the public plug-in (PluginOptions).
type BidOptions struct {
	MaxBids      int  // bids per job (0: 10; more than MaxBidsPerJob is MaxBidsPerJob)
	MaxTotalBids int  // bids in all (0: no limit)
	Window       int  // jobs taken from the front of the window (0: all)
	ValueByCores bool // objective (P - alpha*C)*cores, as the plug-in
	// ShiftPriorities shifts priorities so the lowest is 1, as the plug-in.
	ShiftPriorities bool
	// SwitchLevel takes L_i as the level of the switch whose nodes the bid
	// came from (the plug-in) instead of the lowest switch above all the
	// bid's nodes (the paper).
	SwitchLevel bool
}

// PluginOptions are the AUCSCHED3 plug-in's settings: 500 bids a job,
// 25,000 in all, a window of 250 jobs, value by cores, shifted priorities,
// the switch's level as L.
func PluginOptions() BidOptions {
	return BidOptions{MaxBids: 500, MaxTotalBids: 25_000, Window: 250, ValueByCores: true, ShiftPriorities: true, SwitchLevel: true}
}

// nodeset is a run of nodes with free cores under one switch.
type nodeset struct {
	nodes []int
	level int
}

// GenerateBids builds the auction problem of a window as AUCSCHED3 does:
// under every switch, leaves first, the runs of nodes with free cores are
// nodesets; each job gets bids from the best-fitting stretches of each
// nodeset (cores only, or exactly Nodes nodes, with each GPU count of its
// range that fits), and keeps the MaxBids least contended — those whose
// nodes the fewest other candidate bids want — lowest switch level first.
func GenerateBids(window []WindowJob, load Load, tree *topology.Tree, opts BidOptions) (*Problem, error) {
	if tree == nil {
		return nil, &Error{Path: "tree", Err: ErrInvalid, Msg: "nil *topology.Tree: bids are made under its switches"}
	}
	return generateBids(window, load, tree, opts, &useArena{})
}

// generateBids is GenerateBids with the bids' uses from arena, which it
// resets first when it recycles: the problem made from it before is dead
// by then.
func generateBids(window []WindowJob, load Load, tree *topology.Tree, opts BidOptions, arena *useArena) (*Problem, error) {
	if arena.recycle {
		arena.reset()
	}
	n := tree.NodeCount()
	if len(load.CPUs) != n || len(load.GPUs) != n {
		return nil, &Error{Path: "load", Err: ErrInvalid, Msg: fmt.Sprintf("%d/%d free counts for %d nodes", len(load.CPUs), len(load.GPUs), n)}
	}
	if opts.MaxBids <= 0 {
		opts.MaxBids = 10
	}
	// More bids than a job may have could only fail validation, and the
	// candidates sought (four times MaxBids) overflowed an int near
	// math.MaxInt, so that each job got almost no bid.
	opts.MaxBids = min(opts.MaxBids, MaxBidsPerJob)
	jobs := slices.Clone(window)
	slices.SortStableFunc(jobs, func(a, b WindowJob) int { return cmp.Compare(b.Priority, a.Priority) })
	if opts.Window > 0 && len(jobs) > opts.Window {
		jobs = jobs[:opts.Window]
	}
	if len(jobs) > MaxJobs {
		return nil, &Error{Path: "window", Err: ErrBudget, Msg: fmt.Sprintf("%d jobs over the budget of %d", len(jobs), MaxJobs)}
	}
	p := &Problem{ValueByCores: opts.ValueByCores, Nodes: make([]Node, n)}
	sys := System{Nodes: n, MaxLevel: tree.MaxLevel, MaxGPUs: load.MaxGPUs}
	for i := range p.Nodes {
		if load.CPUs[i] < 0 || load.GPUs[i] < 0 {
			return nil, &Error{Path: fmt.Sprintf("load[%d]", i), Err: ErrInvalid, Msg: "negative free count"}
		}
		p.Nodes[i] = Node{CPUs: load.CPUs[i], GPUs: load.GPUs[i]}
		if load.MaxGPUs == 0 {
			sys.MaxGPUs = max(sys.MaxGPUs, load.GPUs[i])
		}
	}
	share := newBidShare(load, tree, arena)
	cands := make([][]candidate, len(jobs))
	for k, job := range jobs {
		if err := checkWindowJob(k, job); err != nil {
			return nil, err
		}
		cands[k] = jobCandidates(job, load, 4*opts.MaxBids, share)
	}
	contention := newContention(cands, n)
	total := 0
	prios := make([]int64, len(jobs))
	shift := int64(0)
	if opts.ShiftPriorities && len(jobs) > 0 {
		shift = 1 - slices.MinFunc(jobs, func(a, b WindowJob) int { return cmp.Compare(a.Priority, b.Priority) }).Priority
	}
	lvls := arena.levelsOf(tree)
	var totals []item // per bid, in order: its cores and GPUs in all
	for k, job := range jobs {
		prios[k] = job.Priority + shift
		out := Job{ID: job.ID, Priority: prios[k], Type: job.Type, Bids: []Bid{},
			Req: &Request{Cores: job.Cores, Nodes: job.Nodes, GPUsPerNode: job.GPUsMin}}
		for _, c := range rank(cands[k], contention, opts.MaxBids) {
			if opts.MaxTotalBids > 0 && total >= opts.MaxTotalBids {
				break
			}
			uses := c.made(job, share.uses)
			lvl := c.level
			if !opts.SwitchLevel {
				lvl = lvls.ofAscending(uses) // a stretch's nodes, or the first of them, ascend
			}
			out.Bids = append(out.Bids, Bid{Uses: uses, Level: lvl, Cost: Cost(sys, len(uses), lvl, c.gpus)})
			if arena.recycle {
				totals = append(totals, item{cores: c.cores, gpus: c.gpus * len(uses)})
			}
			total++
		}
		p.Jobs = append(p.Jobs, out)
		if arena.recycle { // the planner's problem, which nobody changes
			p.totals = append(p.totals, totals[len(totals)-len(out.Bids):len(totals):len(totals)])
		}
	}
	p.Alpha = Alpha(prios)
	// The planner's uses are laid out above from the load itself, so they
	// are valid by construction: walking them all again was a tenth of a
	// replay (its tests still do, checkUses).
	return p, p.validate(!arena.recycle || arena.checkUses)
}

func checkWindowJob(k int, j WindowJob) error {
	bad := j.Cores <= 0 || j.Nodes < 0 || (j.Nodes > 0 && j.Cores < j.Nodes) ||
		j.GPUsMin < 0 || j.GPUsMax < j.GPUsMin || (j.Nodes == 0 && j.GPUsMax > 0)
	if bad {
		return &Error{Path: fmt.Sprintf("window[%d]", k), Err: ErrInvalid,
			Msg: fmt.Sprintf("job %d: %d cores on %d nodes with %d-%d GPUs per node is not a request", j.ID, j.Cores, j.Nodes, j.GPUsMin, j.GPUsMax)}
	}
	return nil
}

// nodesets scans the nodes below each switch, leaves first, for runs of
// nodes with free cores; a run already found at a lower level is kept once.
// With a span (WindowJob.Span), nodes outside it are passed over: they
// neither join nor break a run, and neighbours are neighbours in the span.
func nodesets(tree *topology.Tree, load Load, span *bitset.BitSet) []nodeset {
	var sets []nodeset
	seen := map[[2]int]bool{}
	order := make([]int, len(tree.Switches))
	for s := range order {
		order[s] = s
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(tree.Switches[a].Level, tree.Switches[b].Level) })
	for _, s := range order {
		var run []int
		flush := func() {
			if len(run) > 0 && !seen[[2]int{run[0], run[len(run)-1]}] {
				seen[[2]int{run[0], run[len(run)-1]}] = true
				sets = append(sets, nodeset{nodes: run, level: tree.Switches[s].Level})
			}
			run = nil
		}
		last := -2
		below := tree.Nodes(s)
		for u, ok := below.NextSet(0); ok; u, ok = below.NextSet(u + 1) {
			i := int(u)
			if span != nil && !span.Test(u) {
				continue
			}
			if load.CPUs[i] == 0 || i != last+1 && (span == nil || !nextTo(span, last, i)) {
				flush()
			}
			if load.CPUs[i] > 0 {
				run = append(run, i)
			}
			last = i
		}
		flush()
	}
	return sets
}

// nextTo reports whether node i comes right after node last in span's
// order (i is not last+1, which is next in any order). last is -2 before
// any node.
func nextTo(span *bitset.BitSet, last, i int) bool {
	if last < 0 {
		return false
	}
	next, ok := span.NextSet(uint(last + 1))
	return ok && int(next) == i
}

// commonLevel is the level of the lowest switch above all the nodes.
func commonLevel(tree *topology.Tree, uses []Use) int {
	b := bitset.New(uint(tree.NodeCount()))
	for _, u := range uses {
		b.Set(uint(u.Node))
	}
	lvl, ok := tree.LowestCommonLevel(b)
	if !ok {
		return tree.MaxLevel
	}
	return lvl
}
