package selectnodes

import (
	"fmt"
	"maps"
	"time"

	"github.com/bits-and-blooms/bitset"
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
	q, err := s.c.normalize(p)
	if err != nil {
		return fmt.Errorf("selectnodes: job %d: %w", job, err)
	}
	r := &running{id: job, p: q, start: start, end: end}
	s.u.apply(q, len(s.c.gresKeys), 1)
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

// Clone copies the snapshot.
func (s *Snapshot) Clone() *Snapshot {
	return &Snapshot{c: s.c, u: s.u.clone(), jobs: maps.Clone(s.jobs)}
}

// End returns when job is expected to end in the snapshot.
func (s *Snapshot) End(job JobID) (time.Time, bool) {
	r, ok := s.jobs[job]
	if !ok {
		return time.Time{}, false
	}
	return r.end, true
}

// IdleIn counts the nodes of set that run nothing in the snapshot: a cheap
// bound for jobs that need whole idle nodes.
func (s *Snapshot) IdleIn(set *bitset.BitSet) int {
	return int(s.u.idle.IntersectionCardinality(set))
}
