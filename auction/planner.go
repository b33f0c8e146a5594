package auction

import (
	"context"
	"fmt"
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
// A job is bid for when its request is of seed 001's kinds: CPUs in all
// (or one a node), on exactly MinNodes nodes (MinNodes = MaxNodes) or on
// any number (MinNodes 0 or 1 and no MaxNodes), at most one CPU a node
// asked for, and at most a "gpu" GRES range per node. Bids stay on its partition's
// available nodes that are not excluded and have its memory free. Jobs
// with features, required nodes, contiguity, other GRES or other node
// ranges get no bids (they wait for a pass without the planner). The zero
// value is usable.
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
	// ranks every job of higher rank is worth more (the seed's proof),
	// and every bid is worth at least 1.
	QueuePriorities bool
	// Auctions is how many auctions a pass holds at most (0 is 1: seed
	// 001's one auction a pass). After an auction that started jobs, the
	// jobs that did not win bid again on what the winners left, as the
	// next pass would, and the pass ends at an auction that starts
	// nothing.
	// Every job bids on the free resources of the pass, so a pass of
	// one auction leaves what a winner's bid took from a loser's bids
	// idle until the next event: on seed 001's workloads that is often
	// for a whole job's run, while a pass of the schedule loop tries
	// each job on what the jobs before it left.
	Auctions int
	// ReserveHead protects the window's head as EASY backfill does. It is
	// NOT in seed 001's AUCSCHED3, which has no reservations: it is what
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
}

var _ queue.Planner = (*Planner)(nil)

// Plan implements queue.Planner.
func (pl *Planner) Plan(ctx context.Context, snap *selectnodes.Snapshot, window []queue.Job, now time.Time) ([]queue.Decision, error) {
	gpu := pl.GPU
	if gpu == "" {
		gpu = "gpu"
	}
	rounds := max(1, pl.Auctions)
	var out []queue.Decision
	var head *reservation // ReserveHead's, kept across the rounds
	for k := 0; k < rounds && len(window) > 0; k++ {
		won, err := pl.auction(ctx, snap, window, gpu, now, &head)
		if err != nil && k > 0 && ctx.Err() != nil {
			break // out of time: the earlier rounds' winners stand
		}
		if err != nil {
			return nil, err
		}
		out = append(out, won...)
		if len(won) == 0 || k+1 == rounds {
			break
		}
		if window, err = takeWinners(snap, window, won, now); err != nil {
			break // a winner the snapshot refuses: the queue will say why
		}
	}
	return out, nil
}

// takeWinners puts the winners on the snapshot (the planner's own copy of
// the load), so that the next round bids on what they left, and returns
// the jobs of window that did not win, in order.
func takeWinners(snap *selectnodes.Snapshot, window []queue.Job, won []queue.Decision, now time.Time) ([]queue.Job, error) {
	layout := make(map[queue.JobID][]selectnodes.NodeUse, len(won))
	for _, d := range won {
		layout[d.Job] = d.Layout
	}
	var rest []queue.Job
	for k := range window {
		j := &window[k]
		uses, ok := layout[j.ID]
		if !ok {
			rest = append(rest, *j)
			continue
		}
		p, err := snap.PlaceExact(&j.Request, uses)
		if err == nil {
			err = snap.Allocate(j.ID, p, now, now.Add(j.TimeLimit))
		}
		if err != nil {
			return nil, err
		}
	}
	return rest, nil
}

// auction holds one auction: bids for the window's jobs of the kinds it
// bids for, on the snapshot's free cores and GPUs, and the winners'
// decisions. With ReserveHead, *head is the pass's reservation (made here
// when there is none yet and the head has no bid).
func (pl *Planner) auction(ctx context.Context, snap *selectnodes.Snapshot, window []queue.Job, gpu string, now time.Time, head **reservation) ([]queue.Decision, error) {
	load, tree, err := snapshotLoad(snap, gpu)
	if err != nil {
		return nil, err
	}
	wjobs, byID := pl.windowJobs(snap, window, gpu)
	if len(wjobs) == 0 {
		return nil, nil
	}
	if pl.ReserveHead {
		rd := &auctionRound{snap: snap, wjobs: wjobs, byID: byID, load: load, tree: tree, gpu: gpu, now: now}
		return pl.protectHead(ctx, rd, head)
	}
	p, err := GenerateBids(wjobs, load, tree, pl.Bids)
	if err != nil {
		return nil, fmt.Errorf("auction planner: %w", err)
	}
	won, _, err := pl.solve(ctx, p, byID, gpu)
	return won, err
}

// solve solves the auction and returns its winners' decisions.
func (pl *Planner) solve(ctx context.Context, p *Problem, byID map[int64]*queue.Job, gpu string) ([]queue.Decision, *Solution, error) {
	sol, err := Solve(ctx, p, pl.solveOptions())
	if err != nil {
		return nil, nil, fmt.Errorf("auction planner: %w", err)
	}
	var out []queue.Decision
	for k, i := range sol.Selection {
		if i >= 0 {
			job := byID[p.Jobs[k].ID]
			out = append(out, queue.Decision{Job: job.ID, Layout: bidLayout(&p.Jobs[k].Bids[i], job, gpu)})
		}
	}
	return out, sol, nil
}

