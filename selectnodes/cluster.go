package selectnodes

import (
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/bits-and-blooms/bitset"
	"github.com/hpcsched/hpcsched/features"
	"github.com/hpcsched/hpcsched/slurmconf"
	"github.com/hpcsched/hpcsched/topology"
)

// JobID names a running allocation.
type JobID uint64

// record is a config record: nodes with one configuration (Slurm's
// config_record and, per request, node_set). Its nodes are kept both as a
// list and as the words of a bitmap restricted to the span they occupy, so
// per-record bitmap work costs the span, not the cluster.
type record struct {
	nodes    []int
	weight   int64
	features []string
	cpus     int
	mem, tmp int64
	wlo, whi int // word span [wlo, whi) of the nodes
	words    []uint64
	order    int // first appearance, for ties on weight
}

type partition struct {
	Partition
	limits PartitionLimits // Partition's, read out once for PartitionLimits
	nodes  *bitset.BitSet
	// inRec[r] is how many of record r's nodes are in the partition,
	// counted once here rather than by every selection
	inRec []int
}

// config is what never changes after New: the nodes as configured, their
// config records, the feature index, the GRES keys and capacities, the
// selector and the topology. The live cluster and every snapshot share it.
type config struct {
	nodes   []node // State is the state given to New; the live one is status.states
	byName  nameIndex
	records []record // ordered by weight, then configuration order
	recOf   []int32  // node -> record
	ix      *features.Index
	gres    gresTable

	// empty is no load at all, for TestOnly and classification: made at
	// its first use (a million nodes' zero load is 30 MB), atomically, as
	// snapshots share config
	empty atomic.Pointer[usage]

	selector     Selector
	fastSchedule int
	compat       bool
	// noQOSChecks: the cluster runs without accounting, where Slurm
	// enforces no partition's AllowQOS or DenyQOS (WithQOSChecks)
	noQOSChecks bool
	topo        *topology.Tree
	// memConsumable: slurm.conf counts memory (CR_*_Memory), so a job
	// asking for none holds whole nodes' memory (compat_mem.go)
	memConsumable bool
	mostCPUs      int // the most CPUs any node is configured with
}

// status is what changes rarely: node states, what nodes reported and the
// partitions. The cluster copies it before changing it when a snapshot
// shares it (copy on write), so snapshots never see later changes and a
// snapshot costs nothing here.
type status struct {
	states    []NodeState
	reported  []Resources // nil until a node registers
	up, avail *bitset.BitSet
	parts     []partition
	partIx    map[string]int
	defPart   int
	// mostReported is the most CPUs any node has reported (an upper
	// bound: a node reporting fewer later does not lower it)
	mostReported int
	// caps is, per 64-node word, the least CPUs and memory any of its
	// nodes offers a selection (room.go)
	caps []wordCap
	// alikeCPUs is the CPUs every node offers a selection when they all
	// offer the same, else -1 (CountedNeed asks it at every head plan)
	alikeCPUs int
}

func (s *status) clone() *status {
	return &status{states: slices.Clone(s.states), reported: slices.Clone(s.reported), up: s.up.Clone(),
		avail: s.avail.Clone(), parts: slices.Clone(s.parts), partIx: maps.Clone(s.partIx), defPart: s.defPart,
		mostReported: s.mostReported, caps: slices.Clone(s.caps), alikeCPUs: s.alikeCPUs}
}

