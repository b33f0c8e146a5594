package selectnodes

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/bits-and-blooms/bitset"
)

// usage is the load on the nodes: Slurm's idle and share bitmaps and the
// per-node counters. WillRun works on a copy.
type usage struct {
	idle, share *bitset.BitSet
	cpus        []int   // CPUs in use per node
	mem         []int64 // MB in use per node
	gres        []int64 // in use per GRES slot (see gresTable)
	jobs        []int32 // running jobs per node
	excl        []int32 // exclusive jobs per node
	// high is, per 64-node word, the most CPUs, memory and jobs any of
	// its nodes holds (room.go)
	high []wordLoad
	// part is, for each partition with a MaxCPUsPerNode, the CPUs its
	// jobs hold on each node (partcap.go)
	part []partLoad
}

func newUsage(n, slots int) usage {
	u := usage{
		idle: bitset.New(uint(n)), share: bitset.New(uint(n)),
		cpus: make([]int, n), mem: make([]int64, n), gres: make([]int64, slots),
		jobs: make([]int32, n), excl: make([]int32, n), high: make([]wordLoad, words(n)),
	}
	u.idle.SetAll()
	u.share.SetAll()
	return u
}

func (u *usage) clone() usage {
	return usage{idle: u.idle.Clone(), share: u.share.Clone(), cpus: slices.Clone(u.cpus),
		mem: slices.Clone(u.mem), gres: slices.Clone(u.gres), jobs: slices.Clone(u.jobs), excl: slices.Clone(u.excl),
		high: slices.Clone(u.high), part: clonePartLoads(nil, u.part)}
}

// add (sign 1) or remove (sign -1) a placement's load. The idle and share
// bitmaps are functions of the jobs and exclusive jobs on each node, kept
// by nothing else: an add clears a node's idle bit (and its share bit for
// an exclusive job), a remove sets them when the last such job leaves.
// Their words are written directly (a node index is below their length,
// which SetTo would otherwise check, and grow, per node), and the per-node
// tables are cut to one length so one check of an index covers them all.
func (u *usage) apply(p *Placement, sign int) {
	if sign > 0 {
		u.add(p, nil)
	} else {
		u.remove(p, nil)
	}
	u.applyPart(p, sign) // partcap.go
}

// add is apply for a placement's start. Given the cluster's nodes (whose
// configured CPUs are then every node's), it also returns how the free
// totals move (free_totals.go), read in the same walk.
func (u *usage) add(p *Placement, nodes []node) (mv freeMove) {
	idle, share := u.idle.Words(), u.share.Words()
	n := len(u.cpus)
	cpus, mem, jobs, excl := u.cpus[:n], u.mem[:n], u.jobs[:n], u.excl[:n]
	prev := -1
	for k := range p.Alloc {
		a := &p.Alloc[k] // not copied
		i := a.Node
		w, bit := i>>6, uint64(1)<<(i&63)
		if nodes != nil {
			mv.node(nodes[i].CPUs-cpus[i], a.CPUs, i <= prev)
			prev = i
		}
		c, m, jb := cpus[i]+a.CPUs, mem[i]+a.Memory, jobs[i]+1
		cpus[i], mem[i], jobs[i] = c, m, jb
		for g := range a.GRES {
			u.gres[a.GRES[g].slot] += a.GRES[g].Count
		}
		h := &u.high[w]
		h.cpus, h.mem, h.jobs = max(h.cpus, c), max(h.mem, m), max(h.jobs, jb)
		idle[w] &^= bit
		if p.Exclusive {
			excl[i]++
			share[w] &^= bit
		}
	}
	return mv
}

// remove is apply for a placement's end, and with nodes the free totals'
// move as add gives it. A node that may have been its word's fullest
// makes the word's bounds stale, reloaded once the walk leaves the word
// (a release only lowers them).
func (u *usage) remove(p *Placement, nodes []node) (mv freeMove) {
	stale, prev := -1, -1
	var was wordLoad
	idle, share := u.idle.Words(), u.share.Words()
	n := len(u.cpus)
	cpus, mem, jobs, excl := u.cpus[:n], u.mem[:n], u.jobs[:n], u.excl[:n]
	for k := range p.Alloc {
		a := &p.Alloc[k]
		i := a.Node
		w, bit := i>>6, uint64(1)<<(i&63)
		if nodes != nil {
			mv.node(nodes[i].CPUs-cpus[i], -a.CPUs, i <= prev)
			prev = i
		}
		if stale >= 0 && stale != w {
			u.reloadBelow(stale, was)
			stale = -1
		}
		if h := &u.high[w]; stale < 0 && (cpus[i] == h.cpus || mem[i] == h.mem || jobs[i] == h.jobs) {
			stale, was = w, *h // this node may have been the word's fullest
		}
		cpus[i] -= a.CPUs
		mem[i] -= a.Memory
		for g := range a.GRES {
			u.gres[a.GRES[g].slot] -= a.GRES[g].Count
		}
		if jobs[i]--; jobs[i] == 0 {
			idle[w] |= bit
		}
		if p.Exclusive {
			if excl[i]--; excl[i] == 0 {
				share[w] |= bit
			}
		}
	}
	if stale >= 0 {
		u.reloadBelow(stale, was)
	}
	return mv
}

