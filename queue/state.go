package queue

import (
	"encoding/json"
	"errors"
	"io"
	"time"

	"github.com/hpcsched/hpcsched/selectnodes"
)

// StateVersion is the version of the format Snapshot writes and Restore
// reads.
const StateVersion = 2

// MaxStateBytes is the most Restore reads; a larger input is an error.
const MaxStateBytes = 1 << 30

// The saved state is one JSON object, documented field by field here so
// that stores and other processes can rely on it (version 2):
//
//	version        2
//	next_id        the scheduler's next job ID (its own counter)
//	seq            the submit-order counter; alloc_seq the allocation counter
//	event_seq      the last event's Seq
//	last_recalc    when a dynamic policy last recomputed priorities (RFC 3339)
//	clock          the latest now the scheduler accepted (passes never act
//	               earlier); omitted when none
//	partitions     [{name, nodes [names], default, min_nodes, max_nodes,
//	                 max_time (Go duration, "0s" none), default_time
//	                 (omitted when none), priority,
//	                 state UP|DRAIN|DOWN|INACTIVE, root_only,
//	                 oversubscribe NO|YES|EXCLUSIVE|FORCE, max_share, hidden,
//	                 max_mem_per_node_mb, def_mem_per_cpu_mb,
//	                 def_mem_per_node_mb, max_cpus_per_node, lln,
//	                 allow_groups, allow_accounts, deny_accounts,
//	                 allow_qos, deny_qos}] — every field Restore hands
//	                 back to the cluster's UpdatePartition, so none is
//	                 reset there; max_cpus_per_node and lln are omitted
//	                 when 0 and false
//	nodes          [{name, state UP|DRAIN|DOWN, reported {cpus,
//	                 real_memory_mb, tmp_disk_mb}}] — the nodes not UP and
//	                 those that reported their resources
//	                 (selectnodes.Cluster.Register); reported is what a
//	                 node last reported, omitted when it reported nothing
//	jobs           [{id, name, user, account, partition, priority,
//	                 admin_priority, nice, submit, begin, start, end (RFC 3339,
//	                 omitted when unset), time_limit and time_min (Go
//	                 durations), dependency,
//	                 requeue, request {...}, state PENDING|RUNNING|..., reason,
//	                 reason_detail, held, exit_code, restarts, placement
//	                 {partition, exclusive, alloc [{node, cpus, memory_mb,
//	                 gres [{name, type, count}]}]}, seq, alloc_seq,
//	                 suspended_at, suspended_for}]
//	reservations   [{job, start, end, nodes [names]}] — Backfill's
//	forgotten      [{id, state, start}] — jobs Forget dropped: the end
//	               state (COMPLETE, CANCELLED, FAILED, TIMEOUT, NODE_FAIL)
//	               and start time a dependency on them reads; omitted
//	               when none
//	forgotten_ids  [{first, last}] — jobs forgotten without a tombstone
//	               (WithoutTombstones): runs of consecutive IDs that stay
//	               in use, ascending and disjoint; omitted when none
//	dependencies_given  true once a job has been given a dependency on
//	               another (WithoutTombstones keeps tombstones from then
//	               on, even when no saved job names one); omitted when not
//
// A request is {partition, min_nodes, max_nodes, desired_nodes, cpus,
// min_cpus_per_node, min_memory_mb, min_tmp_disk_mb, mem_per_cpu_mb,
// max_switches, whole_memory, core_tasks, max_cpus_per_socket, constraint
// (the canonical text), required, excluded, withheld (the names of
// Request.ExcludeNodes), contiguous, share
// DEFAULT|EXCLUSIVE|OVERSUBSCRIBE, time_limit, gres [{name, type, min,
// max}], root, held, user, groups, account, qos}. Every request field but
// partition and time_limit is omitted at its zero value, so a state
// whose jobs use none of whole_memory, core_tasks, max_cpus_per_socket
// and withheld reads as it did before they were saved, and a build that
// does not know them refuses a state that uses them rather than drop
// them. Unknown fields are an error; so is any value Restore's
// validation rejects.
type stateFile struct {
	Version      int                `json:"version"`
	NextID       JobID              `json:"next_id"`
	Seq          uint64             `json:"seq"`
	AllocSeq     uint64             `json:"alloc_seq"`
	EventSeq     uint64             `json:"event_seq"`
	LastRecalc   *time.Time         `json:"last_recalc,omitempty"`
	Clock        *time.Time         `json:"clock,omitempty"`
	Partitions   []statePartition   `json:"partitions"`
	Nodes        []stateNode        `json:"nodes,omitempty"`
	Jobs         []stateJob         `json:"jobs"`
	Reservations []stateReservation `json:"reservations,omitempty"`
	Forgotten    []stateForgotten   `json:"forgotten,omitempty"`
	ForgottenIDs []stateIDRun       `json:"forgotten_ids,omitempty"`
	// DependenciesGiven: the scheduler's latch, which the jobs alone may
	// not show (the job that set it may be forgotten, or updated since)
	DependenciesGiven bool `json:"dependencies_given,omitempty"`
}

