package queue

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/bits-and-blooms/bitset"
	"github.com/hpcsched/hpcsched/selectnodes"
)

// StateVersion is the version of the format Snapshot writes.
const StateVersion = 1

// The saved state is JSON:
//
//	{"version": 1, "next_id": ..., "seq": ..., "event_seq": ..., "last_recalc": ...,
//	 "partitions": [selectnodes.Partition...], "nodes": [{"name": ..., "state": ...}],
//	 "jobs": [savedJob...]}
//
// Jobs hold their request (the constraint as its canonical text), state,
// times, priority and, when running or suspended, their placement;
// Backfill's standing reservations are kept with their placements. Node
// states other than UP and every partition are saved so that a cluster
// rebuilt from the configuration can be brought to the same state.
type savedState struct {
	Version    int                     `json:"version"`
	NextID     JobID                   `json:"next_id"`
	Seq        uint64                  `json:"seq"`
	EventSeq   uint64                  `json:"event_seq"`
	LastRecalc time.Time               `json:"last_recalc"`
	Partitions []selectnodes.Partition `json:"partitions"`
	Nodes      []savedNode             `json:"nodes,omitempty"`
	Jobs       []savedJob              `json:"jobs"`
	Reserved   []savedReservation      `json:"reservations,omitempty"`
}

type savedReservation struct {
	Reservation
	NodeSet *bitset.BitSet `json:"node_set"`
}

type savedNode struct {
	Name  string                `json:"name"`
	State selectnodes.NodeState `json:"state"`
}

type savedJob struct {
	Job
	Seq         uint64    `json:"seq"`
	SuspendedAt time.Time `json:"suspended_at,omitempty"`
}

// Snapshot writes the scheduler's whole state: jobs, queue order, ID and
// event counters, node states and partitions (seed 003's state save).
func (s *Scheduler) Snapshot(w io.Writer) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := savedState{Version: StateVersion, NextID: s.nextID, Seq: s.seq, EventSeq: s.eventSeq,
		LastRecalc: s.lastRecalc, Partitions: s.c.Partitions()}
	for i := 0; i < s.c.NodeCount(); i++ {
		if n := s.c.Node(i); n.State != selectnodes.NodeUp {
			st.Nodes = append(st.Nodes, savedNode{n.Name, n.State})
		}
	}
	for _, id := range s.ids() {
		j := s.jobs[id]
		sj := savedJob{Job: j.Job, Seq: j.seq, SuspendedAt: j.suspendedAt}
		sj.Explanation = nil // derived, and large
		st.Jobs = append(st.Jobs, sj)
	}
	for _, r := range s.reservations() {
		st.Reserved = append(st.Reserved, savedReservation{r, s.resv[r.Job].nodes})
	}
	enc := json.NewEncoder(w)
	return enc.Encode(st)
}

// Restore reads what Snapshot wrote into a new scheduler over c, which
// must be built from the same configuration and hold no allocations. opts
// are the scheduler's options (policy, planner...), which are not saved.
func Restore(r io.Reader, c *selectnodes.Cluster, opts ...Option) (*Scheduler, error) {
	var st savedState
	dec := json.NewDecoder(r)
	if err := dec.Decode(&st); err != nil {
		return nil, fmt.Errorf("queue: reading state: %w", err)
	}
	if st.Version != StateVersion {
		return nil, fmt.Errorf("queue: state version %d, this build reads %d", st.Version, StateVersion)
	}
	if len(c.Running()) > 0 {
		return nil, errors.New("queue: Restore needs a cluster with no allocations")
	}
	for _, p := range st.Partitions {
		if err := c.UpdatePartition(p); err != nil {
			return nil, fmt.Errorf("queue: restoring partition %s: %w", p.Name, err)
		}
	}
	for _, n := range st.Nodes {
		if err := c.SetNodeState(n.Name, n.State); err != nil {
			return nil, fmt.Errorf("queue: restoring node %s: %w", n.Name, err)
		}
	}
	s := New(c, opts...)
	s.nextID, s.seq, s.eventSeq, s.lastRecalc = st.NextID, st.Seq, st.EventSeq, st.LastRecalc
	for _, sj := range st.Jobs {
		deps, err := ParseDependency(sj.Dependency)
		if err != nil {
			return nil, fmt.Errorf("queue: job %d: %w", sj.ID, err)
		}
		j := &job{Job: sj.Job, deps: deps, suspendedAt: sj.SuspendedAt}
		j.seq = sj.Seq
		if _, dup := s.jobs[j.ID]; dup {
			return nil, fmt.Errorf("queue: job %d appears twice", j.ID)
		}
		s.jobs[j.ID] = j
		key := j.User + "\x00" + j.Name
		s.byUserName[key] = append(s.byUserName[key], j)
		switch j.State {
		case Pending:
			s.enqueue(j)
		case Running, Suspended:
			if j.Placement == nil {
				return nil, fmt.Errorf("queue: running job %d has no placement", j.ID)
			}
			// the allocation's planned end is the one start gave it
			if err := c.Allocate(j.ID, j.Placement, j.Start, j.expectedEnd(j.Start)); err != nil {
				return nil, fmt.Errorf("queue: job %d: %w", j.ID, err)
			}
			j.Placement, _, _, _ = c.Allocation(j.ID)
			s.active[j.ID] = j
		}
	}
	for _, r := range st.Reserved {
		if j, ok := s.jobs[r.Job]; !ok || j.State != Pending || r.NodeSet == nil {
			return nil, fmt.Errorf("queue: reservation for job %d, which is not pending", r.Job)
		}
		s.resv[r.Job] = reservation{r.Reservation, r.NodeSet}
	}
	return s, nil
}
