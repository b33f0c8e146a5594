package auction

import (
	"context"
	"fmt"
	"slices"
	"sync/atomic"
	"time"

	"github.com/bits-and-blooms/bitset"
	"github.com/hpcsched/hpcsched/queue"
	"github.com/hpcsched/hpcsched/selectnodes"
	"github.com/hpcsched/hpcsched/topology"
)

// Planner is AUCSCHED3 as a queue.Planner: each pass it takes the window
// queue hands it (eligible jobs in queue order; queue.WithPlanner sets its
// size), makes bids on the snapshot's free cores and GPUs, solves within
// Budget, and starts the winners on exactly the cores and GPUs of their
// winning bids (queue.Decision.Layout), each node also getting the job's
// memory per node.
//
// A job is bid for when its request is of the AUCSCHED3 paper's kinds: CPUs in all
// (or one a node), on exactly MinNodes nodes (MinNodes = MaxNodes) or on
// any number (MinNodes 0 or 1 and no MaxNodes), and at most one GRES
// request, of GPUs (any type, or one type) on a node count. Bids come from
// what selectnodes' Offer says each node can give the job under the
// snapshot's load, so they honour everything the pipeline's own selection
// does: the partition and its limits, availability, excluded nodes,
// features (one matching-OR alternative for all of a bid's nodes: the one
// offering the most CPUs), memory (per node, per CPU, the partition's
// defaults), --exclusive (whole idle nodes) and GRES types. The winners'
// layouts are tried in order on the planner's copy of the load before
// they are returned, so the queue never refuses one; a winner that no
// longer fits beside the ones before it (the bids share cores and GPUs,
// not memory) waits for the next pass.
//
// The jobs it cannot express it declines, and the queue's own selection
// places them in the same pass (queue.Decliner): node ranges,
// --contiguous, required nodes, CPUs per node, counted features, other or
// several GRES, GPUs without a node count; and, from the snapshot, jobs
// the pipeline refuses whatever the layout (a partition limit, no node
// meeting the request), so that the queue gives the reason or fails
// them. The zero value is usable.
type Planner struct {
	Bids BidOptions // the paper's form by default
	// Budget is the solver's time per auction (0: 100 ms), so a pass of
	// several Auctions may take several Budgets. A negative Budget
	// sets no time limit: only Solve's work budgets (Rounds, MaxNodes)
	// stop the search, so the same pass always decides the same — what a
	// simulation needs.
	Budget time.Duration
	Solve  Options // further solver options (TimeLimit is Budget)
	GPU    string  // the GRES name of GPUs ("gpu" when empty)
	// QueuePriorities bids with the jobs' own priorities. By default a
	// job's priority P_j is its rank in the window (queue order): the
	// last biddable job gets 2, each one before it one more. Queue
	// priorities may all be equal (FCFS gives every job 1 and orders by
	// submission), and then the auction would ignore the queue's order
	// and, with alpha = P_min_diff/3, value a bid costing 3 at nothing,
	// so a job that needs the whole machine would never start. With
	// ranks every job of higher rank is worth more (the AUCSCHED3 paper's proof),
	// and every bid is worth at least 1.
	QueuePriorities bool
	// Auctions is how many auctions a pass holds at most (0 is 1: the
	// AUCSCHED3 paper's one auction a pass). After an auction that started jobs, the
	// jobs that did not win bid again on what the winners left, as the
	// next pass would, and the pass ends at an auction that starts
	// nothing.
	// Every job bids on the free resources of the pass, so a pass of
	// one auction leaves what a winner's bid took from a loser's bids
	// idle until the next event: on the AUCSCHED3 paper's workloads that is often
	// for a whole job's run, while a pass of the schedule loop tries
	// each job on what the jobs before it left.
	Auctions int
	// ReserveHead protects the window's head as EASY backfill does. It is
	// NOT in the AUCSCHED3 paper's algorithm, which has no reservations: it is what
	// Slurm's backfill would add beside the plug-in. The head is the first
	// job of the window (queue order) not started in the pass. When it
	// has bids but loses (one big bid can lose to several small ones), it
	// starts on its cheapest bid and the others bid on what it leaves.
	// When it has none, it gets a reservation: its earliest start T and
	// nodes by SelectNodes(WillRun) on the snapshot, which the window's
	// jobs that would still run at T keep off (no bids on those nodes)
	// while jobs ending by T bid as before, so no start of the pass
	// delays it; the reservation holds across the pass's auctions. A head
	// without a bid that the pipeline can start now (the free resources
	// exist, but in no run of nodes bids are made from) starts at once on
	// the pipeline's nodes. Without it, a job too big for the free
	// resources is passed over until the machine happens to drain
	// (BENCHMARKS.md "Auction: a reservation for the window head").
	ReserveHead bool
	// KeepBidless keeps a job the auction has no bid for in the
	// planner's hands, waiting for a bid, as the AUCSCHED3 paper's
	// algorithm does, while anything runs: on an idle machine, or when no
	// run of the idle machine could hold it, it can never get one, and is
	// declined as without KeepBidless.
	// By default (and unless ReserveHead, which handles the head without a
	// bid itself) such a job is declined, so the queue's own selection
	// tries it in the same pass: bids come from runs of consecutive
	// nodes, and a request no run fits (a partition whose nodes
	// interleave with another's, say) would otherwise never start.
	KeepBidless bool
	// unshared gives every job an offer and room tables of its own, as
	// if no two jobs were alike: the slow path, which tests compare with
	// the shared one.
	unshared bool
	// checkProblems validates the uses of every problem the planner makes
	// (Problem.Validate in full), which it otherwise skips as valid by
	// construction: for its tests.
	checkProblems bool
	// uses is the arena of bids' uses a pass takes and gives back
	// (bidgen_arena.go), so that passes recycle one another's.
	uses atomic.Pointer[useArena]
	// models is the use lists the full solves' models hand on to one
	// another (modelMem).
	models atomic.Pointer[modelMem]
}

