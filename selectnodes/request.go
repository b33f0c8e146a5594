package selectnodes

import (
	"fmt"
	"iter"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/bits-and-blooms/bitset"
	"github.com/hpcsched/hpcsched/features"
	"github.com/hpcsched/hpcsched/hostlist"
)

// Mode is the selection mode of select_p_job_test.
type Mode uint8

const (
	// RunNow selects nodes the job can start on at once.
	RunNow Mode = iota
	// TestOnly ignores the load: could the job ever run here?
	TestOnly
	// WillRun finds when and where the job could start, simulating the
	// running jobs ending in order of their expected end times.
	WillRun
)

func (m Mode) String() string {
	return [...]string{"RunNow", "TestOnly", "WillRun"}[min(int(m), 2)]
}

// GRESRequest asks for Min to Max units of a generic resource on every
// node (gpu:1-3 asks for at least one GPU and takes up to three if free, as
// the AUCSCHED3 paper's GPU ranges do). An empty Type matches every type of Name.
type GRESRequest struct {
	Name, Type string
	Min, Max   int64
}

// ParseGRES reads a --gres value: "gpu:2", "gpu:v100:2", "gpu:1-3",
// "gpu" (one), several separated by commas.
func ParseGRES(s string) ([]GRESRequest, error) {
	var out []GRESRequest
	for _, item := range strings.Split(s, ",") {
		item = strings.TrimSpace(item)
		if item == "" {
			continue
		}
		f := strings.Split(item, ":")
		g := GRESRequest{Name: f[0], Min: 1, Max: 1}
		if g.Name == "" || len(f) > 3 {
			return nil, fmt.Errorf("selectnodes: GRES %q is not name[:type][:count]", item)
		}
		rest := f[1:]
		if len(rest) > 0 {
			if lo, hi, ok := parseRange(rest[len(rest)-1]); ok {
				g.Min, g.Max = lo, hi
				rest = rest[:len(rest)-1]
			} else if len(rest) == 2 {
				return nil, fmt.Errorf("selectnodes: GRES %q: %q is not a count or range", item, rest[1])
			}
		}
		if len(rest) == 1 {
			g.Type = rest[0]
		}
		out = append(out, g)
	}
	return out, nil
}

func parseRange(s string) (lo, hi int64, ok bool) {
	a, b, isRange := strings.Cut(s, "-")
	lo, err := strconv.ParseInt(a, 10, 64)
	if err != nil || lo < 0 {
		return 0, 0, false
	}
	hi = lo
	if isRange {
		if hi, err = strconv.ParseInt(b, 10, 64); err != nil || hi < lo {
			return 0, 0, false
		}
	}
	return lo, hi, true
}