// Cluster is the node and partition model with Slurm's global bitmaps and
// the running allocations. It is not safe for concurrent use; callers that
// share one (queue.Scheduler does) guard it. Snapshots taken from it are
// independent of it and may be used while it changes.
//
// Make a Cluster with New or FromConfig. A nil or zero Cluster is not
// usable: its methods panic with a message naming the method (OfferTerms,
// which a planner calls for every job, returns ErrNilArgument instead).
type Cluster struct {
	*config
	*status
	shared bool // a snapshot holds status: copy it before writing

	use  usage
	jobs map[JobID]running // by value: recording a job allocates nothing
	ends endIndex          // the same jobs by expected end (ends.go)
	free freeTotals        // FreeTotals, kept through the load's changes (free_totals.go)

	changes changeCount // calls that changed what a placement reads (changes.go)

	// scratch is lent to one selection at a time (takeScratch)
	scratch atomic.Pointer[scratch]
	// selected is the last placement a built-in RunNow selection returned
	// and selectedAt the Changes it was made at (AllocateSelected)
	// (and selectedPrint its fingerprint then)
	selected      atomic.Pointer[Placement]
	selectedAt    atomic.Uint64
	selectedPrint atomic.Uint64

	// spare holds recycled placements by node count for plain walks to
	// reuse; snapped is set once a snapshot was taken, which may hold any
	// running placement, so that none is recycled after (recycle.go)
	spare   spares
	snapped bool

	noPlainWalk   bool // tests: every selection runs the pipeline (plain_probe.go)
	noConsResWalk bool // tests: no ConsRes walk (consres_walk.go)

	topoConf *slurmconf.Topology // construction only
	topoOpts []topology.Option
}

// own makes status the cluster's alone before a change.
func (c *Cluster) own() {
	if c.shared {
		c.status = c.status.clone()
		c.shared = false
	}
}

type running struct {
	id         JobID
	p          *Placement
	start, end time.Time
}

// Option configures New and FromConfig.
type Option func(*Cluster)

// WithSelector sets the selection plugin; the default is Linear, or what
// SelectType says for FromConfig.
func WithSelector(s Selector) Option { return func(c *Cluster) { c.selector = s } }

// WithFastSchedule sets Slurm's FastSchedule (the Novotný thesis §2.3.3):
// 1 (the default) checks requests against each config record's baseline and
// marks nodes that register with less than it down; 2 does the same but
// keeps such nodes up; 0 checks a record's nodes one by one against what
// they reported when the baseline falls short.
func WithFastSchedule(n int) Option { return func(c *Cluster) { c.fastSchedule = n } }

// WithQOSChecks says whether partitions' AllowQOS and DenyQOS are
// enforced. Slurm enforces them only with accounting storage
// (AccountingStorageType=accounting_storage/slurmdbd), where a job that
// names no QOS has its association's default, taken here as DefaultQOS;
// without it, Slurm runs a job of any QOS, or none, in any partition. New
// checks them; FromConfig checks them when the configuration has slurmdbd
// accounting, unless this option says otherwise.
func WithQOSChecks(on bool) Option { return func(c *Cluster) { c.noQOSChecks = !on } }

// ChecksQOS reports whether the cluster enforces partitions' AllowQOS and
// DenyQOS (WithQOSChecks).
func (c *Cluster) ChecksQOS() bool {
	c.mustBeMade("ChecksQOS")
	return !c.noQOSChecks
}

// WithSlurmCompat reproduces Slurm 22.05's node selection where it is
// known to be wrong: count features are accumulated greedily in expression
// and weight order (the Novotný thesis §3.3) and a matching OR takes the first
// alternative that can be satisfied rather than the cheapest.
func WithSlurmCompat() Option { return func(c *Cluster) { c.compat = true } }

// WithTopology makes the selectors topology-aware: instead of consecutive
// runs they place jobs with tree.Fit (the lowest switch that suffices,
// best-fit over its leaves). The tree must be built over the cluster's
// nodes, in the same order.
func WithTopology(tree *topology.Tree) Option { return func(c *Cluster) { c.topo = tree } }

// WithTopologyConfig is WithTopology with the tree built from a parsed
// topology.conf over the cluster's nodes.
func WithTopologyConfig(top *slurmconf.Topology, opts ...topology.Option) Option {
	return func(c *Cluster) { c.topoConf, c.topoOpts = top, opts }
}

// New builds a cluster. Node names must be unique and non-empty; partitions
// must name defined nodes; a nil Option is an error matching
// ErrNilArgument. Nodes with identical configuration form one
// config record; records are ordered by weight, then first appearance.
func New(nodes []Node, parts []Partition, opts ...Option) (*Cluster, error) {
	return build(sharedConfs(nodes), parts, nil, opts, (*Cluster).buildRecords)
}