// stateIDRun is a run of IDs of jobs forgotten without a tombstone.
type stateIDRun struct {
	First JobID `json:"first"`
	Last  JobID `json:"last"`
}

// stateForgotten is a forgotten job's tombstone.
type stateForgotten struct {
	ID    JobID      `json:"id"`
	State string     `json:"state"`
	Start *time.Time `json:"start,omitempty"`
}

type statePartition struct {
	Name          string   `json:"name"`
	Nodes         []string `json:"nodes"`
	Default       bool     `json:"default,omitempty"`
	MinNodes      int      `json:"min_nodes,omitempty"`
	MaxNodes      int      `json:"max_nodes,omitempty"`
	MaxTime       duration `json:"max_time"`
	DefaultTime   duration `json:"default_time,omitempty"`
	Priority      int      `json:"priority,omitempty"`
	State         string   `json:"state"`
	RootOnly      bool     `json:"root_only,omitempty"`
	Oversubscribe string   `json:"oversubscribe"`
	MaxShare      int      `json:"max_share,omitempty"`
	Hidden        bool     `json:"hidden,omitempty"`
	MaxMemPerNode int64    `json:"max_mem_per_node_mb,omitempty"`
	DefMemPerCPU  int64    `json:"def_mem_per_cpu_mb,omitempty"`
	DefMemPerNode int64    `json:"def_mem_per_node_mb,omitempty"`
	MaxCPUs       int      `json:"max_cpus_per_node,omitempty"`
	LLN           bool     `json:"lln,omitempty"`
	AllowGroups   []string `json:"allow_groups,omitempty"`
	AllowAccounts []string `json:"allow_accounts,omitempty"`
	DenyAccounts  []string `json:"deny_accounts,omitempty"`
	AllowQOS      []string `json:"allow_qos,omitempty"`
	DenyQOS       []string `json:"deny_qos,omitempty"`
}

type stateNode struct {
	Name     string          `json:"name"`
	State    string          `json:"state"`
	Reported *stateResources `json:"reported,omitempty"`
}

// stateResources is what a node reported to Register.
type stateResources struct {
	CPUs       int   `json:"cpus"`
	RealMemory int64 `json:"real_memory_mb"`
	TmpDisk    int64 `json:"tmp_disk_mb"`
}

type stateJob struct {
	ID            JobID        `json:"id"`
	Name          string       `json:"name,omitempty"`
	User          string       `json:"user,omitempty"`
	Account       string       `json:"account,omitempty"`
	Partition     string       `json:"partition"`
	Priority      int64        `json:"priority"`
	AdminPriority int64        `json:"admin_priority,omitempty"`
	Nice          int64        `json:"nice,omitempty"`
	Submit        *time.Time   `json:"submit,omitempty"`
	Begin         *time.Time   `json:"begin,omitempty"`
	Start         *time.Time   `json:"start,omitempty"`
	End           *time.Time   `json:"end,omitempty"`
	TimeLimit     duration     `json:"time_limit"`
	TimeMin       duration     `json:"time_min,omitempty"`
	Dependency    string       `json:"dependency,omitempty"`
	Requeue       bool         `json:"requeue,omitempty"`
	Request       stateRequest `json:"request"`
	State         string       `json:"state"`
	Reason        string       `json:"reason,omitempty"`
	ReasonDetail  string       `json:"reason_detail,omitempty"`
	Held          bool         `json:"held,omitempty"`
	ExitCode      int          `json:"exit_code,omitempty"`
	Restarts      int          `json:"restarts,omitempty"`
	Placement     *statePlace  `json:"placement,omitempty"`
	Seq           uint64       `json:"seq"`
	AllocSeq      uint64       `json:"alloc_seq,omitempty"`
	SuspendedAt   *time.Time   `json:"suspended_at,omitempty"`
	SuspendedFor  duration     `json:"suspended_for,omitempty"`
}