// Allocate records that job runs on placement p from start until end (its
// expected end, used by WillRun). It rejects a placement that would
// overcommit a node, a node that is not up, a partition the cluster does
// not have (an empty one is none), or a job ID already running.
// A placement a selection on this cluster (or a snapshot of it) returned
// is kept as it is, not copied, so Allocate and Release cost the job's
// nodes and allocate nothing: do not modify a placement once allocated
// (Allocation returns it). Other placements (read back from storage) are
// completed in a copy.
func (c *Cluster) Allocate(job JobID, p *Placement, start, end time.Time) error {
	c.mustBeMade("Allocate")
	q, err := c.admit(job, p)
	if err != nil {
		return err
	}
	c.changes.bump()
	c.applyLoad(q, 1)
	c.addJob(running{id: job, p: q, start: start, end: end})
	q.live++
	if h, ok := c.selector.(JobHooks); ok {
		h.JobBegin(job, q)
	}
	return nil
}

// admit checks that p may start as job under the cluster's load and
// returns it normalized.
func (c *Cluster) admit(job JobID, p *Placement) (*Placement, error) {
	if p == nil || len(p.Alloc) == 0 {
		return nil, errors.New("selectnodes: Allocate needs a placement with nodes")
	}
	if p.pooled {
		return nil, fmt.Errorf("selectnodes: job %d: the placement was handed back with Recycle", job)
	}
	if _, dup := c.jobs[job]; dup {
		return nil, fmt.Errorf("selectnodes: job %d is already allocated", job)
	}
	if p.Partition != "" && !c.HasPartition(p.Partition) {
		// its partition's limits (MaxCPUsPerNode, OverSubscribe) would
		// not count the job: a typo must not let it past them
		return nil, fmt.Errorf("selectnodes: job %d: unknown partition %q", job, p.Partition)
	}
	q, err := c.normalize(p)
	if err != nil {
		return nil, fmt.Errorf("selectnodes: job %d: %w", job, err)
	}
	maxShare := c.maxShareOf(q.Partition) // one lookup, not one per node
	for k := range q.Alloc {
		if err := c.fitsNode(&q.Alloc[k], q, maxShare); err != nil {
			return nil, fmt.Errorf("selectnodes: job %d: %w", job, err)
		}
	}
	return q, nil
}

// fitsNode checks one node's share of q against the node and its load;
// maxShare is q's partition's (maxShareOf).
func (c *Cluster) fitsNode(a *NodeAlloc, q *Placement, maxShare int) error {
	i, n := a.Node, &c.nodes[a.Node]
	eff := c.effective(i)
	switch {
	case !c.up.Test(uint(i)):
		return fmt.Errorf("node %s is down", n.Name)
	case c.use.excl[i] > 0 || (q.Exclusive && c.use.jobs[i] > 0):
		return fmt.Errorf("node %s is already in use exclusively", n.Name)
	case c.use.cpus[i] > satMul(eff.CPUs, maxShare)-a.CPUs:
		return fmt.Errorf("node %s has %d CPUs in use, placement adds %d", n.Name, c.use.cpus[i], a.CPUs)
	case a.Memory > 0 && a.Memory > eff.RealMemory-c.use.mem[i]:
		return fmt.Errorf("node %s has %d MB free, placement needs %d", n.Name, eff.RealMemory-c.use.mem[i], a.Memory)
	}
	for _, g := range a.GRES {
		if g.Count > c.gres.cap[g.slot]-c.use.gres[g.slot] {
			kk := c.gres.keys[g.key]
			return fmt.Errorf("node %s has too few %s:%s left", n.Name, kk.name, kk.typ)
		}
	}
	return nil
}