// sharedConfs turns nodes into the cluster's own: consecutive nodes
// configured alike share one configuration, which has its own copy of
// their Features and GRES.
func sharedConfs(nodes []Node) []node {
	out := make([]node, len(nodes))
	var last *nodeConf
	for i := range nodes {
		conf := confOf(&nodes[i])
		if last == nil || !last.equal(&conf) {
			own := conf
			own.Features, own.GRES = slices.Clone(conf.Features), slices.Clone(conf.GRES)
			last = &own
		}
		out[i] = node{Name: nodes[i].Name, nodeConf: last}
	}
	return out
}

// build is New over nodes the cluster keeps as they are, their
// configurations included (FromConfig makes one per NodeName line), and
// over the node lists of parts[k] with ownedParts[k] set, which are the
// cluster's already; records groups the nodes into config records.
func build(nodes []node, parts []Partition, ownedParts []bool, opts []Option, records func(*Cluster)) (*Cluster, error) {
	if err := nilOption("New", opts); err != nil {
		return nil, err
	}
	if len(nodes) >= math.MaxInt32 {
		return nil, fmt.Errorf("selectnodes: %d nodes are more than %d", len(nodes), math.MaxInt32-1)
	}
	c := &Cluster{
		config: &config{nodes: nodes, byName: newNameIndex(len(nodes)), fastSchedule: 1},
		status: &status{states: make([]NodeState, len(nodes)),
			partIx: map[string]int{}, defPart: -1},
		jobs: map[JobID]running{}, ends: newEnds(),
	}
	for _, o := range opts {
		o(c)
	}
	if c.selector == nil {
		c.selector = Linear{}
	}
	if c.fastSchedule < 0 || c.fastSchedule > 2 {
		return nil, fmt.Errorf("selectnodes: FastSchedule %d is not 0, 1 or 2", c.fastSchedule)
	}
	var errs []error
	var conf *nodeConf
	var problem string // conf's, checked once for the nodes sharing it
	for i := range c.nodes {
		if c.nodes[i].nodeConf != conf {
			conf = c.nodes[i].nodeConf
			problem = c.addConf(conf)
		}
		if err := c.addNode(i, problem); err != nil {
			errs = append(errs, err)
		}
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	var err error
	if c.gres, err = buildGres(c.nodes); err != nil {
		return nil, err
	}
	records(c)
	c.ix = features.NewIndex(len(c.nodes))
	for i := range c.nodes {
		if fs := c.nodes[i].Features; len(fs) > 0 {
			c.ix.Add(i, fs...)
		}
	}
	c.ix.Freeze() // FeatureIndex hands it out
	for k, p := range parts {
		if err := c.addPartition(p, -1, k < len(ownedParts) && ownedParts[k]); err != nil {
			errs = append(errs, err)
		}
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	n := uint(len(c.nodes))
	c.up, c.avail = bitset.New(n), bitset.New(n)
	for i := range c.nodes {
		c.applyState(i)
	}
	c.computeCaps()
	if err := c.setTopology(); err != nil {
		return nil, err
	}
	c.use = c.newLoad()
	return c, nil
}

// addNode checks node i, whose configuration has the given problem ("" for
// none), and indexes it.
func (c *Cluster) addNode(i int, problem string) error {
	n := &c.nodes[i]
	switch {
	case n.Name == "":
		return fmt.Errorf("selectnodes: node %d has no name", i)
	case strings.ContainsAny(n.Name, ",[] \t"):
		return fmt.Errorf("selectnodes: node name %q holds a hostlist separator", n.Name)
	case problem != "":
		return fmt.Errorf("selectnodes: node %s %s", n.Name, problem)
	case !c.byName.add(c.nodes, i):
		return fmt.Errorf("selectnodes: node %s is defined twice", n.Name)
	}
	c.states[i] = n.State
	return nil
}

// addConf checks a configuration, completing its CPU count, and says what
// is wrong with it ("" when nothing is).
func (c *Cluster) addConf(n *nodeConf) string {
	switch {
	case n.CPUs < 0 || n.Boards < 0 || n.Sockets < 0 || n.CoresPerSocket < 0 || n.Threads < 0 ||
		n.RealMemory < 0 || n.TmpDisk < 0 || n.Weight < 0:
		return "has a negative CPU, board, socket, core, thread, memory, disk or weight value"
	case n.State > NodeDown:
		return fmt.Sprintf("has unknown state %d", n.State)
	}
	for _, g := range n.GRES {
		if g.Name == "" || g.Count < 0 {
			return fmt.Sprintf("has an invalid GRES %+v", g)
		}
	}
	cpus, ok := n.cpus()
	if !ok {
		return fmt.Sprintf("has more than MaxNodeCPUs (%d) CPUs", MaxNodeCPUs)
	}
	n.CPUs = cpus
	c.mostCPUs = max(c.mostCPUs, cpus)
	return ""
}

func configKey(n *node) string {
	return fmt.Sprintf("%d|%d|%d|%d|%q|%v", n.CPUs, n.RealMemory, n.TmpDisk, n.Weight, n.Features, n.GRES)
}

func (c *Cluster) buildRecords() {
	byKey := map[string]int{}
	c.recOf = make([]int32, len(c.nodes))
	var last *nodeConf
	r := 0
	for i := range c.nodes {
		n := &c.nodes[i]
		if n.nodeConf == last { // nodes sharing a configuration share its record
			c.records[r].nodes = append(c.records[r].nodes, i)
			continue
		}
		last = n.nodeConf
		k := configKey(n)
		var ok bool
		r, ok = byKey[k]
		if !ok {
			r = len(c.records)
			byKey[k] = r
			c.records = append(c.records, record{weight: n.Weight, features: n.Features, cpus: n.CPUs,
				mem: n.RealMemory, tmp: n.TmpDisk, order: r})
		}
		c.records[r].nodes = append(c.records[r].nodes, i)
	}
	c.finishRecords()
}

// finishRecords orders the records by weight, then configuration order, and
// computes their spans, masks and GRES.
func (c *Cluster) finishRecords() {
	slices.SortStableFunc(c.records, func(a, b record) int {
		if a.weight != b.weight {
			if a.weight < b.weight {
				return -1
			}
			return 1
		}
		return a.order - b.order
	})
	total := 0
	for r := range c.records {
		rec := &c.records[r]
		rec.wlo, rec.whi = rec.nodes[0]/64, rec.nodes[len(rec.nodes)-1]/64+1
		total += rec.whi - rec.wlo
	}
	slab := make([]uint64, total) // the records' masks, carved in turn (one allocation)
	for r := range c.records {
		rec := &c.records[r]
		n := rec.whi - rec.wlo
		rec.words, slab = slab[:n:n], slab[n:]
		for _, i := range rec.nodes {
			rec.words[i/64-rec.wlo] |= 1 << (uint(i) % 64)
			c.recOf[i] = int32(r)
		}
	}
	for k := range c.parts { // FromConfig rebuilds the records after New
		c.parts[k].countRecords(c.records)
	}
}

// countRecords counts the partition's nodes in each record (inRec).
func (p *partition) countRecords(records []record) {
	p.inRec = make([]int, len(records))
	for r := range records {
		p.inRec[r] = countSpan(p.nodes, &records[r])
	}
}

// setPartition adds p, or replaces partition at (when at >= 0).
func (c *Cluster) setPartition(p Partition, at int) error { return c.addPartition(p, at, false) }

// addPartition is setPartition; owned says p.Nodes is the cluster's
// already, else it is copied. A list equal to another partition's is
// shared with it (partitions over every node are common, and a million
// names cost 16 MB a copy): the lists are read only.
func (c *Cluster) addPartition(p Partition, at int, owned bool) error {
	if p.Name == "" {
		return errors.New("selectnodes: a partition has no name")
	}
	if p.MinNodes < 0 || p.MaxNodes < 0 || p.MaxTime < 0 || p.DefaultTime < 0 || p.Sharing.Count < 0 || p.MaxCPUsPerNode < 0 ||
		p.MaxMemPerNode < 0 || p.DefMemPerCPU < 0 || p.DefMemPerNode < 0 {
		return fmt.Errorf("selectnodes: partition %s has a negative limit", p.Name)
	}
	if p.Sharing.Mode > ShareForce {
		return fmt.Errorf("selectnodes: partition %s has unknown OverSubscribe mode %d", p.Name, p.Sharing.Mode)
	}
	if p.State > PartitionInactive {
		return fmt.Errorf("selectnodes: partition %s has unknown state %d", p.Name, p.State)
	}
	if i, dup := c.partIx[p.Name]; dup && i != at {
		return fmt.Errorf("selectnodes: partition %s is defined twice", p.Name)
	}
	p.Access = p.Access.clone() // the caller's lists stay the caller's
	if k := c.partitionListed(p.Nodes); k >= 0 {
		p.Nodes = c.parts[k].Nodes
		return c.putPartition(partition{Partition: p, nodes: c.parts[k].nodes.Clone()}, at)
	}
	if !owned {
		p.Nodes = slices.Clone(p.Nodes)
	}
	bits := bitset.New(uint(len(c.nodes)))
	next := 0 // partitions mostly list nodes in cluster order: try the next one first
	for k, name := range p.Nodes {
		i := next
		if i >= len(c.nodes) || c.nodes[i].Name != name {
			var ok bool
			if i, ok = c.NodeIndex(name); !ok {
				return fmt.Errorf("selectnodes: partition %s: node %s is not defined", p.Name, name)
			}
		}
		bits.Set(uint(i))
		p.Nodes[k] = c.nodes[i].Name // the cluster's copy: the list keeps no bytes of its own
		next = i + 1
	}
	return c.putPartition(partition{Partition: p, nodes: bits}, at)
}

// partitionListed is a partition whose node list is names, or -1.
func (c *Cluster) partitionListed(names []string) int {
	for k := range c.parts {
		if len(names) > 0 && slices.Equal(c.parts[k].Nodes, names) {
			return k
		}
	}
	return -1
}

// putPartition adds part, or puts it in place of partition at (when at >= 0).
func (c *Cluster) putPartition(part partition, at int) error {
	p := &part.Partition
	part.limits = PartitionLimits{State: p.State, Priority: p.Priority, MinNodes: p.MinNodes, MaxNodes: p.MaxNodes,
		MaxTime: p.MaxTime, DefaultTime: p.DefaultTime, DefMemPerCPU: p.DefMemPerCPU, DefMemPerNode: p.DefMemPerNode}
	part.countRecords(c.records)
	if at < 0 {
		at = len(c.parts)
		c.parts = append(c.parts, part)
		c.partIx[p.Name] = at
	} else {
		delete(c.partIx, c.parts[at].Name)
		c.parts[at] = part
		c.partIx[p.Name] = at
	}
	c.defPart = -1
	for i := range c.parts {
		if c.parts[i].Default {
			c.defPart = i // the last Default=YES wins, as in Slurm
		}
	}
	return nil
}

// nilOption refuses a nil Option given to fn.
func nilOption(fn string, opts []Option) error {
	for k, o := range opts {
		if o == nil {
			return fmt.Errorf("%w: selectnodes.%s: option %d is nil", ErrNilArgument, fn, k)
		}
	}
	return nil
}

// emptyLoad is the load of no job (config.empty).
func (c *Cluster) emptyLoad() *usage {
	if u := c.empty.Load(); u != nil {
		return u
	}
	u := c.newLoad()
	c.empty.CompareAndSwap(nil, &u)
	return c.empty.Load()
}

// applyState derives node i's bits in the up and avail bitmaps.
func (c *Cluster) applyState(i int) {
	s := c.states[i]
	c.up.SetTo(uint(i), s != NodeDown)
	c.avail.SetTo(uint(i), s == NodeUp)
}

// NodeCount is the number of nodes.
func (c *Cluster) NodeCount() int {
	c.mustBeMade("NodeCount")
	return len(c.nodes)
}

// Node returns a copy of node i's configuration with its current state;
// the copy is the caller's, its Features and GRES included (the nodes of a
// NodeName line share one list inside the cluster).
func (c *Cluster) Node(i int) *Node {
	c.mustBeMade("Node")
	n := c.nodes[i].public()
	n.State = c.states[i]
	n.Features, n.GRES = slices.Clone(n.Features), slices.Clone(n.GRES)
	return &n
}

// MostNodeCPUs is at least the most CPUs any node offers a selection (its
// configuration, or under FastSchedule 0 what it reported): planners
// divide a job's CPU total by it for the fewest nodes the job can run on.
// It never underestimates; a node reporting fewer CPUs later does not
// lower it.
func (c *Cluster) MostNodeCPUs() int {
	c.mustBeMade("MostNodeCPUs")
	if c.fastSchedule == 0 {
		return max(c.mostCPUs, c.mostReported)
	}
	return c.mostCPUs
}

// State returns node i's current state.
func (c *Cluster) State(i int) NodeState {
	c.mustBeMade("State")
	return c.states[i]
}

// Partition returns the named partition's settings. The value is the
// caller's: its Nodes list and its Access lists are copies, so sorting or
// appending to them leaves the cluster as it was. The node list costs 16
// bytes a node; a caller that reads only limits calls PartitionLimits, one
// that asks whether the partition exists HasPartition.
func (c *Cluster) Partition(name string) (Partition, bool) {
	c.mustBeMade("Partition")
	i, ok := c.partIx[name]
	if !ok {
		return Partition{}, false
	}
	return c.parts[i].Partition.clone(), true
}

// Partitions returns every partition, in definition order; each is the
// caller's, as Partition's is.
func (c *Cluster) Partitions() []Partition {
	c.mustBeMade("Partitions")
	out := make([]Partition, len(c.parts))
	for i := range c.parts {
		out[i] = c.parts[i].Partition.clone()
	}
	return out
}

// PartitionLimits returns the named partition's state, priority and
// limits: the scalar settings a queue reads of a job's partition at every
// pass, without the copy of lists that Partition makes.
func (c *Cluster) PartitionLimits(name string) (PartitionLimits, bool) {
	c.mustBeMade("PartitionLimits")
	i, ok := c.partIx[name]
	if !ok {
		return PartitionLimits{}, false
	}
	return c.parts[i].limits, true
}

// PartitionNames returns the partitions' names in definition order, in a
// slice of the caller's: Partitions without the copies of their settings.
func (c *Cluster) PartitionNames() []string {
	c.mustBeMade("PartitionNames")
	out := make([]string, len(c.parts))
	for i := range c.parts {
		out[i] = c.parts[i].Name
	}
	return out
}

// HasPartition reports whether the cluster has a partition of that name.
func (c *Cluster) HasPartition(name string) bool {
	c.mustBeMade("HasPartition")
	_, ok := c.partIx[name]
	return ok
}

// PartitionCount is how many partitions the cluster has: Partitions'
// length, without the copy.
func (c *Cluster) PartitionCount() int {
	c.mustBeMade("PartitionCount")
	return len(c.parts)
}

// DefaultPartition is the partition jobs without one go to ("" if none).
func (c *Cluster) DefaultPartition() string {
	c.mustBeMade("DefaultPartition")
	if c.defPart < 0 {
		return ""
	}
	return c.parts[c.defPart].Name
}

// PartitionNodes returns the node set of the named partition (a copy).
func (c *Cluster) PartitionNodes(name string) (*bitset.BitSet, bool) {
	c.mustBeMade("PartitionNodes")
	i, ok := c.partIx[name]
	if !ok {
		return nil, false
	}
	return c.parts[i].nodes.Clone(), true
}

// FeatureIndex is the index of node features, for evaluating constraints.
// It is the cluster's, shared and frozen: Add on it panics, and the sets
// its Nodes returns are copies, the caller's.
func (c *Cluster) FeatureIndex() *features.Index {
	c.mustBeMade("FeatureIndex")
	return c.ix
}

// Selector is the selection plugin in use.
func (c *Cluster) Selector() Selector {
	c.mustBeMade("Selector")
	return c.selector
}

// SlurmCompat reports whether the cluster reproduces Slurm's defects.
func (c *Cluster) SlurmCompat() bool {
	c.mustBeMade("SlurmCompat")
	return c.compat
}

// Up is Slurm's up_node_bitmap: nodes not down. A copy.
func (c *Cluster) Up() *bitset.BitSet {
	c.mustBeMade("Up")
	return c.up.Clone()
}

// Avail is Slurm's avail_node_bitmap: nodes available for new jobs. A copy.
func (c *Cluster) Avail() *bitset.BitSet {
	c.mustBeMade("Avail")
	return c.avail.Clone()
}

// Idle is Slurm's idle_node_bitmap: nodes running no job. A copy.
func (c *Cluster) Idle() *bitset.BitSet {
	c.mustBeMade("Idle")
	return c.use.idle.Clone()
}

// IdleInto is Idle written into dst (made the cluster's size), for a
// caller that reads it at every plan: no copy is allocated. dst stays the
// caller's. A nil dst panics.
func (c *Cluster) IdleInto(dst *bitset.BitSet) {
	c.mustBeMade("IdleInto")
	if dst == nil {
		panic("selectnodes.IdleInto: dst is nil")
	}
	c.use.idle.CopyFull(dst)
}

// Share is Slurm's share_node_bitmap: nodes not allocated to an exclusive
// job. A copy.
func (c *Cluster) Share() *bitset.BitSet {
	c.mustBeMade("Share")
	return c.use.share.Clone()
}

// Names turns a node set into names, in index order; a nil set is the
// empty set (nil).
func (c *Cluster) Names(nodes *bitset.BitSet) []string {
	c.mustBeMade("Names")
	if nodes == nil {
		return nil
	}
	var out []string
	for i, ok := nodes.NextSet(0); ok && int(i) < len(c.nodes); i, ok = nodes.NextSet(i + 1) {
		out = append(out, c.nodes[i].Name)
	}
	return out
}

// NodeSet turns names into a node set; it fails on an unknown name.
func (c *Cluster) NodeSet(names []string) (*bitset.BitSet, error) {
	c.mustBeMade("NodeSet")
	b := bitset.New(uint(len(c.nodes)))
	for _, n := range names {
		i, ok := c.NodeIndex(n)
		if !ok {
			return nil, fmt.Errorf("selectnodes: unknown node %q", n)
		}
		b.Set(uint(i))
	}
	return b, nil
}

func (c *Cluster) setTopology() error {
	if c.topoConf != nil {
		names := make([]string, len(c.nodes))
		for i := range c.nodes {
			names[i] = c.nodes[i].Name
		}
		t, err := topology.FromConfig(c.topoConf, names, c.topoOpts...)
		if err != nil {
			return err
		}
		c.topo = t
	}
	if c.topo == nil {
		return nil
	}
	if c.topo.NodeCount() != len(c.nodes) {
		return fmt.Errorf("selectnodes: the topology covers %d nodes, the cluster has %d", c.topo.NodeCount(), len(c.nodes))
	}
	for i := range c.nodes {
		if c.topo.NodeName(i) != c.nodes[i].Name {
			return fmt.Errorf("selectnodes: topology node %d is %s, cluster node %d is %s", i, c.topo.NodeName(i), i, c.nodes[i].Name)
		}
	}
	return nil
}

// Topology is the switch tree selection uses, or nil. The tree is the
// cluster's, shared: read it, change none of its fields (see topology.Tree).
func (c *Cluster) Topology() *topology.Tree {
	c.mustBeMade("Topology")
	return c.topo
}