var _ queue.Planner = (*Planner)(nil)

// Plan implements queue.Planner. It places its winners on snap, as the
// queue's contract lets it (the pass's own copy of the load): a caller of
// its own gives each call a fresh Snapshot, since on one that already
// holds a window's winners those jobs win nothing again. A nil Planner or
// snap is an error. Of a window of more than MaxJobs jobs, the first
// MaxJobs are decided; the others wait for a later pass.
func (pl *Planner) Plan(ctx context.Context, snap *selectnodes.Snapshot, window []queue.Job, now time.Time) ([]queue.Decision, error) {
	if pl == nil || snap == nil {
		return nil, &Error{Err: ErrInvalid, Msg: "auction planner: nil *Planner or *selectnodes.Snapshot"}
	}
	gpu := pl.gpu()
	rounds := max(1, pl.Auctions)
	// A problem holds at most MaxJobs jobs: a larger window (a queue's
	// WithPlanner window of 20,000, say) failed every pass, and nothing
	// ever started. Its front is auctioned; the rest wait, as jobs past a
	// smaller window do.
	window = window[:min(len(window), MaxJobs)]
	var out []queue.Decision
	var head *reservation // ReserveHead's, kept across the rounds
	// Each job's offer is asked at most once a pass, and shared by the
	// jobs alike (passOffers): it reads the snapshot's load as the rounds
	// change it, except for its node set, which only shrinks in effect (a
	// node the winners filled offers no CPU), and takeWinners checks
	// every winner anyway.
	uses := pl.arena() // the bids' uses of the pass's problems, none of which outlives the pass
	defer pl.release(uses)
	offers := newPassOffers(pl.unshared, uses)
	nodes, err := readNodes(snap, gpu) // the configuration's part, the same every round
	if err != nil {
		return nil, err
	}
	for k := 0; k < rounds && len(window) > 0; k++ {
		offers.round = k
		won, declined, err := pl.auction(ctx, snap, nodes, window, gpu, now, &head, offers)
		if err != nil && k > 0 && ctx.Err() != nil {
			break // out of time: the earlier rounds' winners stand
		}
		if err != nil {
			return nil, err
		}
		if k == 0 && len(declined) > 0 {
			out = append(out, declined...)
			window = withoutDeclined(window, declined)
		}
		won, window = takeWinners(snap, window, won, now)
		out = append(out, won...)
		if len(won) == 0 {
			break
		}
	}
	return out, nil
}