// Request is what a job asks of the nodes (the Novotný thesis §3.1.4 constraints).
type Request struct {
	// Partition is the partition name; "" means the default partition.
	Partition string
	// MinNodes is the fewest nodes (0 means 1); MaxNodes the most (0 means
	// no limit); DesiredNodes the count to aim for (0 means MinNodes).
	MinNodes, MaxNodes, DesiredNodes int
	// CPUs is the total CPU count (Slurm's num_procs); 0 means no total.
	CPUs int
	// Per-node minimums.
	MinCPUsPerNode    int
	MinMemoryPerNode  int64 // MB
	MinTmpDiskPerNode int64 // MB
	// MemPerCPU is memory per allocated CPU (MB, sbatch's --mem-per-cpu):
	// with ConsRes a node gives the job no more CPUs than its free memory
	// holds. 0 means none (or the partition's DefMemPerCPU, see
	// Partition).
	MemPerCPU int64
	// WholeMemory is sbatch's --mem=0: the job takes all the memory of
	// each of its nodes, so where memory is consumable only a node with
	// none of its memory allocated qualifies (recorded on Slurm 22.05.8:
	// compat_mem.go). MinMemoryPerNode and MemPerCPU are then ignored.
	WholeMemory bool
	// CoreTasks gives each of the job's CPUs a whole core (sbatch's
	// --hint=nomultithread, --threads-per-core=1, --ntasks-per-core=1): on
	// a node of T threads per core, CPUs counts cores and every one
	// allocated holds T CPUs (tasklayout.go).
	CoreTasks bool
	// MaxCPUsPerSocket bounds the job's CPUs on each socket of a node
	// (sbatch's --ntasks-per-socket times CPUs per task); 0 means none.
	MaxCPUsPerSocket int
	// Features is the --constraint expression; nil means none.
	Features *features.Expr
	// Required nodes must all be in the allocation; Excluded never.
	Required, Excluded []string
	// ExcludeNodes withholds nodes by index: a bitmap of exactly the
	// cluster's node count (another length is ErrInvalidRequest with a
	// *BitmapLengthError cause). Unlike Excluded, withheld nodes count as
	// unavailable, as the Novotný thesis §3.2.1's schedule withholds the nodes of a
	// locked partition, so a job needing them is busy, not misconfigured.
	ExcludeNodes *bitset.BitSet
	// Contiguous asks for consecutive nodes (by index).
	Contiguous bool
	// MaxSwitches is sbatch's --switches: with a topology, the most leaf
	// switches the job's nodes may span (more leaves it pending); 0 means
	// no limit. Only the Slurm-compatible mode enforces it; the default
	// mode places on the lowest common switch and says in the explanation
	// that it did not bound the leaves.
	MaxSwitches int
	Share       ShareRequest
	// TimeLimit is checked against the partition's MaxTime; 0 means none.
	TimeLimit time.Duration
	GRES      []GRESRequest
	// Root is set for jobs of user root, who alone may use RootOnly
	// partitions (and every partition, whatever its Access).
	Root bool
	// User, Groups, Account and QOS are who submits, checked against the
	// partition's Access (sbatch's --uid, --gid, -A and --qos).
	User    string
	Groups  []string
	Account string
	QOS     string
	// Held marks a job with priority 0; selection fails with ErrHeld.
	Held bool
}

// Clone is a deep copy of r: its slices (Required, Excluded, GRES,
// Groups) and its ExcludeNodes bitmap are new, the caller's; Features,
// an immutable parsed expression, is shared. A holder that keeps a
// request its caller may reuse keeps a Clone.
func (r Request) Clone() Request {
	r.DeepCopyInto(&r)
	return r
}

// DeepCopyInto copies r into out as Clone does; out may be r itself, which
// then owns new copies of its slices and bitmap without the whole request
// being copied (a Request is large: a scheduler that takes one per job
// copies it in place).
func (r *Request) DeepCopyInto(out *Request) {
	if out != r {
		*out = *r
	}
	out.Required = slices.Clone(out.Required)
	out.Excluded = slices.Clone(out.Excluded)
	out.Groups = slices.Clone(out.Groups)
	out.GRES = slices.Clone(out.GRES)
	if out.ExcludeNodes != nil {
		out.ExcludeNodes = out.ExcludeNodes.Clone()
	}
}

// Counts are the node counts a selection must meet (select_nodes'
// min_nodes, req_nodes, max_nodes) and the total CPUs.
type Counts struct {
	Min, Desired, Max int
	CPUs              int
}

func (n Counts) String() string {
	hi := "unlimited"
	if n.Max > 0 {
		hi = fmt.Sprint(n.Max)
	}
	s := fmt.Sprintf("%d..%s nodes (desired %d)", n.Min, hi, n.Desired)
	if n.CPUs > 0 {
		s += fmt.Sprintf(", %d CPUs", n.CPUs)
	}
	return s
}

// Job is a Request resolved against the cluster: what a Selector sees.
// Req is the request resolved, the caller's; Part is the cluster's own
// partition, shared with every selection: read it, never change it (every
// selection reads one, and a copy would cost 16 bytes a node; take one
// from Cluster.Partition).
type Job struct {
	Req       *Request
	Part      *Partition
	partIndex int
	// Shared: the job may share nodes (the Novotný thesis Table 2.1).
	Shared bool
	// Exclusive: the job takes whole nodes no other job may join.
	Exclusive bool
	// MaxShare is the most jobs on one node for a shared job.
	MaxShare int
	// Required and Excluded as node sets; nil when empty.
	Required, Excluded *bitset.BitSet
	cpusPerNode        int
	memPerCPU          int64 // MB per allocated CPU (compat_mem.go); 0 for none
	gres               []gresNeed
	availNodes         *bitset.BitSet // the cluster's Avail less ExcludeNodes
}

type gresNeed struct {
	keys     []int
	min, max int64
	req      GRESRequest
}

