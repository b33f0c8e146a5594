package selectnodes

import (
	"fmt"
	"slices"
	"time"
)

// NodeState is the administrative state of a node. Whether it is idle or
// allocated is derived from the jobs on it, as in Slurm's global bitmaps.
type NodeState uint8

const (
	NodeUp    NodeState = iota // up and available for new jobs
	NodeDrain                  // up, running its jobs, taking no new ones
	NodeDown                   // not responding or taken out of service
)

func (s NodeState) String() string {
	switch s {
	case NodeUp:
		return "UP"
	case NodeDrain:
		return "DRAIN"
	case NodeDown:
		return "DOWN"
	}
	return fmt.Sprintf("NodeState(%d)", uint8(s))
}

// GRES is a count of one generic resource on a node: gpu:v100:4 is
// {Name: "gpu", Type: "v100", Count: 4}.
type GRES struct {
	Name  string
	Type  string
	Count int64
}

// Node is one compute node as configured. Nodes are identified by their
// index in the slice given to New, which is also their order for
// consecutive-node selection.
type Node struct {
	Name string
	// CPUs is the number of schedulable CPUs; when 0 it is
	// Boards*Sockets*CoresPerSocket*ThreadsPerCore (each at least 1).
	CPUs                                     int
	Boards, Sockets, CoresPerSocket, Threads int
	RealMemory                               int64 // MB
	TmpDisk                                  int64 // MB
	// Weight orders nodes for selection: lower weights are used first.
	Weight   int64
	Features []string
	GRES     []GRES
	State    NodeState
}

// node is a node as the cluster keeps it: its name and its configuration,
// which the nodes of one NodeName line (or consecutive equal Nodes given to
// New) share. The fields read as a Node's do, through the embedded
// pointer; 24 bytes a node, where a Node is 136.
type node struct {
	Name string
	*nodeConf
}

// nodeConf is a Node but its name. It is shared by several nodes and never
// written once the cluster is built.
type nodeConf struct {
	CPUs                                     int
	Boards, Sockets, CoresPerSocket, Threads int
	RealMemory, TmpDisk, Weight              int64
	Features                                 []string
	GRES                                     []GRES
	State                                    NodeState
}

// confOf is n's configuration, sharing n's Features and GRES.
func confOf(n *Node) nodeConf {
	return nodeConf{CPUs: n.CPUs, Boards: n.Boards, Sockets: n.Sockets, CoresPerSocket: n.CoresPerSocket,
		Threads: n.Threads, RealMemory: n.RealMemory, TmpDisk: n.TmpDisk, Weight: n.Weight, Features: n.Features,
		GRES: n.GRES, State: n.State}
}

// equal reports whether a and b configure a node alike.
func (a *nodeConf) equal(b *nodeConf) bool {
	return a.CPUs == b.CPUs && a.Boards == b.Boards && a.Sockets == b.Sockets && a.CoresPerSocket == b.CoresPerSocket &&
		a.Threads == b.Threads && a.RealMemory == b.RealMemory && a.TmpDisk == b.TmpDisk && a.Weight == b.Weight &&
		a.State == b.State && slices.Equal(a.Features, b.Features) && slices.Equal(a.GRES, b.GRES)
}

// public is the node as a Node, sharing its Features and GRES.
func (n *node) public() Node {
	return Node{Name: n.Name, CPUs: n.CPUs, Boards: n.Boards, Sockets: n.Sockets, CoresPerSocket: n.CoresPerSocket,
		Threads: n.Threads, RealMemory: n.RealMemory, TmpDisk: n.TmpDisk, Weight: n.Weight, Features: n.Features,
		GRES: n.GRES, State: n.State}
}

// MaxNodeCPUs is the most CPUs one node may have, configured or computed
// from its boards, sockets, cores and threads; New checks the product
// against it before computing it, so no count overflows.
const MaxNodeCPUs = 1 << 24

// cpus is the node's CPU count, or false when it is above MaxNodeCPUs.
func (n *nodeConf) cpus() (int, bool) {
	if n.CPUs > 0 {
		return n.CPUs, n.CPUs <= MaxNodeCPUs
	}
	p := 1
	for _, f := range []int{n.Boards, n.Sockets, n.CoresPerSocket, n.Threads} {
		f = max(f, 1)
		if f > MaxNodeCPUs/p {
			return 0, false
		}
		p *= f
	}
	return p, true
}

// Resources is what a node reports about itself when it registers (Slurm's
// slurmd registration); see Cluster.Register and FastSchedule.
type Resources struct {
	CPUs       int
	RealMemory int64
	TmpDisk    int64
}

// ShareMode is a partition's OverSubscribe (formerly Shared) setting,
// which with the job's ShareRequest decides whether jobs may share nodes
// (the Novotný thesis, Table 2.1).
type ShareMode uint8