// withoutDeclined is window less the jobs declined.
func withoutDeclined(window []queue.Job, declined []queue.Decision) []queue.Job {
	gone := make(map[queue.JobID]bool, len(declined))
	for _, d := range declined {
		gone[d.Job] = true
	}
	var rest []queue.Job
	for _, j := range window {
		if !gone[j.ID] {
			rest = append(rest, j)
		}
	}
	return rest
}

// Declines implements queue.Decliner: the requests no bid can express.
func (pl *Planner) Declines(j queue.Job) bool {
	_, ok := shapeOf(&j.Request, pl.gpu())
	return !ok
}

func (pl *Planner) gpu() string {
	if pl.GPU == "" {
		return "gpu"
	}
	return pl.GPU
}

// takeWinners puts the winners on the snapshot (the planner's own copy of
// the load), in order, so that the next round bids on what they left, and
// returns those it accepted and the jobs of window that did not win, in
// order. A winner the snapshot refuses (it fits the bids' cores and GPUs
// but not beside the others' memory, say) is left out: it waits.
func takeWinners(snap *selectnodes.Snapshot, window []queue.Job, won []queue.Decision, now time.Time) ([]queue.Decision, []queue.Job) {
	byID := make(map[queue.JobID]*queue.Job, len(window))
	for k := range window {
		byID[window[k].ID] = &window[k]
	}
	var ok []queue.Decision
	taken := map[queue.JobID]bool{}
	for _, d := range won {
		j := byID[d.Job]
		if j == nil {
			continue
		}
		p, err := snap.PlaceExact(&j.Request, d.Layout)
		if err == nil {
			err = snap.Allocate(j.ID, p, now, now.Add(j.TimeLimit))
		}
		if err == nil {
			ok = append(ok, d)
			taken[j.ID] = true
		}
	}
	if len(taken) == 0 {
		return ok, window
	}
	rest := make([]queue.Job, 0, len(window)-len(taken)) // a job is large: no copy grown twice over
	for _, j := range window {
		if !taken[j.ID] {
			rest = append(rest, j)
		}
	}
	return ok, rest
}

// auction holds one auction: bids for the window's jobs of the kinds it
// bids for, on what the snapshot's nodes offer each, and the winners'
// decisions, and the jobs it declines. With ReserveHead, *head is the
// pass's reservation (made here when there is none yet and the head has
// no bid).
func (pl *Planner) auction(ctx context.Context, snap *selectnodes.Snapshot, nodes *passNodes, window []queue.Job, gpu string, now time.Time, head **reservation, cache *passOffers) ([]queue.Decision, []queue.Decision, error) {
	load, tree := nodes.load(snap, gpu), nodes.tree
	rl := newRunLimits(load)
	if pl.KeepBidless { // without it a job with no bid now is declined anyway
		rl.idle = nodes.idleLimits
	}
	wjobs, byID, offers, declined := pl.windowJobs(snap, window, gpu, cache, rl)
	if len(wjobs) == 0 {
		return nil, declined, nil
	}
	if pl.ReserveHead {
		rd := &auctionRound{snap: snap, wjobs: wjobs, byID: byID, offers: offers, load: load, tree: tree, now: now, uses: cache.uses}
		won, err := pl.protectHead(ctx, rd, head)
		return won, declined, err
	}
	// A job without a bid on an idle machine never gets one: even a
	// planner that keeps bidless jobs declines them then.
	keep := pl.KeepBidless && snap.JobsOnTotal() > 0
	if noneMayBid(wjobs) {
		// No job has a node to bid on: no bids, no winners.
		if !keep {
			for _, w := range wjobs {
				declined = append(declined, queue.Decision{Job: byID[w.ID].ID, Decline: true})
			}
		}
		return nil, declined, nil
	}
	p, err := generateBids(wjobs, load, tree, pl.Bids, cache.uses)
	if err != nil {
		return nil, nil, fmt.Errorf("auction planner: %w", err)
	}
	if !keep {
		for _, j := range p.Jobs {
			if len(j.Bids) == 0 {
				declined = append(declined, queue.Decision{Job: byID[j.ID].ID, Decline: true})
			}
		}
	}
	won, _, err := pl.solve(ctx, p, byID, offers, false)
	return won, declined, err
}