type stateRequest struct {
	Partition    string      `json:"partition"`
	MinNodes     int         `json:"min_nodes,omitempty"`
	MaxNodes     int         `json:"max_nodes,omitempty"`
	DesiredNodes int         `json:"desired_nodes,omitempty"`
	CPUs         int         `json:"cpus,omitempty"`
	MinCPUs      int         `json:"min_cpus_per_node,omitempty"`
	MinMemory    int64       `json:"min_memory_mb,omitempty"`
	MinTmpDisk   int64       `json:"min_tmp_disk_mb,omitempty"`
	MemPerCPU    int64       `json:"mem_per_cpu_mb,omitempty"`
	MaxSwitches  int         `json:"max_switches,omitempty"`
	WholeMemory  bool        `json:"whole_memory,omitempty"`
	CoreTasks    bool        `json:"core_tasks,omitempty"`
	MaxPerSocket int         `json:"max_cpus_per_socket,omitempty"`
	Constraint   string      `json:"constraint,omitempty"`
	Required     []string    `json:"required,omitempty"`
	Excluded     []string    `json:"excluded,omitempty"`
	Withheld     []string    `json:"withheld,omitempty"`
	Contiguous   bool        `json:"contiguous,omitempty"`
	Share        string      `json:"share,omitempty"`
	TimeLimit    duration    `json:"time_limit"`
	GRES         []stateGRES `json:"gres,omitempty"`
	Root         bool        `json:"root,omitempty"`
	Held         bool        `json:"held,omitempty"`
	User         string      `json:"user,omitempty"`
	Groups       []string    `json:"groups,omitempty"`
	Account      string      `json:"account,omitempty"`
	QOS          string      `json:"qos,omitempty"`
}

type stateGRES struct {
	Name  string `json:"name"`
	Type  string `json:"type,omitempty"`
	Min   int64  `json:"min,omitempty"`
	Max   int64  `json:"max,omitempty"`
	Count int64  `json:"count,omitempty"`
}

type statePlace struct {
	Partition string       `json:"partition"`
	Exclusive bool         `json:"exclusive,omitempty"`
	Alloc     []stateAlloc `json:"alloc"`
}

type stateAlloc struct {
	Node   string      `json:"node"`
	CPUs   int         `json:"cpus"`
	Memory int64       `json:"memory_mb,omitempty"`
	GRES   []stateGRES `json:"gres,omitempty"`
}

type stateReservation struct {
	Job   JobID     `json:"job"`
	Start time.Time `json:"start"`
	End   time.Time `json:"end"`
	Nodes []string  `json:"nodes"`
}

// duration is a time.Duration written as Go's duration text ("1h30m0s").
type duration time.Duration

func (d duration) MarshalText() ([]byte, error) { return []byte(time.Duration(d).String()), nil }

func (d *duration) UnmarshalText(b []byte) error {
	v, err := time.ParseDuration(string(b))
	*d = duration(v)
	return err
}

// Snapshot writes the scheduler's whole state (the Slurm Programmer's Guide's state save) in
// the documented format of version StateVersion: jobs, queue order, ID,
// submit, allocation and event counters, node states, partitions and
// Backfill's reservations. Restore over a cluster built from the same
// configuration gives a scheduler that decides exactly as this one. A nil
// w is an error, as a nil reader is to Restore.
func (s *Scheduler) Snapshot(w io.Writer) error {
	if w == nil {
		return errors.New("queue: Snapshot needs a writer, not nil")
	}
	s.enterRead()
	defer s.mu.Unlock()
	st := stateFile{Version: StateVersion, NextID: s.nextID, Seq: s.seq, AllocSeq: s.allocSeq,
		EventSeq: s.eventSeq, LastRecalc: stamp(s.lastRecalc), Clock: stamp(s.clock)}
	def := s.c.DefaultPartition()
	for _, p := range s.c.Partitions() {
		// one default, the one in force (a configuration may say
		// Default=YES twice: the last wins), and each node once
		p.Default = p.Name == def
		p.Nodes = uniqueNames(p.Nodes)
		st.Partitions = append(st.Partitions, savePartition(p))
	}
	for i := 0; i < s.c.NodeCount(); i++ {
		r, reported := s.c.Reported(i)
		if state := s.c.State(i); state != selectnodes.NodeUp || reported {
			sn := stateNode{Name: s.c.Node(i).Name, State: state.String()}
			if reported {
				sn.Reported = &stateResources{CPUs: r.CPUs, RealMemory: r.RealMemory, TmpDisk: r.TmpDisk}
			}
			st.Nodes = append(st.Nodes, sn)
		}
	}
	for _, id := range s.ids() {
		st.Jobs = append(st.Jobs, s.saveJob(s.jobs[id]))
	}
	for _, id := range sortedResv(s.resv) {
		r := s.resv[id]
		st.Reservations = append(st.Reservations, stateReservation{Job: id, Start: r.Start, End: r.End, Nodes: s.resvNames(r)})
	}
	for _, id := range s.forgottenIDs() {
		t := s.gone[id]
		st.Forgotten = append(st.Forgotten, stateForgotten{ID: id, State: t.state.String(), Start: stamp(t.startTime())})
	}
	for _, r := range s.bare.runs() {
		st.ForgottenIDs = append(st.ForgottenIDs, stateIDRun{First: r.lo, Last: r.hi})
	}
	st.DependenciesGiven = s.depJobs > 0
	return json.NewEncoder(w).Encode(st)
}

