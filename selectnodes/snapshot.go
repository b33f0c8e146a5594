package selectnodes

import (
	"fmt"
	"maps"
	"time"

	"github.com/bits-and-blooms/bitset"
	"github.com/hpcsched/hpcsched/topology"
)

// Snapshot is an immutable view of the cluster at one moment (Kueue's
// snapshot idea): its configuration, node states and partitions as they
// were, and a copy of the load. Planners receive one instead of the live
// Cluster. What-ifs (Allocate, Release, Simulate) change only the
// snapshot's own load; the cluster never changes the snapshot, so a
// snapshot may be read while the cluster changes, and two snapshots of one
// cluster may be used by two goroutines at once. One snapshot is not safe
// for concurrent use by several goroutines when one of them changes it.
//
// Taking a snapshot copies only the load (per-node counters and the jobs):
// the configuration is shared, and node states and partitions are copied
// by the cluster, on write, only when it changes them afterwards.
type Snapshot struct {
	c *Cluster // a frozen cluster: shared config and status, its own load
}

// Snapshot copies the current load and freezes the node states and
// partitions for the snapshot.
func (c *Cluster) Snapshot() *Snapshot {
	c.mustBeMade("Snapshot")
	c.snapped = true // it holds the running placements: Recycle stops
	c.shared = true
	// a large end index is cloned lazily (copy on write): the cluster is
	// not used concurrently, so writing its copy-on-write state is safe
	return &Snapshot{c: c.frozen(c.use.clone(), maps.Clone(c.jobs), c.ends.Clone())}
}

// frozen is a cluster sharing c's configuration and status with its own
// load. Nothing may change its status: c.shared is set.
func (c *Cluster) frozen(u usage, jobs map[JobID]running, ends endIndex) *Cluster {
	return &Cluster{config: c.config, status: c.status, shared: true, use: u, jobs: jobs, ends: ends}
}

// SelectNodes is Cluster.SelectNodes against the snapshot (WillRun
// simulates the snapshot's jobs ending).
func (s *Snapshot) SelectNodes(req *Request, mode Mode) (*Placement, error) {
	return s.c.SelectNodes(req, mode)
}

// PlaceExact is Cluster.PlaceExact against the snapshot's load.
func (s *Snapshot) PlaceExact(req *Request, uses []NodeUse) (*Placement, error) {
	return s.c.PlaceExact(req, uses)
}

// Allocate records job on the snapshot without the load checks of
// Cluster.Allocate (a plan may stack a reservation on nodes that are busy
// now); it still refuses a placement giving a node more than it has.
func (s *Snapshot) Allocate(job JobID, p *Placement, start, end time.Time) error {
	if _, dup := s.c.jobs[job]; dup {
		return fmt.Errorf("selectnodes: job %d is already in the snapshot", job)
	}
	q, err := s.c.normalize(p)
	if err != nil {
		return fmt.Errorf("selectnodes: job %d: %w", job, err)
	}
	s.c.applyLoad(q, 1)
	s.c.addJob(running{id: job, p: q, start: start, end: end})
	return nil
}

// Simulate starts job on the snapshot as Cluster.Allocate would on the
// cluster, with the same checks (the placement must fit the snapshot's
// load on nodes that are up), and returns a function that undoes it (Kueue's
// what-if). Calling revert more than once does nothing more.
func (s *Snapshot) Simulate(job JobID, p *Placement, start, end time.Time) (revert func(), err error) {
	q, err := s.c.admit(job, p)
	if err != nil {
		return nil, err
	}
	s.c.applyLoad(q, 1)
	s.c.addJob(running{id: job, p: q, start: start, end: end})
	done := false
	return func() {
		if !done {
			done = true
			_ = s.Release(job)
		}
	}, nil
}

// Release removes job from the snapshot.
func (s *Snapshot) Release(job JobID) error {
	r, ok := s.c.jobs[job]
	if !ok {
		return fmt.Errorf("selectnodes: job %d is not in the snapshot", job)
	}
	s.c.applyLoad(r.p, -1)
	s.c.dropJob(job)
	return nil
}

// Jobs returns the IDs in the snapshot, ascending.
func (s *Snapshot) Jobs() []JobID { return s.c.Running() }