// noneMayBid reports whether no job of wjobs has an eligible node, so
// that GenerateBids would give none of them a bid (the last auction of
// most passes, and passes that free too little for any job). A window
// over GenerateBids' budget is left to it, to refuse.
func noneMayBid(wjobs []WindowJob) bool {
	return len(wjobs) <= MaxJobs && !slices.ContainsFunc(wjobs, func(w WindowJob) bool { return w.Eligible == nil || w.Eligible.Any() })
}

// solve solves the auction and returns its winners' decisions. The
// solver gets the problem with its nodes merged where no constraint
// tells them apart (mergeNodes): the same selections, feasible alike, of
// the same objective, in a fraction of the uses. Without a bid there is
// nothing to solve (the last auction of every pass). With headCut the
// solve may stop once p's first job surely loses: its answer then leaves
// that job out, as the whole solve's would (quick_head.go).
func (pl *Planner) solve(ctx context.Context, p *Problem, byID map[int64]*queue.Job, offers map[int64]*selectnodes.Offer, headCut bool) ([]queue.Decision, *Solution, error) {
	if !slices.ContainsFunc(p.Jobs, func(j Job) bool { return len(j.Bids) > 0 }) {
		none := make(Selection, len(p.Jobs))
		for k := range none {
			none[k] = -1
		}
		return nil, &Solution{Selection: none, Optimal: true, Stopped: "optimal"}, nil
	}
	sol, err := pl.solveMerged(ctx, p, headCut)
	if err != nil {
		return nil, nil, fmt.Errorf("auction planner: %w", err)
	}
	var out []queue.Decision
	for k, i := range sol.Selection {
		if i >= 0 {
			id := p.Jobs[k].ID
			out = append(out, queue.Decision{Job: byID[id].ID, Layout: bidLayout(&p.Jobs[k].Bids[i], offers[id])})
		}
	}
	return out, sol, nil
}

// windowJobs are the window's jobs of the kinds the auction bids for, with
// their ranks as priorities unless QueuePriorities, the queue jobs and
// their offers by ID, and the decisions declining the others.
func (pl *Planner) windowJobs(snap *selectnodes.Snapshot, window []queue.Job, gpu string, cache *passOffers, rl *runLimits) ([]WindowJob, map[int64]*queue.Job, map[int64]*selectnodes.Offer, []queue.Decision) {
	var wjobs []WindowJob
	var declined []queue.Decision
	byID := map[int64]*queue.Job{}
	offers := map[int64]*selectnodes.Offer{}
	for k := range window {
		j := &window[k]
		w, o, ok := windowJob(snap, j, gpu, cache, rl)
		if !ok {
			declined = append(declined, queue.Decision{Job: j.ID, Decline: true})
			continue
		}
		wjobs = append(wjobs, w)
		byID[w.ID], offers[w.ID] = j, o
	}
	if !pl.QueuePriorities {
		for k := range wjobs {
			wjobs[k].Priority = int64(len(wjobs) - k + 1)
		}
	}
	return wjobs, byID, offers, declined
}

// solveOptions is Solve with the time limit Budget says.
func (pl *Planner) solveOptions() Options {
	opts := pl.Solve
	switch {
	case pl.Budget < 0:
		opts.TimeLimit = 0
	case pl.Budget == 0:
		opts.TimeLimit = 100 * time.Millisecond
	default:
		opts.TimeLimit = pl.Budget
	}
	return opts
}

// bidLayout is a winning bid as the job's per-node layout: the bid's
// cores and GPUs (of the types the node has free), and the memory the
// pipeline gives that many CPUs (the offer's Use).
func bidLayout(bid *Bid, o *selectnodes.Offer) []selectnodes.NodeUse {
	layout := make([]selectnodes.NodeUse, len(bid.Uses))
	for x, u := range bid.Uses {
		layout[x] = o.Use(u.Node, u.Cores, int64(u.GPUs))
	}
	return layout
}