// normalize copies p and derives what a placement read back from storage
// lacks: node index order, node names and the GRES keys, all from Alloc.
// A placement that is already complete (a selection on this cluster's
// configuration built it) is kept as it is: checking it costs its nodes,
// where a copy would cost them again.
func (c *Cluster) normalize(p *Placement) (*Placement, error) {
	if c.complete(p) {
		return p, nil
	}
	q := *p
	q.live, q.pooled = 0, false // a new placement: no allocation holds it yet
	q.Alloc = slices.Clone(p.Alloc)
	slices.SortStableFunc(q.Alloc, func(a, b NodeAlloc) int { return cmp.Compare(a.Node, b.Node) })
	q.nodes, q.clusterNodes = nil, len(c.nodes)
	q.Names = make([]string, 0, len(q.Alloc))
	// the nodes' GRES copies share one array per placement (they live as
	// long as the job: fewer objects for the collector to mark)
	entries := 0
	for _, a := range q.Alloc {
		entries += len(a.GRES)
	}
	gresSlab := make([]GRESAlloc, 0, entries)
	for k := range q.Alloc {
		a := &q.Alloc[k]
		if a.Node < 0 || a.Node >= len(c.nodes) {
			return nil, fmt.Errorf("node index %d out of range", a.Node)
		}
		if k > 0 && q.Alloc[k-1].Node == a.Node {
			return nil, fmt.Errorf("node %s appears twice", c.nodes[a.Node].Name)
		}
		if eff := c.effective(a.Node); a.CPUs < 0 || a.CPUs > eff.CPUs || a.Memory < 0 || a.Memory > eff.RealMemory {
			return nil, fmt.Errorf("node %s has %d CPUs and %d MB, the placement gives one job %d CPUs and %d MB",
				c.nodes[a.Node].Name, eff.CPUs, eff.RealMemory, a.CPUs, a.Memory)
		}
		q.Names = append(q.Names, c.nodes[a.Node].Name)
		if len(a.GRES) == 0 {
			a.GRES = slices.Clone(a.GRES)
			continue
		}
		from := len(gresSlab)
		gresSlab = append(gresSlab, a.GRES...)
		a.GRES = gresSlab[from:len(gresSlab):len(gresSlab)]
		for g := range a.GRES {
			key, ok := c.gres.keyIx[gresKey{a.GRES[g].Name, a.GRES[g].Type}]
			slot := -1
			if ok {
				slot = c.gres.slot(a.Node, key)
			}
			if slot < 0 || a.GRES[g].Count < 0 || a.GRES[g].Count > c.gres.cap[slot] {
				return nil, fmt.Errorf("node %s has no %d GRES %s:%s", c.nodes[a.Node].Name, a.GRES[g].Count, a.GRES[g].Name, a.GRES[g].Type)
			}
			a.GRES[g].key, a.GRES[g].slot = int32(key), int32(slot)
		}
	}
	return &q, nil
}

// complete reports whether p is already what normalize would make of it:
// nodes ascending and within the cluster, each within its node's
// resources, named, with GRES keys and slots matching this configuration,
// and sized to this cluster. It reads only p's nodes.
func (c *Cluster) complete(p *Placement) bool {
	if p.clusterNodes != len(c.nodes) || len(p.Names) != len(p.Alloc) || p.Alloc == nil {
		return false
	}
	prev := -1
	for k := range p.Alloc {
		a := &p.Alloc[k]
		if a.Node <= prev || a.Node >= len(c.nodes) || p.Names[k] != c.nodes[a.Node].Name {
			return false
		}
		if eff := c.effective(a.Node); a.CPUs < 0 || a.CPUs > eff.CPUs || a.Memory < 0 || a.Memory > eff.RealMemory {
			return false
		}
		for _, g := range a.GRES {
			if key, ok := c.gres.keyIx[gresKey{g.Name, g.Type}]; !ok || int(g.key) != key ||
				g.slot < 0 || int(g.slot) != c.gres.slot(a.Node, key) || g.Count < 0 || g.Count > c.gres.cap[g.slot] {
				return false
			}
		}
		prev = a.Node
	}
	return true
}

func (c *Cluster) maxShareOf(part string) int {
	if i, ok := c.partIx[part]; ok {
		return c.parts[i].maxShare()
	}
	return 1
}

