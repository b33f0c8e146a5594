package auction

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/bits-and-blooms/bitset"
	"github.com/hpcsched/hpcsched/queue"
	"github.com/hpcsched/hpcsched/selectnodes"
	"github.com/hpcsched/hpcsched/topology"
)

// reservation is Planner.ReserveHead's: the head's earliest start and the
// nodes it will take then, as EASY's shadow time. It is not part of the
// AUCSCHED3 paper's algorithm.
type reservation struct {
	job   queue.JobID
	now   time.Time // the pass's time, from which the window's jobs' ends count
	start time.Time // the head's earliest start (now when it can start at once)
	nodes *bitset.BitSet
}

// auctionRound is what one auction of a pass bids with.
type auctionRound struct {
	snap   *selectnodes.Snapshot
	wjobs  []WindowJob
	byID   map[int64]*queue.Job
	offers map[int64]*selectnodes.Offer
	load   Load
	tree   *topology.Tree
	now    time.Time
	uses   *useArena // the pass's: each problem below is dropped before the next is made
}

// protectHead holds the auction with the head protected: the job
// GenerateBids puts first (the first of the window not started yet).
// Without a bid it gets a reservation, when the pass has none (*head),
// before the window's bids are made, so they are made once; with bids,
// it is made to win.
func (pl *Planner) protectHead(ctx context.Context, rd *auctionRound, head **reservation) ([]queue.Decision, error) {
	var out []queue.Decision
	res := *head
	if res == nil {
		first := headOf(rd.wjobs)
		bidless, err := pl.noBids(first, rd)
		if err != nil {
			return nil, err
		}
		if bidless {
			var start *queue.Decision
			res, start = reserve(rd.snap, rd.byID[first.ID], rd.now)
			if start != nil {
				out = append(out, *start) // due now: the others keep off its nodes this round
			} else {
				*head = res
			}
		}
	}
	wjobs := withReservation(rd.wjobs, rd.byID, res)
	if noneMayBid(wjobs) {
		return out, nil // no bids: nothing more to start
	}
	p, err := generateBids(wjobs, rd.load, rd.tree, pl.Bids, rd.uses)
	if err != nil {
		return nil, fmt.Errorf("auction planner: %w", err)
	}
	// The head's fate is all this solve decides when the head loses: the
	// solve may stop once it surely does (quick_head.go).
	won, sol, err := pl.solve(ctx, p, rd.byID, rd.offers, len(p.Jobs[0].Bids) > 0)
	if err != nil {
		return nil, err
	}
	if len(p.Jobs[0].Bids) > 0 && sol.Selection[0] < 0 {
		won, err = pl.headFirst(ctx, rd, p, res)
	}
	return append(out, won...), err
}

// headOf is the job GenerateBids puts first: the first of highest
// priority (ranks keep the window's order).
func headOf(wjobs []WindowJob) WindowJob {
	first := wjobs[0]
	for _, w := range wjobs[1:] {
		if w.Priority > first.Priority {
			first = w
		}
	}
	return first
}

// noBids reports whether job gets no bid in the round. A job's candidate
// bids depend on the free resources alone (the others' only rank them),
// and the first job is never cut by a total budget, so bids made for it
// alone say whether it has any in the window's problem.
func (pl *Planner) noBids(job WindowJob, rd *auctionRound) (bool, error) {
	if job.Eligible != nil && job.Eligible.None() {
		return true, nil // no node to bid on
	}
	p, err := generateBids([]WindowJob{job}, rd.load, rd.tree, pl.Bids, rd.uses)
	if err != nil {
		return false, fmt.Errorf("auction planner: %w", err)
	}
	return len(p.Jobs[0].Bids) == 0, nil
}