// stamp is t, or nil when t is zero.
func stamp(t time.Time) *time.Time {
	if t.IsZero() {
		return nil
	}
	return &t
}

func savePartition(p selectnodes.Partition) statePartition {
	return statePartition{Name: p.Name, Nodes: p.Nodes, Default: p.Default, MinNodes: p.MinNodes,
		MaxNodes: p.MaxNodes, MaxTime: duration(p.MaxTime), DefaultTime: duration(p.DefaultTime), Priority: p.Priority, State: p.State.String(),
		RootOnly: p.RootOnly, Oversubscribe: shareModeName(p.Sharing.Mode), MaxShare: p.Sharing.Count,
		Hidden: p.Hidden, MaxMemPerNode: p.MaxMemPerNode, DefMemPerCPU: p.DefMemPerCPU,
		DefMemPerNode: p.DefMemPerNode, MaxCPUs: p.MaxCPUsPerNode, LLN: p.LLN, AllowGroups: p.Access.AllowGroups,
		AllowAccounts: p.Access.AllowAccounts, DenyAccounts: p.Access.DenyAccounts, AllowQOS: p.Access.AllowQOS,
		DenyQOS: p.Access.DenyQOS}
}

func (s *Scheduler) saveJob(j *job) stateJob {
	return stateJob{ID: j.ID, Name: j.Name, User: j.User, Account: j.Account, Partition: j.Partition,
		Priority: j.Priority, AdminPriority: j.AdminPriority, Nice: j.Nice, Submit: stamp(j.Submit),
		Begin: stamp(j.Begin), Start: stamp(j.Start), End: stamp(j.End), TimeLimit: duration(j.TimeLimit),
		TimeMin: duration(j.TimeMin), Dependency: j.Dependency, Requeue: j.Requeue, Request: s.saveRequest(&j.Request), State: j.State.String(),
		Reason: string(j.Reason), ReasonDetail: j.ReasonDetail, Held: j.Held, ExitCode: j.ExitCode,
		Restarts: j.Restarts, Placement: s.savePlacement(j), Seq: j.seq, AllocSeq: j.allocSeq,
		SuspendedAt: stamp(j.suspendedAt), SuspendedFor: duration(j.suspendedFor)}
}

func (s *Scheduler) saveRequest(r *selectnodes.Request) stateRequest {
	out := stateRequest{Partition: r.Partition, MinNodes: r.MinNodes, MaxNodes: r.MaxNodes,
		DesiredNodes: r.DesiredNodes, CPUs: r.CPUs, MinCPUs: r.MinCPUsPerNode, MinMemory: r.MinMemoryPerNode,
		MinTmpDisk: r.MinTmpDiskPerNode, MemPerCPU: r.MemPerCPU, MaxSwitches: r.MaxSwitches,
		WholeMemory: r.WholeMemory, CoreTasks: r.CoreTasks, MaxPerSocket: r.MaxCPUsPerSocket,
		Required: r.Required, Excluded: r.Excluded, Contiguous: r.Contiguous,
		Share: shareRequestName(r.Share), TimeLimit: duration(r.TimeLimit), Root: r.Root, Held: r.Held,
		User: r.User, Groups: r.Groups, Account: r.Account, QOS: r.QOS}
	if r.Features != nil {
		out.Constraint = r.Features.String()
	}
	if r.ExcludeNodes != nil {
		out.Withheld = s.c.Names(r.ExcludeNodes)
	}
	for _, g := range r.GRES {
		out.GRES = append(out.GRES, stateGRES{Name: g.Name, Type: g.Type, Min: g.Min, Max: g.Max})
	}
	return out
}

// savePlacement keeps a running or suspended job's placement; ended jobs'
// last placements are history, not state.
func (s *Scheduler) savePlacement(j *job) *statePlace {
	if (j.State != Running && j.State != Suspended) || j.Placement == nil {
		return nil
	}
	p := j.Placement
	out := &statePlace{Partition: p.Partition, Exclusive: p.Exclusive}
	for _, a := range p.Alloc {
		sa := stateAlloc{Node: s.c.Node(a.Node).Name, CPUs: a.CPUs, Memory: a.Memory}
		for _, g := range a.GRES {
			sa.GRES = append(sa.GRES, stateGRES{Name: g.Name, Type: g.Type, Count: g.Count})
		}
		out.Alloc = append(out.Alloc, sa)
	}
	return out
}

// uniqueNames is names with repeats dropped, in order.
func uniqueNames(names []string) []string {
	seen := make(map[string]bool, len(names))
	out := make([]string, 0, len(names))
	for _, n := range names {
		if !seen[n] {
			seen[n] = true
			out = append(out, n)
		}
	}
	return out
}