const (
	ShareNo        ShareMode = iota // NO: jobs do not share (cons_res: they share consumable resources)
	ShareYes                        // YES: jobs asking to share may, up to Count per node
	ShareExclusive                  // EXCLUSIVE: every job gets whole nodes
	ShareForce                      // FORCE: every job shares, up to Count per node
)

func (m ShareMode) String() string {
	if int(m) < 4 {
		return [...]string{"NO", "YES", "EXCLUSIVE", "FORCE"}[m]
	}
	return fmt.Sprintf("ShareMode(%d)", uint8(m))
}

// Sharing is OverSubscribe=MODE[:COUNT]: Count is the most jobs per node
// for YES and FORCE (4 when 0).
type Sharing struct {
	Mode  ShareMode
	Count int
}

// PartitionState is a partition's State=.
type PartitionState uint8

const (
	PartitionUp       PartitionState = iota // accepting and running jobs
	PartitionDrain                          // running jobs, starting none
	PartitionDown                           // accepting jobs, starting none
	PartitionInactive                       // neither accepting nor starting
)

func (s PartitionState) String() string {
	return [...]string{"UP", "DRAIN", "DOWN", "INACTIVE"}[min(int(s), 3)]
}

// Partition is a named set of nodes with limits for the jobs in it.
type Partition struct {
	Name    string
	Nodes   []string // node names; every one must be defined
	Default bool
	// MinNodes and MaxNodes bound a job's node count; 0 means no bound.
	MinNodes, MaxNodes int
	// MaxTime bounds a job's time limit; 0 means no limit.
	MaxTime time.Duration
	// DefaultTime is the time limit of a job that gives none (Slurm's
	// DefaultTime; MaxTime applies when it is 0). Selection does not read
	// it: the queue applies it at submit.
	DefaultTime time.Duration
	// Priority orders partitions in the scheduling loop (Slurm's
	// PriorityTier); higher runs first.
	Priority int
	State    PartitionState
	RootOnly bool
	// Sharing is OverSubscribe (formerly Shared); the zero value is NO.
	// Sharing.Count is the most jobs per node for YES and FORCE (4 when 0).
	Sharing Sharing
	// Access is who may use the partition (AllowGroups, AllowAccounts,
	// DenyAccounts, AllowQOS, DenyQOS); the zero value allows everyone.
	Access Access
	// Hidden partitions are left out of listings (informational: jobs may
	// still name them, as in Slurm).
	Hidden bool
	// MaxMemPerNode bounds a job's memory per node (MB); 0 means none.
	MaxMemPerNode int64
	// DefMemPerCPU and DefMemPerNode (MB) are the memory of a job that
	// asks for none (Slurm's partition or global defaults; DefMemPerNode
	// wins when both are set); 0 means no default. FromConfig sets them
	// only when memory is consumable (SelectTypeParameters CR_*_Memory).
	DefMemPerCPU, DefMemPerNode int64
	// MaxCPUsPerNode bounds the CPUs of one node that the partition's jobs
	// hold together (select/cons_res and cons_tres); 0 means no bound. A
	// job asking more of one node than the bound (-c, --exclusive on a
	// larger node) cannot run in the partition; a busy node offers the
	// bound less what the partition's running jobs hold there
	// (compat_lln.go).
	MaxCPUsPerNode int
	// LLN places jobs on the least loaded nodes (the largest share of
	// their CPUs idle) within the lowest weight first, as Slurm's LLN=YES and
	// SelectTypeParameters=CR_LLN do; only WithSlurmCompat follows it (the
	// default mode packs).
	LLN bool
}

// PartitionLimits is what Cluster.PartitionLimits reads of a partition:
// the fields of Partition of the same names. It holds no list: a value,
// the caller's.
type PartitionLimits struct {
	State                       PartitionState
	Priority                    int
	MinNodes, MaxNodes          int
	MaxTime, DefaultTime        time.Duration
	DefMemPerCPU, DefMemPerNode int64
}

// clone is p with a node list and Access lists of its own.
func (p *Partition) clone() Partition {
	out := *p
	out.Nodes, out.Access = slices.Clone(p.Nodes), p.Access.clone()
	return out
}

func (p *Partition) maxShare() int {
	switch {
	case p.Sharing.Mode != ShareYes && p.Sharing.Mode != ShareForce:
		return 1
	case p.Sharing.Count <= 0:
		return 4
	}
	return p.Sharing.Count
}

// ShareRequest is a job's --exclusive / --share (--oversubscribe) choice.
type ShareRequest uint8

const (
	ShareDefault       ShareRequest = iota // neither option given
	ShareExclusiveJob                      // --exclusive
	ShareOversubscribe                     // --share / --oversubscribe
)

// MayShare is Table 2.1 of the Novotný thesis: whether a job may share nodes with
// other jobs, given the partition's setting and the job's request (the
// select/linear rule; ConsRes shares CPUs of a node differently, see
// ConsRes).
func MayShare(mode ShareMode, req ShareRequest) bool {
	switch mode {
	case ShareForce:
		return true
	case ShareYes:
		return req == ShareOversubscribe
	}
	return false
}
