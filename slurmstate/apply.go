package slurmstate

import (
	"fmt"
	"time"

	"github.com/hpcsched/hpcsched/position"
	"github.com/hpcsched/hpcsched/selectnodes"
)

// State is what the three files of a cluster say.
type State struct {
	Nodes        []Node
	Jobs         []Job
	Reservations []Reservation
}

// Loaded is what Apply put on a cluster: the cluster's job ID of each
// running Slurm job, and the unlisted load (CPUs and memory scontrol
// reported allocated that no listed job accounts for, held by one job
// per node without an end).
type Loaded struct {
	IDs      map[string]selectnodes.JobID
	Unlisted []selectnodes.JobID
}

// farEnd is the end of a job without one: it runs for ever.
const farEnd = 100 * 365 * 24 * time.Hour

// Apply loads the state on c, a cluster built from the same slurm.conf
// (selectnodes.FromConfig) with no load, at now: every RUNNING job is
// allocated from now to its expected end (for ever without one, and at
// least until now), its CPUs spread over its nodes so that each node's
// allocated CPUs and memory equal CPUAlloc and AllocMem (squeue does not
// say a job's CPUs per node: an even split corrected by those totals);
// then nodes DOWN, FUTURE or not responding are set down and drained ones
// drained. Job IDs are given in the order of the jobs from one above the
// highest already running (1 on an empty cluster). Reservations are the
// caller's to apply (LoadSite does). A node or partition the
// cluster does not have, or jobs that hold more than a node reported, is
// an error with the position of the line.
func (st *State) Apply(c *selectnodes.Cluster, now time.Time) (Loaded, error) {
	out := Loaded{IDs: map[string]selectnodes.JobID{}}
	if st == nil || c == nil {
		return out, fmt.Errorf("%w: slurmstate: Apply on a nil State or to a nil Cluster", selectnodes.ErrNilArgument)
	}
	nodes, err := st.nodeIndex(c)
	if err != nil {
		return out, err
	}
	shares, err := st.spread(c, nodes)
	if err != nil {
		return out, err
	}
	next := selectnodes.JobID(1) // above the jobs already running
	if ids := c.Running(); len(ids) > 0 {
		next = ids[len(ids)-1] + 1
	}
	for k := range shares.jobs {
		j := shares.jobs[k]
		p := &selectnodes.Placement{Partition: j.part, Exclusive: j.job.Exclusive, Alloc: j.alloc}
		end := now.Add(farEnd)
		if !j.job.End.IsZero() {
			end = j.job.End
		}
		if end.Before(now) {
			end = now
		}
		if err := c.Allocate(next, p, now, end); err != nil {
			return out, position.Wrapf(err, j.job.Pos, "job %s: %v", j.job.ID, err)
		}
		out.IDs[j.job.ID] = next
		next++
	}
	for _, a := range shares.unlisted {
		p := &selectnodes.Placement{Partition: a.part, Alloc: []selectnodes.NodeAlloc{a.alloc}}
		if err := c.Allocate(next, p, now, now.Add(farEnd)); err != nil {
			return out, fmt.Errorf("slurmstate: unlisted load: %w", err)
		}
		out.Unlisted = append(out.Unlisted, next)
		next++
	}
	return out, st.setStates(c)
}

// nodeIndex maps each reported node to the cluster's index.
func (st *State) nodeIndex(c *selectnodes.Cluster) (map[string]int, error) {
	idx := make(map[string]int, len(st.Nodes))
	for k := range st.Nodes {
		n := &st.Nodes[k]
		i, ok := c.NodeIndex(n.Name)
		if !ok {
			return nil, position.Errorf(n.Pos, "node %s is not in the configuration", n.Name)
		}
		if _, dup := idx[n.Name]; dup {
			return nil, position.Errorf(n.Pos, "node %s is listed twice", n.Name)
		}
		idx[n.Name] = i
	}
	return idx, nil
}

func (st *State) setStates(c *selectnodes.Cluster) error {
	for k := range st.Nodes {
		n := &st.Nodes[k]
		s := selectnodes.NodeUp
		switch {
		case n.Down():
			s = selectnodes.NodeDown
		case n.Drained():
			s = selectnodes.NodeDrain
		}
		if err := c.SetNodeState(n.Name, s); err != nil {
			return position.Wrapf(err, n.Pos, "node %s: %v", n.Name, err)
		}
	}
	return nil
}
