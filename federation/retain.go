package federation

import (
	"slices"

	"github.com/hpcsched/hpcsched/queue"
)

// retire moves the records that ended (and left no copy to cancel) from
// live to ended, and forgets the oldest of those past the retention.
func (g *Grid) retire() {
	g.live = slices.DeleteFunc(g.live, func(r *record) bool {
		// a record whose move may have left copies stays live until
		// their members answer, so the copies are cancelled
		done := r.phase == ended && len(r.orphans) == 0
		if done && g.opts.retain > 0 {
			g.ended = append(g.ended, r)
		}
		return done
	})
	g.renumber()
	if len(g.ended) <= g.opts.retain {
		return
	}
	n := len(g.ended) - g.opts.retain
	needed := g.dependedOn()
	var kept []*record
	for _, r := range g.ended[:n] {
		if needed[r.id] {
			kept = append(kept, r)
		} else {
			g.forget(r)
		}
	}
	g.ended = append(kept, g.ended[n:]...)
}

// dependedOn are the jobs a job waiting at the grid depends on (a job's
// dependency is dropped once met).
func (g *Grid) dependedOn() map[queue.JobID]bool {
	out := map[queue.JobID]bool{}
	for _, r := range g.live {
		for _, t := range r.deps.Terms {
			out[t.Job] = true
		}
	}
	return out
}

// forget drops an ended record from the grid's indexes.
func (g *Grid) forget(r *record) {
	delete(g.jobs, r.id)
	k := r.spec.User + "\x00" + r.spec.Name
	peers := slices.DeleteFunc(g.byUserName[k], func(o *record) bool { return o == r })
	if len(peers) == 0 {
		delete(g.byUserName, k)
	} else {
		g.byUserName[k] = peers
	}
}

// renumber drops the request shapes and candidate groups no live job
// has, once there are more than twice as many as live jobs (plus a few):
// a pass sizes its tables by them, so without it a pass's work would grow
// with every shape ever submitted (a --begin time is one of its own). A
// live job keeps the spec that stands for its shape, so forecasts ask
// what they asked before.
func (g *Grid) renumber() {
	bound := 2*len(g.live) + 64
	if len(g.shapeSpecs) <= bound && len(g.groups) <= bound {
		return
	}
	specs := g.shapeSpecs
	g.shapeIDs, g.shapeSpecs = map[shape]int32{}, nil
	g.groupIDs, g.groups = map[string]int32{}, nil
	for _, r := range g.live {
		r.shape = g.shapeID(specs[r.shape])
		r.group = g.groupID(r)
	}
}
