package queue

import (
	"slices"

	"github.com/hpcsched/hpcsched/selectnodes"
)

// The copies below are what keeps the package's ownership rule (see
// "Ownership" in the package documentation): every slice, map and pointer
// a caller, plugin, planner or subscriber receives is its own, and every
// one a caller passes in is copied before it is kept. A features.Expr is
// immutable and shared.

// public is a deep copy of j's public record.
func (j *job) public() Job {
	out := j.Job
	ownRequest(&out.Request)
	out.Placement = clonePlacement(j.Placement)
	out.Explanation = cloneExplanation(j.Explanation)
	return out
}

// own makes spec, a copy, a deep one: its request's slices and bitmap are
// copied in place (a Spec is large, and a submission's is copied once
// already, as Submit's argument).
func (spec *Spec) own() { ownRequest(&spec.Request) }

// cloneRequest copies r's slices and withheld-node bitmap.
func cloneRequest(r selectnodes.Request) selectnodes.Request {
	r.DeepCopyInto(&r)
	return r
}

// ownRequest makes r, a copy, a deep one: it copies r's slices and
// withheld-node bitmap in place.
func ownRequest(r *selectnodes.Request) { r.DeepCopyInto(r) }

// clonePlacement copies p, its names and its per-node allocations (nil
// stays nil).
func clonePlacement(p *selectnodes.Placement) *selectnodes.Placement {
	if p == nil {
		return nil
	}
	q := *p // the unexported index slices are never written after creation
	q.Names = slices.Clone(p.Names)
	q.Alloc = slices.Clone(p.Alloc)
	for k := range q.Alloc {
		q.Alloc[k].GRES = slices.Clone(q.Alloc[k].GRES)
	}
	return &q
}

// cloneExplanation copies e and everything it points to.
func cloneExplanation(e *selectnodes.Explanation) *selectnodes.Explanation {
	if e == nil {
		return nil
	}
	x := *e
	x.Steps = slices.Clone(e.Steps)
	x.Sets = slices.Clone(e.Sets)
	for k := range x.Sets {
		x.Sets[k].Features = slices.Clone(x.Sets[k].Features)
		x.Sets[k].Removed = slices.Clone(x.Sets[k].Removed)
	}
	x.Placement = clonePlacement(e.Placement)
	return &x
}

// cloneStatus copies a plugin's status (nil stays nil).
func cloneStatus(st *Status) *Status {
	if st == nil {
		return nil
	}
	return &Status{Code: st.Code, Reasons: slices.Clone(st.Reasons)}
}

// own is a copy of the payload for one subscriber: nothing in it is
// shared with the scheduler or with another subscriber.
func own(p Payload) Payload {
	switch p := p.(type) {
	case *StartPayload:
		return &StartPayload{Placement: clonePlacement(p.Placement)}
	case *EndPayload:
		c := *p
		return &c
	case *PriorityPayload:
		c := *p
		return &c
	case *UpdatePayload:
		return &UpdatePayload{Fields: slices.Clone(p.Fields)}
	case *RefusedPayload:
		return &RefusedPayload{Plugin: p.Plugin, Status: cloneStatus(p.Status), Err: p.Err}
	case *PlanFailedPayload:
		c := *p
		return &c
	case *NodePayload:
		return &NodePayload{State: p.State, Ended: slices.Clone(p.Ended)}
	}
	return p
}

// ownPartition lists a node named twice in p once, as Snapshot saves it,
// so that a restored cluster lists the partition's nodes as this one
// does. (The cluster copies the lists it is given: none is the caller's
// after.)
func ownPartition(p *selectnodes.Partition) {
	p.Nodes = uniqueNames(p.Nodes)
}