// windowJobs are the window's jobs of the kinds the auction bids for, with
// their ranks as priorities unless QueuePriorities, and the queue jobs by
// ID.
func (pl *Planner) windowJobs(snap *selectnodes.Snapshot, window []queue.Job, gpu string) ([]WindowJob, map[int64]*queue.Job) {
	var wjobs []WindowJob
	byID := map[int64]*queue.Job{}
	for k := range window {
		j := &window[k]
		if w, ok := windowJob(snap, j, gpu); ok {
			wjobs = append(wjobs, w)
			byID[w.ID] = j
		}
	}
	if !pl.QueuePriorities {
		for k := range wjobs {
			wjobs[k].Priority = int64(len(wjobs) - k + 1)
		}
	}
	return wjobs, byID
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
// cores and GPUs, and the job's memory per node.
func bidLayout(bid *Bid, job *queue.Job, gpu string) []selectnodes.NodeUse {
	layout := make([]selectnodes.NodeUse, len(bid.Uses))
	for x, u := range bid.Uses {
		layout[x] = selectnodes.NodeUse{Node: u.Node, CPUs: u.Cores, Memory: job.Request.MinMemoryPerNode}
		if u.GPUs > 0 {
			layout[x].GRES = []selectnodes.GRES{{Name: gpu, Count: int64(u.GPUs)}}
		}
	}
	return layout
}

// snapshotLoad reads free cores and GPUs of the available nodes, and the
// switch tree (one switch over every node when the cluster has none).
func snapshotLoad(snap *selectnodes.Snapshot, gpu string) (Load, *topology.Tree, error) {
	n := snap.NodeCount()
	load := Load{CPUs: make([]int, n), GPUs: make([]int, n)}
	avail := snap.Avail()
	for i := range n {
		if !avail.Test(uint(i)) {
			continue
		}
		load.CPUs[i] = max(0, snap.FreeCPUs(i))
		load.GPUs[i] = int(min(max(0, snap.FreeGRES(i, gpu, "")), MaxPerNode))
		for _, g := range snap.Node(i).GRES {
			if g.Name == gpu {
				load.MaxGPUs = max(load.MaxGPUs, int(min(g.Count, MaxPerNode)))
			}
		}
	}
	if tree := snap.Topology(); tree != nil {
		return load, tree, nil
	}
	names := make([]string, n)
	for i := range names {
		names[i] = snap.Node(i).Name
	}
	tree, err := topology.New(names, []topology.SwitchSpec{{Name: "all", Nodes: names}})
	if err != nil {
		return Load{}, nil, fmt.Errorf("auction planner: %w", err)
	}
	return load, tree, nil
}

// windowJob turns a queue job into a bid-generation job, or false when its
// request is not of a kind the auction bids for.
func windowJob(snap *selectnodes.Snapshot, j *queue.Job, gpu string) (WindowJob, bool) {
	r := &j.Request
	if r.Features != nil || len(r.Required) > 0 || r.Contiguous || len(r.GRES) > 1 || r.MinCPUsPerNode > 1 {
		return WindowJob{}, false
	}
	w := WindowJob{ID: int64(j.ID), Priority: j.Priority, Cores: r.CPUs}
	switch {
	case r.MinNodes > 0 && r.MaxNodes == r.MinNodes:
		w.Nodes = r.MinNodes
	case r.MinNodes <= 1 && r.MaxNodes == 0:
	default:
		return WindowJob{}, false
	}
	if w.Cores == 0 {
		w.Cores = max(1, w.Nodes)
	}
	if len(r.GRES) == 1 {
		g := r.GRES[0]
		if g.Name != gpu || g.Type != "" || w.Nodes == 0 || g.Max > MaxPerNode {
			return WindowJob{}, false
		}
		w.GPUsMin, w.GPUsMax = int(g.Min), int(max(g.Min, g.Max))
	}
	if w.Cores < w.Nodes {
		return WindowJob{}, false
	}
	w.Eligible = jobNodes(snap, r)
	return w, true
}

// jobNodes is the partition's available nodes, less exclusions, with the
// job's memory per node free.
func jobNodes(snap *selectnodes.Snapshot, r *selectnodes.Request) *bitset.BitSet {
	part := r.Partition
	if part == "" {
		part = snap.DefaultPartition()
	}
	nodes, ok := snap.PartitionNodes(part)
	if !ok {
		return bitset.New(uint(snap.NodeCount()))
	}
	nodes.InPlaceIntersection(snap.Avail())
	if r.ExcludeNodes != nil {
		nodes.InPlaceDifference(r.ExcludeNodes)
	}
	for _, name := range r.Excluded {
		if i, ok := snap.NodeIndex(name); ok {
			nodes.Clear(uint(i))
		}
	}
	for i, ok := nodes.NextSet(0); ok; i, ok = nodes.NextSet(i + 1) {
		if snap.FreeMemory(int(i)) < r.MinMemoryPerNode {
			nodes.Clear(i)
		}
	}
	return nodes
}