// Release ends job's allocation.
func (c *Cluster) Release(job JobID) error {
	c.mustBeMade("Release")
	r, ok := c.jobs[job]
	if !ok {
		return fmt.Errorf("selectnodes: job %d is not allocated", job)
	}
	if h, ok := c.selector.(JobHooks); ok {
		h.JobFini(job, r.p)
	}
	c.changes.bump()
	c.applyLoad(r.p, -1)
	// dropJob without its lookup: r is the record
	c.ends.Delete(newEndKey(r.end, job, nil))
	delete(c.jobs, job)
	r.p.live--
	return nil
}

// Allocation returns job's placement and times. The placement is the
// cluster's: read it, do not change it. It stays valid after the job's
// Release unless someone hands it back with Recycle (a queue.Scheduler
// made WithRecycledPlacements does as it forgets the job): copy what you
// keep longer.
func (c *Cluster) Allocation(job JobID) (p *Placement, start, end time.Time, ok bool) {
	c.mustBeMade("Allocation")
	r, ok := c.jobs[job]
	if !ok {
		return nil, time.Time{}, time.Time{}, false
	}
	return r.p, r.start, r.end, true
}

// Running returns the IDs of the allocated jobs, ascending.
func (c *Cluster) Running() []JobID {
	c.mustBeMade("Running")
	return sortedIDs(c.jobs)
}

// JobsOn returns how many jobs run on node i.
func (c *Cluster) JobsOn(i int) int {
	c.mustBeMade("JobsOn")
	return int(c.use.jobs[i])
}

// FreeCPUs returns node i's CPUs not in use.
func (c *Cluster) FreeCPUs(i int) int {
	c.mustBeMade("FreeCPUs")
	return c.effective(i).CPUs - c.use.cpus[i]
}

// FreeMemory returns node i's memory (MB) not in use.
func (c *Cluster) FreeMemory(i int) int64 {
	c.mustBeMade("FreeMemory")
	return c.effective(i).RealMemory - c.use.mem[i]
}

// SetNodeState changes a node's state: NodeDown takes it out of Up and
// Avail, NodeDrain out of Avail, NodeUp (resume) puts it back. Jobs on the
// node keep their allocation; ending them is the caller's decision.
func (c *Cluster) SetNodeState(name string, s NodeState) error {
	c.mustBeMade("SetNodeState")
	i, ok := c.NodeIndex(name)
	if !ok {
		return fmt.Errorf("selectnodes: unknown node %q", name)
	}
	if s > NodeDown {
		return fmt.Errorf("selectnodes: unknown node state %d", s)
	}
	c.own()
	c.changes.bumpConfig()
	c.states[i] = s
	c.applyState(i)
	return nil
}

// Register records what a node reported about itself. Under FastSchedule
// 0 and 1 a node reporting fewer CPUs, less memory or less disk than
// configured is set down, as Slurm does; under 2 it stays up. It returns
// whether the node was set down.
func (c *Cluster) Register(name string, r Resources) (down bool, err error) {
	c.mustBeMade("Register")
	i, ok := c.NodeIndex(name)
	if !ok {
		return false, fmt.Errorf("selectnodes: unknown node %q", name)
	}
	if r.CPUs < 0 || r.RealMemory < 0 || r.TmpDisk < 0 || r.CPUs > MaxNodeCPUs {
		return false, fmt.Errorf("selectnodes: node %s reported negative resources or more than MaxNodeCPUs CPUs", name)
	}
	c.own()
	c.changes.bumpConfig()
	if c.reported == nil { // made at the first registration: most clusters have none
		c.reported = make([]Resources, len(c.nodes))
	}
	c.reported[i] = r
	c.caps[i/64] = c.capOf(i / 64)
	c.alikeCPUs = c.alikeNow()
	c.free.known = false // the node's CPUs may be the reported ones
	c.mostReported = max(c.mostReported, r.CPUs)
	n := &c.nodes[i]
	low := r.CPUs < n.CPUs || r.RealMemory < n.RealMemory || r.TmpDisk < n.TmpDisk
	if low && c.fastSchedule < 2 {
		c.states[i] = NodeDown
		c.applyState(i)
		return true, nil
	}
	return false, nil
}

// Reported returns what node i last reported to Register, and false when
// it has reported nothing (or all zeros, which selection reads as
// nothing). A saved scheduler state carries it, so that a restored
// cluster counts the same resources under FastSchedule 0.
func (c *Cluster) Reported(i int) (Resources, bool) {
	c.mustBeMade("Reported")
	if c.reported == nil || c.reported[i] == (Resources{}) {
		return Resources{}, false
	}
	return c.reported[i], true
}

