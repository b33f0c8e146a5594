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

// reservation is Planner.ReserveHead's: the window head's earliest start
// and the nodes it will take then, as backfill's shadow time. It is not
// part of seed 001's AUCSCHED3.
type reservation struct {
	job   queue.JobID
	now   time.Time // the pass's time, from which the window's jobs' ends count
	start time.Time // the head's earliest start (now when it can start at once)
	nodes *bitset.BitSet
}

// reserveHead finds the head: the first job of the problem (rank order,
// the window's) without a bid, and its reservation by SelectNodes(WillRun)
// on the snapshot. When the pipeline can start it now (the free resources
// exist but in no run of nodes the bids are made from), it also returns
// the decision that starts it there: the reservation is due. Nothing when
// every job has a bid, or when the head cannot start even after every
// running job ends (then it holds nothing back, as without ReserveHead).
func reserveHead(snap *selectnodes.Snapshot, p *Problem, byID map[int64]*queue.Job, now time.Time) (*reservation, *queue.Decision) {
	for k := range p.Jobs {
		if len(p.Jobs[k].Bids) > 0 {
			continue
		}
		job := byID[p.Jobs[k].ID]
		req := job.Request
		pl, err := snap.SelectNodes(&req, selectnodes.WillRun)
		if err != nil {
			return nil, nil
		}
		r := &reservation{job: job.ID, now: now, start: pl.Start, nodes: pl.NodeSet()}
		if !pl.Immediate {
			return r, nil
		}
		r.start = now
		return r, &queue.Decision{Job: job.ID, Layout: placementLayout(pl)}
	}
	return nil, nil
}

// withReservation is the window with the jobs that would still run at the
// reservation's start kept off its nodes (the head itself and jobs ending
// by then bid as before); the window itself without one.
func withReservation(wjobs []WindowJob, byID map[int64]*queue.Job, r *reservation) []WindowJob {
	if r == nil {
		return wjobs
	}
	out := make([]WindowJob, len(wjobs))
	for k, w := range wjobs {
		out[k] = w
		job := byID[w.ID]
		if job.ID == r.job || endsBy(job, r.now, r.start) {
			continue
		}
		if w.Eligible == nil {
			out[k].Eligible = r.nodes.Complement()
		} else {
			out[k].Eligible = w.Eligible.Difference(r.nodes)
		}
	}
	return out
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

// forceFirst starts the problem's first job, which has bids but lost, on
// its cheapest bid, and holds the auction again for the others on what
// it leaves.
func (pl *Planner) forceFirst(ctx context.Context, p *Problem, wjobs []WindowJob, load Load, tree *topology.Tree, byID map[int64]*queue.Job, gpu string, head *reservation) ([]queue.Decision, error) {
	first := &p.Jobs[0]
	best := 0
	for i := range first.Bids {
		if first.Bids[i].Cost < first.Bids[best].Cost {
			best = i
		}
	}
	job := byID[first.ID]
	out := []queue.Decision{{Job: job.ID, Layout: bidLayout(&first.Bids[best], job, gpu)}}
	left := Load{CPUs: slices.Clone(load.CPUs), GPUs: slices.Clone(load.GPUs), MaxGPUs: load.MaxGPUs}
	for _, u := range first.Bids[best].Uses {
		left.CPUs[u.Node] -= u.Cores
		left.GPUs[u.Node] -= u.GPUs
	}
	rest := slices.DeleteFunc(slices.Clone(wjobs), func(w WindowJob) bool { return w.ID == first.ID })
	if len(rest) == 0 {
		return out, nil
	}
	q, err := GenerateBids(withReservation(rest, byID, head), left, tree, pl.Bids)
	if err != nil {
		return nil, fmt.Errorf("auction planner: %w", err)
	}
	won, _, err := pl.solve(ctx, q, byID, gpu)
	return append(out, won...), err
}
