package selectnodes

import (
	"fmt"
	"maps"
	"time"
)

// Snapshot is a what-if copy of the cluster's load: allocate and release
// jobs on it and select against it without touching the cluster (Kueue's
// snapshot idea). Backfill plans reservations on one. It reads the
// cluster's configuration, node states and partitions live, so take a new
// snapshot after changing those.
type Snapshot struct {
	c    *Cluster
	u    usage
	jobs map[JobID]*running
}

// Snapshot copies the current load.
func (c *Cluster) Snapshot() *Snapshot {
	return &Snapshot{c: c, u: c.use.clone(), jobs: maps.Clone(c.jobs)}
}

// SelectNodes is Cluster.SelectNodes against the snapshot's load (WillRun
// simulates the snapshot's jobs ending).
func (s *Snapshot) SelectNodes(req *Request, mode Mode) (*Placement, error) {
	return s.c.selectOn(req, mode, load{&s.u, s.jobs})
}

// Allocate records job on the snapshot, without the overcommit checks of
// Cluster.Allocate: a plan may stack a reservation on nodes that are busy
// now.
func (s *Snapshot) Allocate(job JobID, p *Placement, start, end time.Time) error {
	if _, dup := s.jobs[job]; dup {
		return fmt.Errorf("selectnodes: job %d is already in the snapshot", job)
	}
	r := &running{id: job, p: p, start: start, end: end}
	s.u.apply(p, len(s.c.gresKeys), 1)
	s.jobs[job] = r
	return nil
}

// Release removes job from the snapshot.
func (s *Snapshot) Release(job JobID) error {
	r, ok := s.jobs[job]
	if !ok {
		return fmt.Errorf("selectnodes: job %d is not in the snapshot", job)
	}
	s.u.apply(r.p, len(s.c.gresKeys), -1)
	delete(s.jobs, job)
	return nil
}

// Jobs returns the IDs in the snapshot, ascending.
func (s *Snapshot) Jobs() []JobID { return sortedIDs(s.jobs) }