// effective returns the resources selection counts for node i: what it
// reported under FastSchedule 0, else its configuration.
func (c *Cluster) effective(i int) Resources {
	n := &c.nodes[i]
	if c.fastSchedule == 0 && c.reported != nil && c.reported[i] != (Resources{}) {
		return c.reported[i]
	}
	return Resources{CPUs: n.CPUs, RealMemory: n.RealMemory, TmpDisk: n.TmpDisk}
}

// UpdatePartition replaces the partition of the same name (or adds it),
// as scontrol update PartitionName=... does. Running jobs are untouched.
func (c *Cluster) UpdatePartition(p Partition) error {
	c.mustBeMade("UpdatePartition")
	at := -1
	if i, ok := c.partIx[p.Name]; ok {
		at = i
	}
	c.own()
	c.changes.bumpConfig()
	if err := c.setPartition(p, at); err != nil {
		return err
	}
	c.reloadPartLoads() // partcap.go
	return nil
}

// CheckInvariants recomputes every bitmap and counter from the node states
// and the running allocations and reports any difference. Tests (and
// careful embedders) call it after a sequence of changes.
func (c *Cluster) CheckInvariants() error {
	c.mustBeMade("CheckInvariants")
	want := c.newLoad()
	for _, id := range c.Running() {
		want.apply(c.jobs[id].p, 1)
	}
	var errs []error
	if !want.idle.Equal(c.use.idle) {
		errs = append(errs, errors.New("idle bitmap differs from the allocations"))
	}
	if !want.share.Equal(c.use.share) {
		errs = append(errs, errors.New("share bitmap differs from the allocations"))
	}
	if !slices.Equal(want.cpus, c.use.cpus) || !slices.Equal(want.mem, c.use.mem) ||
		!slices.Equal(want.gres, c.use.gres) || !slices.Equal(want.jobs, c.use.jobs) || !slices.Equal(want.excl, c.use.excl) {
		errs = append(errs, errors.New("per-node counters differ from the allocations"))
	}
	if !partLoadsEqual(want.part, c.use.part) {
		errs = append(errs, errors.New("per-partition CPU counters (MaxCPUsPerNode) differ from the allocations"))
	}
	for w := range want.high {
		want.reloadWord(w)
	}
	if !slices.Equal(want.high, c.use.high) {
		errs = append(errs, errors.New("per-word load bounds differ from the allocations"))
	}
	if !slices.Equal(c.capsNow(), c.caps) {
		errs = append(errs, errors.New("per-word capacity bounds differ from the nodes' resources"))
	}
	if c.alikeNow() != c.alikeCPUs {
		errs = append(errs, fmt.Errorf("the nodes' common CPU count is kept as %d, counted %d", c.alikeCPUs, c.alikeNow()))
	}
	if cpus, nodes := c.countFree(); c.free.known && (c.free.cpus != cpus || c.free.nodes != nodes) {
		errs = append(errs, fmt.Errorf("the free totals are %d CPUs on %d nodes, counted %d on %d",
			c.free.cpus, c.free.nodes, cpus, nodes))
	}
	if c.ends.Len() != len(c.jobs) {
		errs = append(errs, fmt.Errorf("the end index holds %d jobs, %d run", c.ends.Len(), len(c.jobs)))
	}
	for id, r := range c.jobs {
		if k, ok := c.ends.Get(newEndKey(r.end, id, nil)); !ok {
			errs = append(errs, fmt.Errorf("job %d is missing from the end index", id))
		} else if k.p != r.p {
			errs = append(errs, fmt.Errorf("job %d's placement in the end index is not its record's", id))
		}
	}
	for i := range c.nodes {
		s := c.states[i]
		if c.up.Test(uint(i)) != (s != NodeDown) || c.avail.Test(uint(i)) != (s == NodeUp) {
			errs = append(errs, fmt.Errorf("node %s: up/avail bits disagree with state %s", c.nodes[i].Name, s))
		}
		if c.use.mem[i] < 0 || c.use.cpus[i] < 0 || c.use.jobs[i] < 0 {
			errs = append(errs, fmt.Errorf("node %s: negative usage", c.nodes[i].Name))
		}
		if c.use.excl[i] > 1 || (c.use.excl[i] == 1 && c.use.jobs[i] > 1) {
			errs = append(errs, fmt.Errorf("node %s: an exclusive job shares the node", c.nodes[i].Name))
		}
	}
	return errors.Join(errs...)
}

// satMul is a*b for non-negative a and b, saturating at math.MaxInt.
func satMul(a, b int) int {
	if a != 0 && b > math.MaxInt/a {
		return math.MaxInt
	}
	return a * b
}