// reserve is job's reservation by SelectNodes(WillRun) on the snapshot.
// When the pipeline can start it now (the free resources exist but in no
// run of nodes the bids are made from), it also returns the decision that
// starts it there: the reservation is due. Nothing when the job cannot
// start even after every running job ends (it then holds nothing back,
// as without ReserveHead).
func reserve(snap *selectnodes.Snapshot, job *queue.Job, now time.Time) (*reservation, *queue.Decision) {
	req := job.Request
	p, err := snap.SelectNodes(&req, selectnodes.WillRun)
	if err != nil {
		return nil, nil
	}
	r := &reservation{job: job.ID, now: now, start: p.Start, nodes: p.NodeSet()}
	if !p.Immediate {
		return r, nil
	}
	r.start = now
	return r, &queue.Decision{Job: job.ID, Layout: placementLayout(p)}
}

// headFirst starts the problem's first job, which has bids but lost, on
// its cheapest bid, and holds the auction again for the others on what it
// leaves (keeping off res's nodes, as p's bids did).
func (pl *Planner) headFirst(ctx context.Context, rd *auctionRound, p *Problem, res *reservation) ([]queue.Decision, error) {
	first := &p.Jobs[0]
	best := 0
	for i := range first.Bids {
		if first.Bids[i].Cost < first.Bids[best].Cost {
			best = i
		}
	}
	job := rd.byID[first.ID]
	out := []queue.Decision{{Job: job.ID, Layout: bidLayout(&first.Bids[best], rd.offers[first.ID])}}
	left := Load{CPUs: slices.Clone(rd.load.CPUs), GPUs: slices.Clone(rd.load.GPUs), MaxGPUs: rd.load.MaxGPUs}
	for _, u := range first.Bids[best].Uses {
		left.CPUs[u.Node] -= u.Cores
		left.GPUs[u.Node] -= u.GPUs
	}
	rest := slices.DeleteFunc(slices.Clone(rd.wjobs), func(w WindowJob) bool { return w.ID == first.ID })
	if len(rest) == 0 {
		return out, nil
	}
	q, err := generateBids(withReservation(rest, rd.byID, res), left, rd.tree, pl.Bids, rd.uses) // p is not read after
	if err != nil {
		return nil, fmt.Errorf("auction planner: %w", err)
	}
	won, _, err := pl.solve(ctx, q, rd.byID, rd.offers, false)
	return append(out, won...), err
}

// withReservation is the window with the jobs that would still run at the
// reservation's start kept off its nodes (the head itself and jobs ending
// by then bid as before); the window itself without one. Jobs that shared
// an eligible bitmap share the one kept off the nodes too, so that bid
// generation, which groups jobs by bitmap identity (bidShare), still reads
// their runs once.
func withReservation(wjobs []WindowJob, byID map[int64]*queue.Job, r *reservation) []WindowJob {
	if r == nil {
		return wjobs
	}
	out := make([]WindowJob, len(wjobs))
	kept := map[*bitset.BitSet]*bitset.BitSet{}
	for k, w := range wjobs {
		out[k] = w
		job := byID[w.ID]
		if job.ID == r.job || endsBy(job, r.now, r.start) {
			continue
		}
		e, ok := kept[w.Eligible]
		if !ok {
			e = keptOff(w.Eligible, r.nodes)
			kept[w.Eligible] = e
		}
		out[k].Eligible = e
	}
	return out
}

// keptOff is eligible (every node when nil) less the reserved nodes.
func keptOff(eligible, reserved *bitset.BitSet) *bitset.BitSet {
	if eligible == nil {
		return reserved.Complement()
	}
	return eligible.Difference(reserved)
}

// endsBy reports whether job, started at now, ends by t. A job without a
// time limit never does.
func endsBy(job *queue.Job, now, t time.Time) bool {
	return job.TimeLimit > 0 && !now.Add(job.TimeLimit).After(t)
}

// placementLayout is a pipeline placement as an exact per-node layout.
func placementLayout(p *selectnodes.Placement) []selectnodes.NodeUse {
	layout := make([]selectnodes.NodeUse, len(p.Alloc))
	for x, a := range p.Alloc {
		layout[x] = selectnodes.NodeUse{Node: a.Node, CPUs: a.CPUs, Memory: a.Memory}
		for _, g := range a.GRES {
			layout[x].GRES = append(layout[x].GRES, selectnodes.GRES{Name: g.Name, Type: g.Type, Count: g.Count})
		}
	}
	return layout
}