// Clone copies the snapshot's load; the copy shares everything else.
func (s *Snapshot) Clone() *Snapshot {
	// the end index is copied by reading it, not cloned lazily: a lazy
	// clone writes to the source, and a snapshot may be read (and cloned)
	// by several goroutines at once
	return &Snapshot{c: s.c.frozen(s.c.use.clone(), maps.Clone(s.c.jobs), s.c.ends.Copy())}
}

// End returns when job is expected to end in the snapshot.
func (s *Snapshot) End(job JobID) (time.Time, bool) {
	r, ok := s.c.jobs[job]
	if !ok {
		return time.Time{}, false
	}
	return r.end, true
}

// Allocation returns job's placement and times in the snapshot. The
// placement is shared with the cluster the snapshot was taken of: read
// it, do not change it (see Cluster.Allocation).
func (s *Snapshot) Allocation(job JobID) (p *Placement, start, end time.Time, ok bool) {
	return s.c.Allocation(job)
}

// IdleIn counts the nodes of set that run nothing in the snapshot: a cheap
// bound for jobs that need whole idle nodes. A nil set has none.
func (s *Snapshot) IdleIn(set *bitset.BitSet) int {
	if set == nil {
		return 0
	}
	return int(s.c.use.idle.IntersectionCardinality(set))
}

// NodeCount is the number of nodes.
func (s *Snapshot) NodeCount() int { return s.c.NodeCount() }

// Node returns a copy of node i's configuration with its state in the
// snapshot; i must be in [0, NodeCount()).
func (s *Snapshot) Node(i int) *Node { return s.c.Node(i) }

// NodeIndex returns the index of the named node.
func (s *Snapshot) NodeIndex(name string) (int, bool) { return s.c.NodeIndex(name) }

// Names turns a node set into names, in index order; a nil set is the
// empty set (nil).
func (s *Snapshot) Names(nodes *bitset.BitSet) []string { return s.c.Names(nodes) }

// State returns node i's state in the snapshot.
func (s *Snapshot) State(i int) NodeState { return s.c.State(i) }

// FreeCPUs returns node i's CPUs not in use in the snapshot.
func (s *Snapshot) FreeCPUs(i int) int { return s.c.FreeCPUs(i) }

// FreeMemory returns node i's memory (MB) not in use in the snapshot.
func (s *Snapshot) FreeMemory(i int) int64 { return s.c.FreeMemory(i) }

// FreeGRES returns the units of GRES name (of type typ, or of every type
// when typ is "") not in use on node i in the snapshot.
func (s *Snapshot) FreeGRES(i int, name, typ string) int64 { return s.c.FreeGRES(i, name, typ) }

// JobsOn returns how many jobs run on node i in the snapshot.
func (s *Snapshot) JobsOn(i int) int { return s.c.JobsOn(i) }

// JobsOnTotal is Cluster.JobsOnTotal on the snapshot: 0 when nothing runs
// (a planner's own starts on it included).
func (s *Snapshot) JobsOnTotal() int { return s.c.JobsOnTotal() }

// Idle is the idle bitmap of the snapshot (a copy).
func (s *Snapshot) Idle() *bitset.BitSet { return s.c.Idle() }

// Avail is the avail bitmap of the snapshot: nodes up and not drained (a
// copy).
func (s *Snapshot) Avail() *bitset.BitSet { return s.c.Avail() }

// Up is the up bitmap of the snapshot (a copy).
func (s *Snapshot) Up() *bitset.BitSet { return s.c.Up() }

// Topology is the switch tree selection uses, or nil: the cluster's,
// shared and read only, as Cluster.Topology says.
func (s *Snapshot) Topology() *topology.Tree { return s.c.Topology() }

// Partition returns the named partition's settings as of the snapshot,
// the caller's (its lists are copies), as Cluster.Partition's are.
func (s *Snapshot) Partition(name string) (Partition, bool) { return s.c.Partition(name) }

// Partitions returns every partition as of the snapshot, each the
// caller's.
func (s *Snapshot) Partitions() []Partition { return s.c.Partitions() }

// PartitionNodes returns the node set of the named partition (a copy).
func (s *Snapshot) PartitionNodes(name string) (*bitset.BitSet, bool) {
	return s.c.PartitionNodes(name)
}

// DefaultPartition is the partition jobs without one go to ("" if none).
func (s *Snapshot) DefaultPartition() string { return s.c.DefaultPartition() }