// passNodes is what a pass reads of the snapshot's nodes once: the
// available nodes, the most GPUs a node has (Load.MaxGPUs), and the
// switch tree (one switch over every node when the cluster has none).
// None of it changes as the pass's rounds add winners.
type passNodes struct {
	avail   *bitset.BitSet
	maxGPUs int
	tree    *topology.Tree
	// idleLoad is the available nodes' cores and GPUs with nothing
	// running; idle its limits, made when first asked.
	idleLoad Load
	idle     *runLimits
}

func readNodes(snap *selectnodes.Snapshot, gpu string) (*passNodes, error) {
	n := snap.NodeCount()
	pn := &passNodes{avail: snap.Avail(), tree: snap.Topology()}
	pn.idleLoad = Load{CPUs: make([]int, n), GPUs: make([]int, n)}
	for i := range n {
		if !pn.avail.Test(uint(i)) {
			continue
		}
		g := int(min(max(0, snap.MostGRES(i, gpu)), MaxPerNode)) // no copy of the node
		pn.maxGPUs = max(pn.maxGPUs, g)
		pn.idleLoad.CPUs[i], pn.idleLoad.GPUs[i] = snap.MostCPUs(i), g
	}
	pn.idleLoad.MaxGPUs = pn.maxGPUs
	if pn.tree != nil {
		return pn, nil
	}
	names := make([]string, n)
	for i := range names {
		names[i] = snap.Node(i).Name
	}
	tree, err := topology.New(names, []topology.SwitchSpec{{Name: "all", Nodes: names}})
	if err != nil {
		return nil, fmt.Errorf("auction planner: %w", err)
	}
	pn.tree = tree
	return pn, nil
}

// idleLimits is runLimits on the available nodes with nothing running:
// a job they rule out gets no bid whatever ends, so the auction declines
// it (Schedule's selection then places it) rather than hold it forever.
// Asked only for jobs that cannot bid now, once a pass.
func (pn *passNodes) idleLimits() *runLimits {
	if pn.idle == nil {
		pn.idle = newRunLimits(pn.idleLoad)
	}
	return pn.idle
}

// load reads the free cores and GPUs of the available nodes now.
func (pn *passNodes) load(snap *selectnodes.Snapshot, gpu string) Load {
	n := snap.NodeCount()
	load := Load{CPUs: make([]int, n), GPUs: make([]int, n), MaxGPUs: pn.maxGPUs}
	for i, ok := pn.avail.NextSet(0); ok && int(i) < n; i, ok = pn.avail.NextSet(i + 1) {
		load.CPUs[i] = max(0, snap.FreeCPUs(int(i)))
		load.GPUs[i] = int(min(max(0, snap.FreeGRES(int(i), gpu, "")), MaxPerNode))
	}
	return load
}

// shape is the bid job of a request, from the request alone: its cores,
// node count (0: any number) and GPU range; false when no bid can
// express it.
func shape(r *selectnodes.Request, gpu string) (WindowJob, bool) {
	rs, ok := shapeOf(r, gpu)
	if !ok {
		return WindowJob{}, false
	}
	return WindowJob{Cores: r.CPUs, Nodes: rs.nodes, GPUsMin: rs.gpusMin, GPUsMax: rs.gpusMax}, true
}

// requestShape is shape's node count and GPU range.
type requestShape struct{ nodes, gpusMin, gpusMax int }

// shapeOf is shape without the bid job: Declines asks it of every
// queued job each pass, and needs only whether a bid can express it.
func shapeOf(r *selectnodes.Request, gpu string) (requestShape, bool) {
	if len(r.Required) > 0 || r.Contiguous || len(r.GRES) > 1 || r.MinCPUsPerNode > 1 ||
		(r.Features != nil && len(r.Features.Counts()) > 0) {
		return requestShape{}, false
	}
	var rs requestShape
	switch {
	case r.MinNodes > 0 && r.MaxNodes == r.MinNodes:
		rs.nodes = r.MinNodes
	case r.MinNodes <= 1 && r.MaxNodes == 0:
	default:
		return requestShape{}, false
	}
	if len(r.GRES) == 1 {
		g := r.GRES[0]
		if g.Name != gpu || rs.nodes == 0 || g.Max > MaxPerNode || g.Min < 0 || g.Max < g.Min {
			return requestShape{}, false
		}
		rs.gpusMin, rs.gpusMax = int(g.Min), int(g.Max)
	}
	return rs, true
}