// GRESAlloc is a count of one GRES type given to a job on one node.
type GRESAlloc struct {
	Name, Type string
	Count      int64
	// key and slot are the GRES key and its slot on the node, derived
	// from Name and Type by the placement's maker or by Allocate (kept
	// here, 32 bits each, so that a NodeAlloc is 48 bytes and a GRESAlloc
	// with them too)
	key, slot int32
}

// NodeAlloc is what a job gets on one node.
type NodeAlloc struct {
	Node   int
	CPUs   int
	Memory int64 // MB
	GRES   []GRESAlloc
}

// Placement is where a job runs. Its nodes are listed, not kept as a
// cluster-sized bitmap: a one-node placement on 100,000 nodes costs its
// node, not 12.5 KB. NodeCount, Node, HasNode and All read them; NodeSet
// builds the bitmap for a caller that wants one.
//
// A caller building a Placement itself (restoring saved state, a test)
// fills Alloc, in node index order; Cluster.Allocate checks it and fills
// in what it lacks.
type Placement struct {
	Partition string
	Names     []string    // the nodes' names, in node index order
	Alloc     []NodeAlloc // in node index order
	TotalCPUs int
	// Exclusive: no other job may join these nodes while this one runs.
	Exclusive bool
	// Weight is the sum of the nodes' weights.
	Weight int64
	// Start is when the job can start, for WillRun; the zero Time means at
	// once (when Immediate is true).
	Start     time.Time
	Immediate bool
	// nodes are the node indices ascending when Alloc is nil (ProbeNodes
	// leaves it out); otherwise the nodes are Alloc's.
	nodes []int
	// clusterNodes is the cluster's node count, the length of NodeSet's
	// bitmap; 0 for a placement built outside the package.
	clusterNodes int
	// live counts the cluster allocations holding the placement (only a
	// cluster's own Allocate, AllocateSelected and Release change it,
	// never a snapshot's), and pooled marks one handed back by Recycle
	// and not yet reused: Recycle refuses both (recycle.go).
	live   int32
	pooled bool
}

// NodeCount returns the number of nodes.
func (p *Placement) NodeCount() int {
	if p.Alloc != nil {
		return len(p.Alloc)
	}
	return len(p.nodes)
}

// Node returns the index of the k-th node, for k in [0, NodeCount());
// indices ascend with k.
func (p *Placement) Node(k int) int {
	if p.Alloc != nil {
		return p.Alloc[k].Node
	}
	return p.nodes[k]
}

// All yields the node indices, ascending.
func (p *Placement) All() iter.Seq[int] {
	return func(yield func(int) bool) {
		for k := range p.NodeCount() {
			if !yield(p.Node(k)) {
				return
			}
		}
	}
}

// HasNode reports whether node i is one of the placement's nodes, by
// binary search (O(log NodeCount)).
func (p *Placement) HasNode(i int) bool {
	n := p.NodeCount()
	k := sort.Search(n, func(k int) bool { return p.Node(k) >= i })
	return k < n && p.Node(k) == i
}

// NodeSet returns the nodes as a new bitmap, which the caller owns. Its
// length is the cluster's node count for a placement the cluster made or
// allocated, else one past the highest node. It costs a bitmap of that
// size on every call: a caller that needs it more than once keeps it, and
// one that needs a node test or the count uses HasNode or NodeCount. A
// bitmap given back to the package (Request.ExcludeNodes) must be
// cluster-sized: take it from a placement the cluster made or allocated.
// A nil Placement (a pending job's) has no nodes: an empty set.
func (p *Placement) NodeSet() *bitset.BitSet {
	if p == nil {
		return new(bitset.BitSet)
	}
	size := p.clusterNodes
	for k := range p.NodeCount() { // a placement built by hand may be unsorted
		size = max(size, p.Node(k)+1)
	}
	set := bitset.New(uint(size))
	words := set.Words()
	for k := range p.NodeCount() {
		if i := p.Node(k); i >= 0 { // i < size: size covers every node
			words[i/64] |= 1 << (i % 64)
		}
	}
	return set
}

// Hostlist returns the nodes as a compressed hostlist; "" for a nil
// Placement (a pending job's), which a caller printing jobs meets first.
func (p *Placement) Hostlist() string {
	if p == nil {
		return ""
	}
	return hostlist.Compress(p.Names)
}