// windowJob turns a queue job into a bid-generation job on what the
// snapshot offers it, or false when the auction declines it: a request
// shape no bid expresses, one the pipeline refuses whatever the layout
// (the offer's error: the queue's selection then gives the reason), or
// one no run of an idle machine holds (its cores on nodes of different
// sizes that are not neighbours: Schedule's selection places it). A job
// that no run of the load can hold (rl) gets no eligible node, and so
// no bid, without its nodes being asked (its offer is nil).
func windowJob(snap *selectnodes.Snapshot, j *queue.Job, gpu string, cache *passOffers, rl *runLimits) (WindowJob, *selectnodes.Offer, bool) {
	w, ok := shape(&j.Request, gpu)
	if !ok {
		return WindowJob{}, nil, false
	}
	jo := cache.job(snap, j)
	if jo.err != nil {
		return WindowJob{}, nil, false
	}
	if n := jo.terms.Counts; w.Nodes == 0 && (n.Min > 1 || n.Max > 0) {
		if n.Min != n.Max || w.GPUsMax > 0 {
			return WindowJob{}, nil, false // a partition's node range
		}
		w.Nodes = n.Min
	}
	w.ID, w.Priority = int64(j.ID), j.Priority
	if w.Cores == 0 {
		w.Cores = max(1, w.Nodes)
	}
	if w.Cores < w.Nodes {
		return WindowJob{}, nil, false
	}
	w.Span = jo.span()
	if !rl.mayBid(w) {
		if rl.idle != nil && !rl.idle().mayBid(w) {
			return WindowJob{}, nil, false // no bid even on an idle machine: declined
		}
		w.Eligible, w.Whole = bitset.New(0), jo.terms.Whole // no run holds it: no node need be asked
		return w, nil, true
	}
	o, err := jo.offer(snap, &j.Request)
	if err != nil {
		return WindowJob{}, nil, false
	}
	w.Eligible, w.Room = cache.nodes(snap, jo.share, len(j.Request.GRES) == 1 && j.Request.GRES[0].Type != "", gpu)
	w.Whole, w.alike = o.Whole(), jo.share.alike
	return w, o, true
}

// roomTable asks the offer once per node of eligible (dropping those with
// no CPU to give) and returns the answers as Room: bid generation asks a
// node's room many times over (a fifth of a planner pass when it asked
// the offer each time).
func roomTable(o *selectnodes.Offer, eligible *bitset.BitSet, n int) func(int) int {
	tab := make([]int32, n)
	for i, ok := eligible.NextSet(0); ok; i, ok = eligible.NextSet(i + 1) {
		if c := o.CPUs(int(i)); c > 0 {
			tab[i] = int32(min(c, MaxPerNode))
		} else {
			eligible.Clear(i)
		}
	}
	return func(node int) int { return int(tab[node]) }
}

// offerNodes is the nodes the offer has for the job: within the
// matching-OR alternative offering the most CPUs, if the request has one;
// for a GPU type, only nodes whose free GPUs are all of that type (the
// auction counts a node's GPUs as one resource).
func offerNodes(snap *selectnodes.Snapshot, o *selectnodes.Offer, typed bool, gpu string) *bitset.BitSet {
	nodes := o.Nodes()
	if alts := o.Alternatives(); alts != nil {
		best, most := nodes, -1
		for _, a := range alts {
			cpus := 0
			for i, ok := a.NextSet(0); ok; i, ok = a.NextSet(i + 1) {
				cpus += o.CPUs(int(i))
			}
			if cpus > most {
				best, most = a, cpus
			}
		}
		nodes = best
	}
	if typed {
		for i, ok := nodes.NextSet(0); ok; i, ok = nodes.NextSet(i + 1) {
			if o.GRES(int(i), 0) != snap.FreeGRES(int(i), gpu, "") {
				nodes.Clear(i)
			}
		}
	}
	return nodes
}
